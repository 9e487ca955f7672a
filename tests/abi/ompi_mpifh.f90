! An mpif.h program built with Open MPI's mpif90 (its mpif.h: its handle
! integers, MPI_STATUS_SIZE 6, its sentinels and error classes) running on
! railmpi's libmpi_mpifh.so.40 and libmpi.so.40 (docs/abi.md). 2 ranks.
program ompi_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, i, cnt, iclass, rlen, other
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), req(2)
  integer :: ibuf(10), jbuf(10), mat(4, 3), col(3), vtype, stype, dup, half, grp, dup2, dup3
  integer :: types(2), blens(2), res, pair(2), best(2), cart, dims(1)
  logical :: periods(1)
  integer :: fh
  integer(kind=MPI_OFFSET_KIND) :: disp0
  character(len=64) :: fname
  external :: int_extent
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), lb, extent, tagub
  double precision :: d(2)
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  if (np /= 2) call fail('needs 2 ranks')
  other = 1 - rank
  if (MPI_STATUS_SIZE /= 6) call fail('not Open MPI''s mpif.h')

  ! point-to-point: statuses as Open MPI lays them out, MPI_STATUS_IGNORE
  if (rank == 0) then
     ibuf = [(i * 3, i = 1, 10)]
     call MPI_SEND(ibuf, 7, MPI_INTEGER, 1, 42, MPI_COMM_WORLD, ierr)
     d = [1.5d0, -2.5d0]
     call MPI_SEND(d, 2, MPI_DOUBLE_PRECISION, 1, 43, MPI_COMM_WORLD, ierr)
  else
     call MPI_RECV(jbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
     if (ierr /= MPI_SUCCESS) call fail('recv')
     if (st(MPI_SOURCE) /= 0 .or. st(MPI_TAG) /= 42) call fail('status source/tag')
     call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
     if (cnt /= 7 .or. jbuf(7) /= 21) call fail('count/data')
     d = 0
     call MPI_RECV(d, 2, MPI_DOUBLE_PRECISION, 0, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     if (d(2) /= -2.5d0) call fail('recv with MPI_STATUS_IGNORE')
  end if
  ! nonblocking: requests become MPI_REQUEST_NULL, statuses per request
  call MPI_IRECV(jbuf, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, req(1), ierr)
  call MPI_ISEND(rank + 100, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, req(2), ierr)
  if (req(1) == MPI_REQUEST_NULL .or. req(1) == req(2)) call fail('request integers')
  call MPI_WAITALL(2, req, sts, ierr)
  if (ierr /= MPI_SUCCESS) call fail('waitall')
  if (req(1) /= MPI_REQUEST_NULL .or. req(2) /= MPI_REQUEST_NULL) call fail('requests not freed')
  if (jbuf(1) /= other + 100 .or. sts(MPI_SOURCE, 1) /= other .or. sts(MPI_TAG, 1) /= 5) &
       call fail('waitall statuses')
  call MPI_IRECV(jbuf, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, req(1), ierr)
  call MPI_ISEND(rank, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, req(2), ierr)
  call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
  if (jbuf(1) /= other) call fail('waitall with MPI_STATUSES_IGNORE')

  ! collectives, MPI_IN_PLACE
  ibuf(1) = rank + 1
  call MPI_ALLREDUCE(ibuf, jbuf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (jbuf(1) /= 3) call fail('allreduce')
  ibuf(1:2) = [rank + 1, 10 * rank]
  call MPI_ALLREDUCE(MPI_IN_PLACE, ibuf, 2, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (ibuf(1) /= 2 .or. ibuf(2) /= 10) call fail('allreduce in place')
  ibuf(1) = rank + 5
  if (rank == 0) then
     call MPI_REDUCE(MPI_IN_PLACE, ibuf, 1, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
     if (ibuf(1) /= 30) call fail('reduce in place')
  else
     call MPI_REDUCE(ibuf, jbuf, 1, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
  end if
  ibuf(1) = 77 * (1 - rank)
  call MPI_BCAST(ibuf, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (ibuf(1) /= 77) call fail('bcast')
  call MPI_ALLGATHER(rank * 2, 1, MPI_INTEGER, jbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (jbuf(1) /= 0 .or. jbuf(2) /= 2) call fail('allgather')
  pair = [10 - rank, rank]
  call MPI_ALLREDUCE(pair, best, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  if (best(1) /= 9 .or. best(2) /= 1) call fail('minloc on MPI_2INTEGER')

  ! a neighbour alltoallw: its type arrays have one entry per neighbour
  dims = 2
  periods = .true.
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  types = MPI_INTEGER
  blens = 1
  disps = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
  ibuf(1:2) = [rank * 10, rank * 10 + 1]
  jbuf = -1
  call MPI_NEIGHBOR_ALLTOALLW(ibuf, blens, disps, types, jbuf, blens, disps, types, cart, ierr)
  if (ierr /= MPI_SUCCESS .or. jbuf(1) + jbuf(2) /= 20 * other + 1) call fail('neighbor_alltoallw')
  call MPI_COMM_FREE(cart, ierr)

  ! derived datatypes: a matrix row (strided), a struct from a handle array
  call MPI_TYPE_VECTOR(3, 1, 4, MPI_INTEGER, vtype, ierr)
  call MPI_TYPE_COMMIT(vtype, ierr)
  if (vtype == MPI_DATATYPE_NULL .or. vtype == MPI_INTEGER) call fail('vector handle')
  mat = reshape([(i, i = 1, 12)], [4, 3])
  if (rank == 0) then
     call MPI_SEND(mat(2, 1), 1, vtype, 1, 7, MPI_COMM_WORLD, ierr)
  else
     call MPI_RECV(col, 3, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st, ierr)
     if (any(col /= [2, 6, 10])) call fail('vector data')
  end if
  call MPI_TYPE_GET_EXTENT(vtype, lb, extent, ierr)
  if (lb /= 0 .or. extent /= 9 * 4) call fail('vector extent')
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  blens = [1, 2]
  disps = [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND]
  call MPI_TYPE_CREATE_STRUCT(2, blens, disps, types, stype, ierr)
  call MPI_TYPE_SIZE(stype, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= 20) call fail('struct size')
  call MPI_TYPE_FREE(stype, ierr)
  if (stype /= MPI_DATATYPE_NULL) call fail('type_free')

  ! communicators and groups, and the same handles seen from C
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_COMPARE(dup, MPI_COMM_WORLD, res, ierr)
  if (res /= MPI_CONGRUENT) call fail('dup compare')
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, rank, 0, half, ierr)
  call MPI_COMM_SIZE(half, cnt, ierr)
  if (cnt /= 1 .or. half == dup) call fail('split')
  call MPI_COMM_GROUP(dup, grp, ierr)
  call MPI_GROUP_SIZE(grp, cnt, ierr)
  if (cnt /= 2) call fail('group size')
  call check_c(MPI_COMM_WORLD, dup, MPI_INTEGER, vtype, MPI_SUM, res)
  if (res /= 0) call fail('C disagrees with Fortran handles')
  ! (an error on no communicator goes to MPI_COMM_SELF's handler)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call check_ignore(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, res)
  if (res /= 0) call fail('MPI_F_STATUS(ES)_IGNORE')
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, ierr)
  ! MPI_COMM_IDUP: the communicators come when the requests complete
  call MPI_COMM_IDUP(MPI_COMM_WORLD, dup2, req(1), ierr)
  call MPI_COMM_IDUP(dup, dup3, req(2), ierr)
  if (ierr /= MPI_SUCCESS .or. dup2 == dup3) call fail('comm_idup')
  call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_COMM_COMPARE(dup3, MPI_COMM_WORLD, res, ierr)
  if (res /= MPI_CONGRUENT) call fail('idup compare')
  call MPI_ALLREDUCE(1, cnt, 1, MPI_INTEGER, MPI_SUM, dup2, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= 2) call fail('allreduce on an idup communicator')
  call check_c(MPI_COMM_WORLD, dup2, MPI_INTEGER, vtype, MPI_SUM, res)
  if (res /= 0) call fail('C disagrees on an idup communicator')
  call MPI_COMM_FREE(dup2, ierr)
  call MPI_COMM_FREE(dup3, ierr)
  if (dup2 /= MPI_COMM_NULL .or. ierr /= MPI_SUCCESS) call fail('free idup communicators')
  call MPI_GROUP_FREE(grp, ierr)
  call MPI_COMM_FREE(half, ierr)
  call MPI_COMM_FREE(dup, ierr)
  if (dup /= MPI_COMM_NULL .or. half /= MPI_COMM_NULL) call fail('comm_free')
  call MPI_TYPE_FREE(vtype, ierr)

  ! attributes: Fortran gets the value
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  if (.not. flag .or. tagub < 32767) call fail('MPI_TAG_UB')

  ! errors come back as Open MPI's classes
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(ibuf, 1, MPI_INTEGER, np + 5, 0, MPI_COMM_WORLD, ierr)
  if (ierr == MPI_SUCCESS) call fail('send to a bad rank succeeded')
  call MPI_ERROR_CLASS(ierr, iclass, ierr)
  if (iclass /= MPI_ERR_RANK) call fail('class of a bad rank')
  call MPI_SEND(ibuf, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(ierr, iclass, i)
  if (iclass /= MPI_ERR_TAG) call fail('class of a bad tag')
  call MPI_SEND(ibuf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(ierr, iclass, i)
  if (iclass /= MPI_ERR_TYPE) call fail('class of MPI_DATATYPE_NULL')
  call MPI_ERROR_STRING(ierr, msg, rlen, i)
  if (i /= MPI_SUCCESS .or. rlen <= 0 .or. rlen > MPI_MAX_ERROR_STRING) call fail('error_string')

  ! a data representation with MPI_CONVERSION_FN_NULL: the file holds the
  ! bytes as they are; the extent function is Fortran
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_REGISTER_DATAREP('ompinull', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            int_extent, 0_MPI_ADDRESS_KIND, ierr)
  if (ierr /= MPI_SUCCESS) call fail('register_datarep')
  write (fname, '(a,i0,a)') 'ompi_mpifh_', rank, '.dat'
  call MPI_FILE_OPEN(MPI_COMM_SELF, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS .or. fh == MPI_FILE_NULL) call fail('file_open')
  disp0 = 0
  call MPI_FILE_SET_VIEW(fh, disp0, MPI_INTEGER, MPI_INTEGER, 'ompinull', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) call fail('set_view with the representation')
  ibuf(1:3) = [7, 8, 9 + rank]
  call MPI_FILE_WRITE_AT(fh, disp0, ibuf, 3, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  jbuf = 0
  call MPI_FILE_READ_AT(fh, disp0, jbuf, 3, MPI_INTEGER, st, ierr)
  call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
  if (cnt /= 3 .or. any(jbuf(1:3) /= [7, 8, 9 + rank])) call fail('file data')
  call MPI_FILE_CLOSE(fh, ierr)
  if (fh /= MPI_FILE_NULL) call fail('file_close')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', ' OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program ompi_mpifh

subroutine int_extent(datatype, extent, extra_state, ierror)
  implicit none
  include 'mpif.h'
  integer :: datatype, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
  extent = 4
  if (datatype /= MPI_INTEGER) extent = -1
  ierror = MPI_SUCCESS
end subroutine int_extent
