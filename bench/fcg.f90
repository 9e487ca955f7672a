! A Fortran application benchmark: conjugate gradients on the 2-D Poisson
! problem (5-point Laplacian, zero Dirichlet boundary, right-hand side 1)
! on an N x N grid, the columns split into blocks over the ranks. Every
! iteration exchanges one halo column (N doubles) with each neighbour
! (Irecv/Isend/Waitall) and does two MPI_ALLREDUCE dot products, as CG codes
! (NAS CG, HPCG) do. A fixed number of iterations, so every MPI does the
! same work; the residual after them shows they computed the same thing.
! `mpi` module, so the program builds with railmpi's mpifort, mpif90.mpich
! and mpif90.openmpi alike.
!   fcg [N [ITERATIONS]]          (default 2048 400)
! Prints "fcg: ..." and "result SECONDS RESIDUAL" (rank 0).
program fcg
  use mpi
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer :: n, iters, ierr, rank, np, nloc, j0, up, down, it, i, j, reqs(4)
  real(dp), allocatable :: x(:, :), r(:, :), p(:, :), q(:, :)
  real(dp) :: rr, rrnew, pq, alpha, beta, t0, t1, loc(1), glob(1)
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  n = 2048
  iters = 400
  if (command_argument_count() >= 1) then
     call get_command_argument(1, arg)
     read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
     call get_command_argument(2, arg)
     read (arg, *) iters
  end if
  ! this rank's columns j0+1 .. j0+nloc, with halo columns 0 and nloc+1
  nloc = n / np
  j0 = rank * nloc
  if (rank == np - 1) nloc = n - j0
  up = rank + 1
  down = rank - 1
  if (up == np) up = MPI_PROC_NULL
  if (down < 0) down = MPI_PROC_NULL
  allocate (x(0:n + 1, 0:nloc + 1), r(0:n + 1, 0:nloc + 1), p(0:n + 1, 0:nloc + 1), q(0:n + 1, 0:nloc + 1))
  x = 0
  r = 0
  p = 0
  q = 0
  ! x = 0: r = b = 1 inside the grid, p = r
  r(1:n, 1:nloc) = 1
  p = r
  loc(1) = sum(r(1:n, 1:nloc)**2)
  call MPI_Allreduce(loc, glob, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  rr = glob(1)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do it = 1, iters
     ! halo columns of p from the neighbours
     call MPI_Irecv(p(0, 0), n + 2, MPI_DOUBLE_PRECISION, down, 1, MPI_COMM_WORLD, reqs(1), ierr)
     call MPI_Irecv(p(0, nloc + 1), n + 2, MPI_DOUBLE_PRECISION, up, 2, MPI_COMM_WORLD, reqs(2), ierr)
     call MPI_Isend(p(0, nloc), n + 2, MPI_DOUBLE_PRECISION, up, 1, MPI_COMM_WORLD, reqs(3), ierr)
     call MPI_Isend(p(0, 1), n + 2, MPI_DOUBLE_PRECISION, down, 2, MPI_COMM_WORLD, reqs(4), ierr)
     call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
     ! q = A p
     do j = 1, nloc
        do i = 1, n
           q(i, j) = 4 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1)
        end do
     end do
     loc(1) = 0
     do j = 1, nloc
        loc(1) = loc(1) + dot_product(p(1:n, j), q(1:n, j))
     end do
     call MPI_Allreduce(loc, glob, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
     pq = glob(1)
     alpha = rr / pq
     loc(1) = 0
     do j = 1, nloc
        x(1:n, j) = x(1:n, j) + alpha * p(1:n, j)
        r(1:n, j) = r(1:n, j) - alpha * q(1:n, j)
        loc(1) = loc(1) + dot_product(r(1:n, j), r(1:n, j))
     end do
     call MPI_Allreduce(loc, glob, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
     rrnew = glob(1)
     beta = rrnew / rr
     rr = rrnew
     do j = 1, nloc
        p(1:n, j) = r(1:n, j) + beta * p(1:n, j)
     end do
  end do
  t1 = MPI_Wtime()
  if (rank == 0) then
     print '(a,i0,a,i0,a,i0,a,f0.3,a,es12.5)', 'fcg: N=', n, ' ranks=', np, ' iterations=', iters, &
          ' time=', t1 - t0, ' s residual=', sqrt(rr)
     print '(a,f0.4,1x,es12.5)', 'result ', t1 - t0, sqrt(rr)
  end if
  call MPI_Finalize(ierr)
end program fcg
