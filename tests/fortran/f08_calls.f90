! ranks: 2 3 4
! mpi_f08: callbacks written in Fortran (reduction, error handler, attribute
! copy/delete), predefined callbacks, strings, logical and index results,
! MPI_UNWEIGHTED;
! also built with MPICH's mpif90 and its mpi_f08 (tests/fortran/mpich_fortran.sh)
module f08_calls_cb
  use mpi_f08
  implicit none
  integer :: errs_seen = 0, deleted = 0
contains
  subroutine absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: x(:), y(:)
    integer :: i
    call c_f_pointer(invec, x, [len])
    call c_f_pointer(inoutvec, y, [len])
    do i = 1, len
      y(i) = max(abs(x(i)), abs(y(i)))
    end do
  end subroutine
  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    errs_seen = errs_seen + 1
  end subroutine
  subroutine copy_fn(oldcomm, keyval, extra, val_in, val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    val_out = val_in + extra
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine
  subroutine delete_fn(comm, keyval, val, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = deleted + 1
    ierror = MPI_SUCCESS
  end subroutine
end module

program f08_calls
  use mpi_f08
  use f08_calls_cb
  implicit none
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: dup, dup2, split
  type(MPI_Request) :: req(3)
  type(MPI_Status) :: st(3)
  integer :: rank, size, i, n, fails, key, key2, idx, res, v(4), w(4), res_len
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  double precision :: t0
  fails = 0
  call MPI_Init()
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  ! a reduction written in Fortran with the f08 interface
  call MPI_Op_create(absmax, .true., op)
  v = [-rank, rank, -2*rank, 7]
  call MPI_Allreduce(v, w, 4, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (any(w /= [size - 1, size - 1, 2*(size - 1), 7])) call bad('user op')
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) call bad('op_free')
  ! an error handler written in Fortran
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(v, 1, MPI_INTEGER, size + 5, 0, dup, ierror=res)
  if (errs_seen /= 1 .or. res == MPI_SUCCESS) call bad('error handler')
  call MPI_Error_class(res, n)
  if (n /= MPI_ERR_RANK) call bad('error class')
  call MPI_Errhandler_free(eh)
  ! attributes with Fortran copy/delete procedures, and the predefined ones
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, 5_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key2, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, key, 100_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, key2, 200_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, key, val, flag)
  if (.not. flag .or. val /= 105) call bad('copy_fn')
  call MPI_Comm_get_attr(dup2, key2, val, flag)
  if (flag) call bad('MPI_COMM_NULL_COPY_FN')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  if (.not. flag .or. val < 32767) call bad('MPI_TAG_UB')
  call MPI_Comm_free(dup2)
  if (deleted /= 1) call bad('delete_fn')
  ! strings
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, name, res_len)
  if (name /= 'f08 dup' .or. res_len /= 7) call bad('comm name')
  call MPI_Get_processor_name(host, res_len)
  if (res_len <= 0) call bad('processor name')
  ! split, waitany's Fortran index, testall's logical
  call MPI_Comm_split(dup, mod(rank, 2), -rank, split)
  call MPI_Comm_size(split, n)
  if (n /= (size + 1 - mod(rank, 2)) / 2) call bad('split size')
  call MPI_Comm_rank(split, i)
  if (i /= (size - 1 - rank) / 2) call bad('split key order')
  req = MPI_REQUEST_NULL
  call MPI_Irecv(w, 1, MPI_INTEGER, mod(rank + 1, size), 9, dup, req(2))
  call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + size - 1, size), 9, dup, req(3))
  call MPI_Waitany(3, req, idx, st(1))
  if (idx /= 2 .and. idx /= 3) call bad('waitany index')
  call MPI_Testall(3, req, flag, st)
  do while (.not. flag)
    call MPI_Testall(3, req, flag, st)
  end do
  if (w(1) /= mod(rank + 1, size)) call bad('waitany data')
  call MPI_Iprobe(MPI_ANY_SOURCE, 77, dup, flag, MPI_STATUS_IGNORE)
  if (flag) call bad('iprobe')
  if (MPI_Wtime() < t0) call bad('wtime')
  ! MPI_UNWEIGHTED (a variable of MPICH's mpi_f08_link_constants)
  v(1) = mod(rank + size - 1, size)
  v(2) = mod(rank + 1, size)
  call MPI_Dist_graph_create_adjacent(dup, 1, v(1:1), MPI_UNWEIGHTED, 1, v(2:2), MPI_UNWEIGHTED, &
       MPI_INFO_NULL, .false., dup2)
  call MPI_Dist_graph_neighbors_count(dup2, i, n, flag)
  if (i /= 1 .or. n /= 1 .or. flag) call bad('dist graph counts')
  w = -1
  call MPI_Dist_graph_neighbors(dup2, 1, w(1:1), MPI_UNWEIGHTED, 1, w(2:2), MPI_UNWEIGHTED)
  if (any(w(1:2) /= v(1:2))) call bad('dist graph neighbours')
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(split)
  call MPI_Comm_delete_attr(dup, key)
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(key2)
  call MPI_Comm_free(dup)
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. fails == 0) print '(a)', 'OK'
  call MPI_Finalize()
contains
  subroutine bad(what)
    character(*) :: what
    print *, 'FAIL:', rank, what
    fails = fails + 1
  end subroutine
end program
