! A `use mpi_f08` program built with Open MPI's mpif90 (its gfortran module)
! running on railmpi's libmpi_usempif08.so.40 and libmpi.so.40
! (docs/abi.md). 2 ranks.
program ompi_f08
  use mpi_f08
  use mpi_f08_ext
  implicit none
  integer :: ierr, rank, np, other, i, cnt, iclass, res
  integer :: ibuf(10), jbuf(10), mat(4, 3), col(3)
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: req(2)
  type(MPI_Datatype) :: vtype
  type(MPI_Comm) :: dup
  type(MPI_Op) :: op
  integer :: key
  integer(kind=MPI_ADDRESS_KIND) :: val, key_addr
  logical :: flag
  double precision :: d(2)
  complex(kind=8) :: z(2, 2)
  character(len=3) :: ch

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (ierr /= MPI_SUCCESS .or. np /= 2) call fail('needs 2 ranks')
  other = 1 - rank

  ! point-to-point: TYPE(MPI_Status), MPI_STATUS_IGNORE
  if (rank == 0) then
     ibuf = [(i * 3, i = 1, 10)]
     call MPI_Send(ibuf, 7, MPI_INTEGER, 1, 42, MPI_COMM_WORLD)
     d = [1.5d0, -2.5d0]
     call MPI_Send(d, 2, MPI_DOUBLE_PRECISION, 1, 43, MPI_COMM_WORLD, ierr)
  else
     call MPI_Recv(jbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
     if (st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= 42) call fail('status source/tag')
     call MPI_Get_count(st, MPI_INTEGER, cnt)
     if (cnt /= 7 .or. jbuf(7) /= 21) call fail('count/data')
     call MPI_Recv(d, 2, MPI_DOUBLE_PRECISION, 0, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
     if (d(2) /= -2.5d0) call fail('recv with MPI_STATUS_IGNORE')
  end if
  call MPI_Irecv(jbuf, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, req(1))
  call MPI_Isend(rank + 100, 1, MPI_INTEGER, other, 5, MPI_COMM_WORLD, req(2))
  if (req(1) == MPI_REQUEST_NULL .or. req(1) == req(2)) call fail('requests')
  call MPI_Waitall(2, req, sts)
  if (req(1) /= MPI_REQUEST_NULL .or. req(2) /= MPI_REQUEST_NULL) call fail('requests not freed')
  if (jbuf(1) /= other + 100 .or. sts(1)%MPI_SOURCE /= other .or. sts(1)%MPI_TAG /= 5) &
       call fail('waitall statuses')
  call MPI_Irecv(jbuf, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, req(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, other, 6, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  if (jbuf(1) /= other) call fail('waitall with MPI_STATUSES_IGNORE')

  ! collectives, MPI_IN_PLACE, a rank-2 buffer
  mat = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, mat, 12, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(mat /= 3)) call fail('allreduce in place')
  call MPI_Allgather(rank * 2, 1, MPI_INTEGER, jbuf, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (jbuf(1) /= 0 .or. jbuf(2) /= 2) call fail('allgather')

  ! a derived datatype and a communicator
  call MPI_Type_vector(3, 1, 4, MPI_INTEGER, vtype)
  call MPI_Type_commit(vtype)
  mat = reshape([(i, i = 1, 12)], [4, 3])
  if (rank == 0) then
     call MPI_Send(mat(2, 1), 1, vtype, 1, 7, MPI_COMM_WORLD)
  else
     call MPI_Recv(col, 3, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
     if (any(col /= [2, 6, 10])) call fail('vector data')
  end if
  call MPI_Type_free(vtype)
  if (vtype /= MPI_DATATYPE_NULL) call fail('type_free')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, res)
  if (res /= MPI_CONGRUENT .or. dup == MPI_COMM_WORLD) call fail('dup')
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call fail('comm_free')

  ! procedures written in Fortran: a reduction, the module's MPI_COMM_DUP_FN
  call MPI_Op_create(mysum, .true., op)
  call MPI_Allreduce(rank + 1, res, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (res /= 13) call fail('user reduction')
  call MPI_Op_free(op)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 4242_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, key, val, flag)
  if (.not. flag .or. val /= 4242) call fail('MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key)
  call MPI_Comm_free_keyval(key)

  ! errors as Open MPI's classes, with and without IERROR
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(ibuf, 1, MPI_INTEGER, np + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, iclass)
  if (iclass /= MPI_ERR_RANK) call fail('class of a bad rank')
  call MPI_Send(ibuf, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD)

  ! MPI_SIZEOF: one specific per type and shape
  call MPI_Sizeof(d, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= 8) call fail('sizeof double precision')
  call MPI_Sizeof(z, cnt)
  if (cnt /= 16) call fail('sizeof complex(8) array')
  call MPI_Sizeof(mat, cnt)
  if (cnt /= 4) call fail('sizeof integer matrix')
  call MPI_Sizeof(ch, cnt)
  if (cnt /= 1) call fail('sizeof character')
  call MPI_Sizeof(flag, cnt)
  if (cnt /= 4) call fail('sizeof logical')

  ! address arithmetic (C macros in Open MPI's mpi.h) and MPI_F_SYNC_REG
  call MPI_Get_address(ibuf(1), val)
  if (MPI_Aint_diff(MPI_Aint_add(val, 12_MPI_ADDRESS_KIND), val) /= 12) call fail('MPI_Aint_add/diff')
  call MPI_Get_address(ibuf(4), key_addr)
  if (MPI_Aint_diff(key_addr, val) /= 12) call fail('MPI_Aint_diff of two elements')
  call MPI_F_sync_reg(ibuf)

  ! Open MPI's persistent collectives (its mpi_f08_ext module)
  call MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req(1))
  call MPIX_Bcast_init(col, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req(2), ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPIX_Bcast_init')
  do i = 1, 2
     col = -1
     if (rank == 0) col = [i, 2 * i, 3 * i]
     call MPI_Startall(2, req)
     call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
     if (any(col /= [i, 2 * i, 3 * i])) call fail('persistent bcast')
  end do
  call MPI_Request_free(req(1))
  call MPI_Request_free(req(2))

  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  if (rank == 0) print '(a)', ' OK'
contains
  ! 10 + a + b: the operation really is this one, and sees MPI_INTEGER
  subroutine mysum(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype /= MPI_INTEGER) then
       b = -1
    else
       b = a + b + 10
    end if
  end subroutine mysum

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program ompi_f08
