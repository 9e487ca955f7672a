! ranks: 1 2
! Sessions from the mpi_f08 module, without MPI_Init: a session, the size of
! mpi://WORLD from its info, a communicator from the set's group with a
! string tag carrying an allreduce, a session error handler call, and the
! end of the session (the handle becomes MPI_SESSION_NULL).
program f08_session
  use mpi_f08
  implicit none
  type(MPI_Session) :: s
  type(MPI_Group) :: g
  type(MPI_Comm) :: c
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  integer :: ierr, n, rank, np, total
  character(len=32) :: val
  logical :: flag

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_Session_get_num_psets(s, MPI_INFO_NULL, n, ierr)
  if (n < 3) stop 2
  call MPI_Session_get_pset_info(s, "mpi://WORLD", info, ierr)
  call MPI_Info_get(info, "mpi_size", 32, val, flag, ierr)
  if (.not. flag) stop 3
  call MPI_Info_free(info, ierr)
  call MPI_Group_from_session_pset(s, "mpi://WORLD", g, ierr)
  call MPI_Comm_create_from_group(g, "org.railmpi.test.f08", MPI_INFO_NULL, MPI_ERRORS_RETURN, c, ierr)
  if (ierr /= MPI_SUCCESS) stop 4
  call MPI_Group_free(g, ierr)
  call MPI_Comm_rank(c, rank, ierr)
  call MPI_Comm_size(c, np, ierr)
  read (val, *) n
  if (n /= np) stop 5
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, c, ierr)
  if (total /= np * (np - 1) / 2) stop 6
  call MPI_Session_get_errhandler(s, eh, ierr)
  if (eh /= MPI_ERRORS_RETURN) stop 7
  call MPI_Group_from_session_pset(s, "mpi://nowhere", g, ierr)
  if (ierr /= MPI_ERR_ARG) stop 8
  call MPI_Comm_free(c, ierr)
  call MPI_Session_finalize(s, ierr)
  if (ierr /= MPI_SUCCESS .or. s /= MPI_SESSION_NULL) stop 9
  if (rank == 0) print '(A)', 'OK'
end program f08_session
