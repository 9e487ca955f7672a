! ranks: 1 2
! Sessions from the mpi_f08 module, without MPI_Init: a session, the size of
! mpi://WORLD from its info, a communicator from the set's group with a
! string tag carrying an allreduce, a session error handler call, the names
! of the process sets (MPI_Session_get_nth_pset: pset_len counts characters,
! without C's terminating null; 0 asks for the length; a short string gets
! the name cut), MPI_Info_get_string the same way, a session buffer carrying
! a buffered send (also an automatic one), and the end of the session (the handle becomes
! MPI_SESSION_NULL).
program f08_session
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  type(c_ptr) :: baddr
  type(MPI_Session) :: s
  type(MPI_Group) :: g
  type(MPI_Comm) :: c
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  integer :: ierr, n, rank, np, total
  character(len=32) :: val
  character(len=4) :: short
  logical :: flag
  integer :: plen, got
  integer, parameter :: bsize = 1024
  integer :: ncalls, lastcode
  common /f08_session_eh/ ncalls, lastcode
  external :: on_session_error
  character(len=1) :: bbuf(bsize)

  ncalls = 0
  lastcode = 0
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_Session_get_num_psets(s, MPI_INFO_NULL, n, ierr)
  if (n < 3) stop 2
  plen = 0
  call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, plen, val, ierr)
  if (ierr /= MPI_SUCCESS .or. plen /= 11) stop 10
  plen = 32
  call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, plen, val, ierr)
  if (plen /= 11 .or. val /= "mpi://WORLD") stop 11
  plen = 32
  call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, plen, short, ierr)
  if (plen /= 10 .or. short /= "mpi:") stop 12
  call MPI_Session_get_pset_info(s, "mpi://WORLD", info, ierr)
  call MPI_Info_get(info, "mpi_size", 32, val, flag, ierr)
  if (.not. flag) stop 3
  plen = 0
  call MPI_Info_get_string(info, "mpi_size", plen, short, flag, ierr)
  if (.not. flag .or. plen /= len_trim(val)) stop 13
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
  call MPI_Session_attach_buffer(s, bbuf, bsize, ierr)
  if (ierr /= MPI_SUCCESS) stop 14
  call MPI_Bsend(rank, 1, MPI_INTEGER, mod(rank + 1, np), 3, c, ierr)
  if (ierr /= MPI_SUCCESS) stop 15
  call MPI_Recv(got, 1, MPI_INTEGER, mod(rank + np - 1, np), 3, c, MPI_STATUS_IGNORE, ierr)
  if (got /= mod(rank + np - 1, np)) stop 16
  call MPI_Session_flush_buffer(s, ierr)
  if (ierr /= MPI_SUCCESS) stop 17
  call MPI_Session_detach_buffer(s, baddr, plen, ierr)
  if (ierr /= MPI_SUCCESS .or. plen /= bsize) stop 18
  call MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) stop 19
  call MPI_Bsend(rank, 1, MPI_INTEGER, mod(rank + 1, np), 4, c, ierr)
  if (ierr /= MPI_SUCCESS) stop 20
  call MPI_Recv(got, 1, MPI_INTEGER, mod(rank + np - 1, np), 4, c, MPI_STATUS_IGNORE, ierr)
  if (got /= mod(rank + np - 1, np)) stop 21
  call MPI_Session_detach_buffer(s, baddr, plen, ierr)
  if (ierr /= MPI_SUCCESS .or. plen /= 0) stop 22
  call MPI_Session_get_errhandler(s, eh, ierr)
  if (eh /= MPI_ERRORS_RETURN) stop 7
  ! a session error handler written in Fortran, called with the session and the code
  call MPI_Session_create_errhandler(on_session_error, eh, ierr)
  if (ierr /= MPI_SUCCESS) stop 23
  call MPI_Session_set_errhandler(s, eh, ierr)
  call MPI_Session_call_errhandler(s, MPI_ERR_OTHER, ierr)
  if (ierr /= MPI_SUCCESS .or. ncalls /= 1 .or. lastcode /= MPI_ERR_OTHER) stop 24
  call MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Group_from_session_pset(s, "mpi://nowhere", g, ierr)
  if (ierr /= MPI_ERR_ARG) stop 8
  call MPI_Comm_free(c, ierr)
  call MPI_Session_finalize(s, ierr)
  if (ierr /= MPI_SUCCESS .or. s /= MPI_SESSION_NULL) stop 9
  if (rank == 0) print '(A)', 'OK'
end program f08_session

subroutine on_session_error(session, code)
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  integer :: code
  integer :: ncalls, lastcode
  common /f08_session_eh/ ncalls, lastcode
  if (session == MPI_SESSION_NULL) stop 25
  ncalls = ncalls + 1
  lastcode = code
end subroutine on_session_error
