! MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from an mpif.h program built
! with Open MPI's mpif90, on railmpi (docs/abi.md): argument vectors as
! Fortran strings ended by a blank one, MPI_ARGV_NULL, MPI_ERRCODES_IGNORE,
! an array of infos. 2 ranks; the children are the same program.
program ompi_spawn
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, parent, inter, n, v, i, errs(1)
  character(len=256) :: exe, arg
  character(len=8) :: argv(3)
  character(len=256) :: cmds(2)
  character(len=8) :: argvs(2, 2)
  integer :: maxprocs(2), infos(2)

  call MPI_INIT(ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
     ! a child: its first argument says how it was started
     call GET_COMMAND_ARGUMENT(1, arg)
     v = 0
     if (arg == 'single') v = 100
     if (arg == 'multi') v = 200
     if (arg == ' ') v = 300
     if (COMMAND_ARGUMENT_COUNT() > 1) then
        call GET_COMMAND_ARGUMENT(2, arg)
        if (arg /= 'two') v = -1
     end if
     call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
     call MPI_SEND(v + rank, 1, MPI_INTEGER, 0, 9, parent, ierr)
     call MPI_COMM_DISCONNECT(parent, ierr)
     call MPI_FINALIZE(ierr)
     stop
  end if
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call GET_COMMAND_ARGUMENT(0, exe)

  argv(1) = 'single'
  argv(2) = 'two'
  argv(3) = ' '
  call MPI_COMM_SPAWN(exe, argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs, ierr)
  if (ierr /= MPI_SUCCESS .or. errs(1) /= MPI_SUCCESS) call fail('spawn')
  call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
  if (n /= 1) call fail('spawn: remote size')
  if (rank == 0) then
     call MPI_RECV(v, 1, MPI_INTEGER, 0, 9, inter, MPI_STATUS_IGNORE, ierr)
     if (v /= 100) call fail('spawn: the child''s arguments')
  end if
  call MPI_COMM_DISCONNECT(inter, ierr)

  call MPI_COMM_SPAWN(exe, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                      MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call fail('spawn with MPI_ARGV_NULL')
  if (rank == 0) then
     call MPI_RECV(v, 1, MPI_INTEGER, 0, 9, inter, MPI_STATUS_IGNORE, ierr)
     if (v /= 300) call fail('MPI_ARGV_NULL: the child has arguments')
  end if
  call MPI_COMM_DISCONNECT(inter, ierr)

  cmds = exe
  ! ARRAY_OF_ARGV(COUNT, *): the arguments of command i are row i
  argvs(1, 1) = 'multi'
  argvs(1, 2) = ' '
  argvs(2, 1) = 'multi'
  argvs(2, 2) = ' '
  maxprocs = 1
  infos = MPI_INFO_NULL
  call MPI_COMM_SPAWN_MULTIPLE(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                               MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call fail('spawn_multiple')
  call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
  if (n /= 2) call fail('spawn_multiple: remote size')
  if (rank == 0) then
     do i = 0, 1
        call MPI_RECV(v, 1, MPI_INTEGER, i, 9, inter, MPI_STATUS_IGNORE, ierr)
        if (v /= 200 + i) call fail('spawn_multiple: the children''s arguments')
     end do
  end if
  call MPI_COMM_DISCONNECT(inter, ierr)

  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', ' OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program ompi_spawn
