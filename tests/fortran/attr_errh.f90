! ranks: 1 2
! Callbacks written in Fortran: attribute copy and delete procedures (the
! MPI-2 keyval interface and MPI-1's MPI_KEYVAL_CREATE), the predefined
! MPI_COMM_DUP_FN, predefined attributes as values, a user error handler,
! a user reduction operation, a generalized request's callbacks.
module cb
  use mpi
  implicit none
  integer :: ncopy = 0, ndelete = 0, nerr = 0, lastcode = 0, lastcomm = 0
  integer :: nquery = 0, nfree = 0
  integer(kind=MPI_ADDRESS_KIND) :: lastval = 0, lastextra = 0
contains
  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    ncopy = ncopy + 1
    lastextra = extra
    valout = valin + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_fn
  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndelete = ndelete + 1
    lastval = val
    ierr = MPI_SUCCESS
  end subroutine delete_fn
  subroutine copy1_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, extra, valin, valout, ierr
    logical :: flag
    ncopy = ncopy + 1
    valout = valin * 2 + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy1_fn
  subroutine delete1_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, val, extra, ierr
    ndelete = ndelete + 1
    lastval = val
    ierr = MPI_SUCCESS
  end subroutine delete1_fn
  subroutine errh(comm, code)
    integer :: comm, code
    nerr = nerr + 1
    lastcode = code
    lastcomm = comm
  end subroutine errh
  subroutine absmax(invec, inoutvec, len, dtype)
    integer :: len, dtype, i
    integer :: invec(len), inoutvec(len)
    do i = 1, len
       if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
    end do
  end subroutine absmax
  subroutine gq_query(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    nquery = nquery + 1
    call MPI_Status_set_elements(status, MPI_INTEGER, int(extra), ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    status(MPI_SOURCE) = 5
    status(MPI_TAG) = 6
    ierr = MPI_SUCCESS
  end subroutine gq_query
  subroutine gq_free(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    nfree = nfree + 1
    ierr = MPI_SUCCESS
  end subroutine gq_free
  subroutine gq_cancel(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
  end subroutine gq_cancel
end module cb

program attr_errh
  use mpi
  use cb
  implicit none
  integer :: ierr, rank, np, key, key2, key1, dup, dup2, eh, cls, op, iv(2)
  integer :: ival, greq, st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  extra = 77
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'create_keyval')
  val = 1000
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(ncopy == 1 .and. lastextra == 77, 'copy callback called with extra_state')
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 1001, 'copied attribute value')
  call MPI_Comm_free(dup, ierr)
  call check(ndelete == 1 .and. lastval == 1001, 'delete callback on free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call check(ndelete == 2 .and. lastval == 1000, 'delete callback on delete_attr')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  call check(.not. flag, 'attribute gone')
  call MPI_Comm_free_keyval(key, ierr)
  call check(key == MPI_KEYVAL_INVALID, 'free_keyval')

  ! predefined callbacks
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key1, extra, ierr)
  val = 5
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key1, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  val = 0
  call MPI_Comm_get_attr(dup, key2, val, flag, ierr)
  call check(flag .and. val == 5, 'MPI_COMM_DUP_FN copies')
  call MPI_Comm_get_attr(dup, key1, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN does not copy')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key2, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key1, ierr)

  ! MPI-1 keyvals: INTEGER values and extra_state
  ncopy = 0
  ndelete = 0
  call MPI_Keyval_create(copy1_fn, delete1_fn, key, 3, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key, 20, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Attr_get(dup, key, ival, flag, ierr)
  call check(flag .and. ival == 43 .and. ncopy == 1, 'MPI-1 copy callback')
  call MPI_Comm_free(dup, ierr)
  call check(ndelete == 1 .and. lastval == 43, 'MPI-1 delete callback')
  call MPI_Attr_delete(MPI_COMM_WORLD, key, ierr)
  call MPI_Keyval_free(key, ierr)

  ! predefined attributes are values in Fortran
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB value')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call check(flag .and. ival == val, 'MPI_TAG_UB through MPI_ATTR_GET')

  ! an error handler written in Fortran
  call MPI_Comm_dup(MPI_COMM_WORLD, dup2, ierr)
  call MPI_Comm_create_errhandler(errh, eh, ierr)
  call MPI_Comm_set_errhandler(dup2, eh, ierr)
  call MPI_Send(iv, 1, MPI_INTEGER, np + 3, 0, dup2, ierr)
  call check(nerr == 1 .and. lastcomm == dup2, 'error handler called')
  call MPI_Error_class(lastcode, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'error handler got MPI_ERR_RANK')
  call MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER, ierr)
  call check(nerr == 2 .and. lastcode == MPI_ERR_OTHER, 'comm_call_errhandler')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(dup2, ierr)

  ! a user operation written in Fortran
  call MPI_Op_create(absmax, .true., op, ierr)
  iv = (/ rank, -rank /)
  call MPI_Allreduce(MPI_IN_PLACE, iv, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(iv(1) == np - 1 .and. iv(2) == -(np - 1), 'user op')
  call MPI_Op_free(op, ierr)

  ! a generalized request whose callbacks are Fortran
  extra = 3
  call MPI_Grequest_start(gq_query, gq_free, gq_cancel, extra, greq, ierr)
  call MPI_Test(greq, flag, st, ierr)
  call check(.not. flag, 'grequest pending')
  call MPI_Grequest_complete(greq, ierr)
  call MPI_Wait(greq, st, ierr)
  call check(nquery >= 1 .and. nfree == 1, 'grequest query and free callbacks')
  call check(st(MPI_SOURCE) == 5 .and. st(MPI_TAG) == 6, 'grequest status from the query callback')
  call MPI_Get_count(st, MPI_INTEGER, ival, ierr)
  call check(ival == 3, 'grequest count from extra_state')
  call check(greq == MPI_REQUEST_NULL, 'grequest freed')

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
end program attr_errh
