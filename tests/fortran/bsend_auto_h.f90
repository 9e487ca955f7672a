! ranks: 1 2
! MPI-4.1's MPI_BUFFER_AUTOMATIC through mpif.h: attached with size 0, a
! buffered send around the ring goes through it (the library allocates), and
! the detach answers size 0; then attached to MPI_COMM_WORLD the same way.
program bsend_auto_h
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, val, got, n
  integer(kind=MPI_ADDRESS_KIND) :: baddr
  integer :: st(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  call MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  val = 100 + rank
  call MPI_Bsend(val, 1, MPI_INTEGER, mod(rank + 1, np), 5, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) stop 2
  call MPI_Recv(got, 1, MPI_INTEGER, mod(rank + np - 1, np), 5, MPI_COMM_WORLD, st, ierr)
  if (got /= 100 + mod(rank + np - 1, np)) stop 3
  n = -1
  call MPI_Buffer_detach(baddr, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= 0) stop 4

  call MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) stop 5
  call MPI_Bsend(val, 1, MPI_INTEGER, mod(rank + 1, np), 6, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) stop 6
  call MPI_Recv(got, 1, MPI_INTEGER, mod(rank + np - 1, np), 6, MPI_COMM_WORLD, st, ierr)
  if (got /= 100 + mod(rank + np - 1, np)) stop 7
  n = -1
  call MPI_Comm_detach_buffer(MPI_COMM_WORLD, baddr, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= 0) stop 8

  call MPI_Finalize(ierr)
  if (rank == 0) print '(A)', 'OK'
end program bsend_auto_h
