! ranks: 2
! MPI_STATUS_F082F and MPI_STATUS_F2F08 from the `mpi` module, which defines
! TYPE(MPI_Status) too (MPI-4.0 19.3.5): a received INTEGER status becomes a
! TYPE(MPI_Status) with the same source, tag and count, and back; an
! INTEGER MPI_STATUS_IGNORE is refused with MPI_ERR_ARG.
program status_conv_mod
  use mpi
  implicit none
  type(MPI_Status) :: t
  integer :: st(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE)
  integer :: ierr, rank, n, cls, buf(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  if (rank == 0) then
    buf = 1
    call MPI_Send(buf, 3, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(buf, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call MPI_Status_f2f08(st, t, ierr)
    if (ierr /= MPI_SUCCESS) stop 1
    if (t%MPI_SOURCE /= 0 .or. t%MPI_TAG /= 9) stop 2
    back = -1
    call MPI_Status_f082f(t, back, ierr)
    if (ierr /= MPI_SUCCESS .or. any(back /= st)) stop 3
    call MPI_Get_count(back, MPI_INTEGER, n, ierr)
    if (n /= 3) stop 4
    call MPI_Status_f2f08(MPI_STATUS_IGNORE, t, ierr)
    call MPI_Error_class(ierr, cls, ierr)
    if (cls /= MPI_ERR_ARG) stop 5
  end if
  call MPI_Finalize(ierr)
  print '(a)', 'OK'
end program
