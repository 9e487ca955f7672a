! ranks: 1 2 4
! The mpi module: collectives with MPI_IN_PLACE, MAXLOC on
! MPI_2DOUBLE_PRECISION, LOGICAL reductions, a derived type built from
! MPI_GET_ADDRESS and sent from MPI_BOTTOM, communicators, names, Fortran types.
program coll_mod
  use mpi
  implicit none
  integer :: ierr, rank, np, i, newcomm, nr, nn, rlen, vtype, stype, sz, cnt
  ! iv and d are written through MPI_BOTTOM, where the compiler cannot see
  ! it (MPI-3.1 17.1.17): volatile keeps their values out of registers
  integer, volatile :: iv(8)
  integer :: blens(2), types(2), st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), lb, ext
  double precision, volatile :: d(4)
  double precision :: pair(2, 3)
  real :: r2(2)
  integer :: i2(2)
  logical :: l, lall, lany
  complex :: c
  integer(kind=8) :: i8
  real(kind=8) :: mat(4, 3)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: dims(2), gdims(2), coords(2), cart, src, dst, reqs(2), outcount, indices(2)
  integer :: statuses(MPI_STATUS_SIZE, 2)
  logical :: periods(2), gperiods(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  ! allreduce and reduce in place
  d = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(d == np * (np + 1) / 2.0d0), 'allreduce in place')
  iv = rank
  if (rank == 0) then
     call MPI_Reduce(MPI_IN_PLACE, iv, 8, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
     call check(all(iv == np - 1), 'reduce in place')
  else
     call MPI_Reduce(iv, iv, 8, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  ! gather in place at the root
  iv = -1
  iv(rank + 1) = 10 * rank
  if (rank == 0) then
     call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, iv, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
     do i = 1, np
        call check(iv(i) == 10 * (i - 1), 'gather in place')
     end do
  else
     call MPI_Gather(iv(rank + 1), 1, MPI_INTEGER, iv, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  iv = 0
  if (rank == 0) iv(1:3) = (/ 5, 6, 7 /)
  call MPI_Bcast(iv, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(iv(3) == 7, 'bcast')

  ! MAXLOC / MINLOC on pairs
  do i = 1, 3
     pair(1, i) = mod(rank + i, np) * 1.5d0
     pair(2, i) = rank
  end do
  call MPI_Allreduce(MPI_IN_PLACE, pair, 3, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'maxloc 2double_precision')
  do i = 1, 3
     call check(pair(1, i) == (np - 1) * 1.5d0, 'maxloc value')
     call check(nint(pair(2, i)) == mod(np - 1 - i + 10 * np, np), 'maxloc location')
  end do
  r2 = (/ real(rank), real(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, r2, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(r2(1) == 0.0 .and. r2(2) == 0.0, 'minloc 2real')
  i2 = (/ -rank, rank /)
  call MPI_Allreduce(MPI_IN_PLACE, i2, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(i2(1) == -(np - 1) .and. i2(2) == np - 1, 'minloc 2integer')

  ! LOGICAL reductions
  l = rank == 0
  call MPI_Allreduce(l, lall, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(l, lany, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lany .and. (lall .eqv. (np == 1)), 'logical land/lor')
  call MPI_Allreduce(.true., l, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  call check(l .eqv. (mod(np, 2) == 1), 'logical lxor')

  ! other Fortran types
  c = cmplx(rank, 1.0)
  call MPI_Allreduce(MPI_IN_PLACE, c, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(real(c) == np * (np - 1) / 2.0 .and. aimag(c) == np, 'complex sum')
  i8 = 2_8**40 + rank
  call MPI_Allreduce(MPI_IN_PLACE, i8, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(i8 == 2_8**40 + np - 1, 'integer8 max')

  ! a derived type: a column-major matrix row (vector), then a struct built
  ! from absolute addresses and sent from MPI_BOTTOM
  call MPI_Type_vector(3, 1, 4, MPI_REAL8, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  call MPI_Type_size(vtype, sz, ierr)
  call check(sz == 24, 'vector size')
  call MPI_Type_get_extent(vtype, lb, ext, ierr)
  call check(lb == 0 .and. ext == 9 * 8, 'vector extent')
  mat = 0
  if (rank == 0) mat(2, :) = (/ 1d0, 2d0, 3d0 /)
  call MPI_Bcast(mat(2, 1), 1, vtype, 0, MPI_COMM_WORLD, ierr)
  call check(mat(2, 3) == 3d0 .and. mat(1, 3) == 0d0, 'vector bcast')
  call MPI_Get_address(iv, disps(1), ierr)
  call MPI_Get_address(d, disps(2), ierr)
  blens = (/ 2, 4 /)
  types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
  call MPI_Type_create_struct(2, blens, disps, types, stype, ierr)
  call MPI_Type_commit(stype, ierr)
  if (np > 1) then
     if (rank == 0) then
        iv(1:2) = (/ 11, 12 /)
        d = 4.25d0
        call MPI_Send(MPI_BOTTOM, 1, stype, 1, 3, MPI_COMM_WORLD, ierr)
     else if (rank == 1) then
        iv = 0
        d = 0
        call MPI_Recv(MPI_BOTTOM, 1, stype, 0, 3, MPI_COMM_WORLD, st, ierr)
        call check(iv(2) == 12 .and. d(4) == 4.25d0, 'struct from MPI_BOTTOM')
        call MPI_Get_count(st, stype, cnt, ierr)
        call check(cnt == 1, 'struct count')
     end if
  end if
  call MPI_Type_free(stype, ierr)
  call MPI_Type_free(vtype, ierr)
  call check(vtype == MPI_DATATYPE_NULL, 'type_free nulls the handle')

  ! communicators and names
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, newcomm, ierr)
  call MPI_Comm_rank(newcomm, nr, ierr)
  call MPI_Comm_size(newcomm, nn, ierr)
  call check(nr == nn - 1 - rank / 2, 'split key order')
  call MPI_Comm_set_name(newcomm, 'half   ', ierr)
  name = 'x'
  call MPI_Comm_get_name(newcomm, name, rlen, ierr)
  call check(name == 'half' .and. rlen == 4, 'comm name')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
  call check(name == 'MPI_COMM_WORLD', 'world name')
  call MPI_Comm_free(newcomm, ierr)
  call check(newcomm == MPI_COMM_NULL, 'comm_free')
  ! an error class comes back through ierror
  call MPI_Send(iv, 1, MPI_INTEGER, np + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i, ierr)
  call check(i == MPI_ERR_RANK, 'error class through ierror')

  ! a periodic Cartesian topology: LOGICAL arrays in and out
  dims = 0
  call MPI_Dims_create(np, 2, dims, ierr)
  call check(dims(1) * dims(2) == np, 'dims_create')
  periods = (/ .true., .false. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_get(cart, 2, gdims, gperiods, coords, ierr)
  call check(all(gdims == dims) .and. gperiods(1) .and. .not. gperiods(2), 'cart_get periods')
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == MPI_PROC_NULL .eqv. .false., 'periodic shift has a source')
  call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
  if (coords(2) == dims(2) - 1) call check(dst == MPI_PROC_NULL, 'non-periodic edge')
  call MPI_Comm_free(cart, ierr)
  ! WAITSOME: Fortran indices start at 1
  call MPI_Irecv(iv(1), 1, MPI_INTEGER, rank, 21, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(iv(2), 1, MPI_INTEGER, rank, 22, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 22, MPI_COMM_WORLD, ierr)
  call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
  call check(outcount == 1 .and. indices(1) == 2, 'waitsome 1-based index')
  call check(statuses(MPI_TAG, 1) == 22, 'waitsome status')
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 21, MPI_COMM_WORLD, ierr)
  call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
  call check(outcount == 1 .and. indices(1) == 1, 'waitsome second')
  call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
  call check(outcount == MPI_UNDEFINED, 'waitsome with no active request')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'OK'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
       print *, 'FAIL: ', what, ' on rank ', rank
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program coll_mod
