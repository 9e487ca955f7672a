! ranks: 1 2
! The large-count overloads of mpi_f08 (MPI-4.1 19.2): a call whose counts are
! INTEGER(KIND=MPI_COUNT_KIND) (and displacements INTEGER(KIND=MPI_ADDRESS_KIND))
! resolves to the MPI_X_c specific, one with INTEGER counts to MPI_X; both in
! one program, on contiguous buffers and array sections, a status count past
! INT_MAX and an error class through IERROR. MPI_Op_create_c, whose
! two forms differ only in the procedure, is called by its own name.
module f08_lc_ops
  use mpi_f08
  implicit none
contains
  ! MPI_User_function_c: LEN is INTEGER(KIND=MPI_COUNT_KIND)
  subroutine lc_absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: x(:), y(:)
    integer(kind=MPI_COUNT_KIND) :: i
    call c_f_pointer(invec, x, [len])
    call c_f_pointer(inoutvec, y, [len])
    do i = 1, len
      y(i) = max(abs(x(i)), abs(y(i)))
    end do
    if (datatype /= MPI_INTEGER) y(1) = -999
  end subroutine lc_absmax
end module f08_lc_ops

program f08_large_count
  use mpi_f08
  use f08_lc_ops
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND, ak = MPI_ADDRESS_KIND
  integer :: rank, np, right, left, ierr, i, icnt
  integer(kind=ck) :: n, cnt
  integer(kind=ck), allocatable :: rcounts(:)
  integer(kind=ak), allocatable :: displs(:)
  integer, allocatable :: gath(:)
  integer :: a(8), b(8), m(4, 3), r6(6), v(4), w(4)
  double precision :: d(5)
  type(MPI_Status) :: st
  type(MPI_Request) :: req(2)
  type(MPI_Op) :: op

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  ! MPI_Send_c / MPI_Recv_c around the ring, MPI_Get_count_c and MPI_Get_count
  n = 8_ck
  a = [(100 * rank + i, i = 1, 8)]
  b = -1
  call MPI_Irecv(b, 8, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1))
  call MPI_Send(a, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Send with a COUNT_KIND count')
  call MPI_Wait(req(1), st)
  call check(all(b == [(100 * left + i, i = 1, 8)]), 'MPI_Send_c data')
  cnt = -1
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == 8_ck, 'MPI_Get_count with a COUNT_KIND count')
  icnt = -1
  call MPI_Get_count(st, MPI_INTEGER, icnt)
  call check(icnt == 8, 'MPI_Get_count with an INTEGER count')
  cnt = -1
  call MPI_Get_elements(st, MPI_INTEGER, cnt)
  call check(cnt == 8_ck, 'MPI_Get_elements with a COUNT_KIND count')

  ! a count past INT_MAX reaches Fortran whole through MPI_Get_count_c; the
  ! INTEGER form answers MPI_UNDEFINED
  call MPI_Status_set_elements_x(st, MPI_BYTE, 3000000005_ck)
  call MPI_Get_count(st, MPI_BYTE, cnt)
  call check(cnt == 3000000005_ck, 'MPI_Get_count_c past INT_MAX')
  call MPI_Get_elements(st, MPI_BYTE, cnt)
  call check(cnt == 3000000005_ck, 'MPI_Get_elements_c past INT_MAX')
  call MPI_Get_count(st, MPI_BYTE, icnt)
  call check(icnt == MPI_UNDEFINED, 'MPI_Get_count past INT_MAX')

  ! errors of the large-count forms come back through IERROR
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a, -1_ck, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i)
  call check(i == MPI_ERR_COUNT, 'MPI_Send_c with a negative count: MPI_ERR_COUNT')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  b = -1
  call MPI_Isend(a, 6_ck, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(1))
  call MPI_Recv(b, n, MPI_INTEGER, left, 2, MPI_COMM_WORLD, st)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  call check(all(b(1:6) == [(100 * left + i, i = 1, 6)]) .and. all(b(7:8) == -1), 'MPI_Isend_c / MPI_Recv_c')
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == 6_ck, 'MPI_Recv_c status count')

  ! array sections: a strided one and a 2-d one in nonblocking calls (a
  ! datatype laid over them) and a strided receive (packed, unpacked)
  b = -1
  call MPI_Isend(a(1:8:2), 4_ck, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(1))
  call MPI_Recv(b(2:8:2), 4_ck, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  call check(all(b(2:8:2) == [(100 * left + i, i = 1, 8, 2)]) .and. all(b(1:7:2) == -1), 'strided sections')
  m = reshape([(1000 * rank + i, i = 1, 12)], [4, 3])
  r6 = -1
  call MPI_Isend(m(2:3, :), 6_ck, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req(1))
  call MPI_Recv(r6, 6_ck, MPI_INTEGER, left, 4, MPI_COMM_WORLD, st)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  call check(all(r6 == 1000 * left + [2, 3, 6, 7, 10, 11]), '2-d section in MPI_Isend_c')
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == 6_ck, '2-d section count')

  ! collectives
  d = merge(3.5d0, 0d0, rank == 0)
  call MPI_Bcast(d, 5_ck, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call check(all(d == 3.5d0), 'MPI_Bcast_c')
  v = [rank, 1, -rank, 2]
  call MPI_Allreduce(v, w, 4_ck, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(w == [np * (np - 1) / 2, np, -np * (np - 1) / 2, 2 * np]), 'MPI_Allreduce_c')
  call MPI_Allreduce(MPI_IN_PLACE, v, 4_ck, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(v == [np - 1, 1, 0, 2]), 'MPI_Allreduce_c in place')
  v = [rank, 1, -rank, 2]
  call MPI_Allreduce(v, w, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(w == [np * (np - 1) / 2, np, -np * (np - 1) / 2, 2 * np]), 'MPI_Allreduce (INTEGER count)')

  ! rank r gives r + 1 values; the displacements leave one hole after each
  allocate(rcounts(np), displs(np), gath(np * (np + 3) / 2))
  rcounts = [(int(i, ck), i = 1, np)]
  displs(1) = 0
  do i = 2, np
    displs(i) = displs(i - 1) + rcounts(i - 1) + 1
  end do
  gath = -7
  a = rank
  call MPI_Allgatherv(a, int(rank + 1, ck), MPI_INTEGER, gath, rcounts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 1, np
    call check(all(gath(displs(i) + 1:displs(i) + rcounts(i)) == i - 1), 'MPI_Allgatherv_c data')
    call check(gath(displs(i) + rcounts(i) + 1) == -7, 'MPI_Allgatherv_c holes')
  end do

  ! a reduction whose LEN is INTEGER(KIND=MPI_COUNT_KIND)
  call MPI_Op_create_c(lc_absmax, .true., op)
  v = [-rank, rank, -2 * rank, 7]
  call MPI_Allreduce(v, w, 4_ck, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(w == [np - 1, np - 1, 2 * (np - 1), 7]), 'MPI_Op_create_c')
  call MPI_Op_free(op)

  call MPI_Barrier(MPI_COMM_WORLD)
  deallocate(rcounts, displs, gath)
  if (rank == 0) print '(a)', 'OK'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       print *, 'FAIL: ', what, ' on rank ', rank
       call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program f08_large_count
