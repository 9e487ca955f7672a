! ranks: 2
! MPI_Status_f082f and MPI_Status_f2f08 from the mpi_f08 module (MPI-4.0
! 19.3.5): the status of a real receive goes to an INTEGER status and back,
! each field where MPI_SOURCE, MPI_TAG and MPI_ERROR name it, the element
! count kept (MPI_Get_count of the status converted back); ierror may be absent;
! MPI_STATUS_IGNORE is refused with MPI_ERR_ARG (MPI_COMM_SELF's handler).
program f08_status_conv
  use mpi_f08
  implicit none
  type(MPI_Status) :: st, back
  integer :: fst(MPI_STATUS_SIZE)
  integer :: ierr, rank, n, cls, buf(7)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  if (rank == 0) then
    buf = 5
    call MPI_Send(buf, 7, MPI_INTEGER, 1, 42, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(buf, 7, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    fst = -1
    call MPI_Status_f082f(st, fst, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    if (fst(MPI_SOURCE) /= 0 .or. fst(MPI_TAG) /= 42 .or. fst(MPI_ERROR) /= st%MPI_ERROR) stop 2
    back%MPI_SOURCE = -5
    call MPI_Status_f2f08(fst, back)
    if (back%MPI_SOURCE /= 0 .or. back%MPI_TAG /= 42) stop 4
    call MPI_Get_count(back, MPI_INTEGER, n, ierr)
    if (n /= 7) stop 5
    call MPI_Status_f082f(MPI_STATUS_IGNORE, fst, ierr)
    call MPI_Error_class(ierr, cls)
    if (cls /= MPI_ERR_ARG) stop 6
  end if
  call MPI_Finalize(ierr)
  print '(a)', 'OK'
end program
