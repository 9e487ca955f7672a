! A `use mpi` program built with Open MPI's mpif90: the procedures of its
! libmpi_mpifh.so.40 that have no C function behind them (MPI_AINT_ADD,
! MPI_AINT_DIFF, MPI_F_SYNC_REG) and the module's TYPE(C_PTR) specifics
! (MPI_ALLOC_MEM, MPI_WIN_ALLOCATE, MPI_WIN_ALLOCATE_SHARED,
! MPI_WIN_SHARED_QUERY give a C pointer), Open MPI's MPIX_ALLREDUCE_INIT, on
! railmpi's library (docs/abi.md). 2 ranks.
program ompi_fextra
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, rank, np, other, disp, i
  integer :: a(8)
  integer(kind=MPI_ADDRESS_KIND) :: base, addr, sz
  type(c_ptr) :: p, q
  integer, pointer :: mem(:), win_mem(:), peer_mem(:)
  integer :: win, swin, preq, base_sum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np /= 2) call fail('needs 2 ranks')
  other = 1 - rank

  ! address arithmetic
  call MPI_Get_address(a(1), base, ierr)
  call MPI_Get_address(a(5), addr, ierr)
  if (MPI_Aint_diff(addr, base) /= 16) call fail('MPI_Aint_diff')
  if (MPI_Aint_add(base, 16_MPI_ADDRESS_KIND) /= addr) call fail('MPI_Aint_add')
  a = 7
  call MPI_F_sync_reg(a)
  if (any(a /= 7)) call fail('MPI_F_SYNC_REG changed the buffer')

  ! MPI_ALLOC_MEM with a TYPE(C_PTR) base
  sz = 4 * 16
  call MPI_Alloc_mem(sz, MPI_INFO_NULL, p, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. c_associated(p)) call fail('MPI_Alloc_mem (C_PTR)')
  call c_f_pointer(p, mem, [16])
  mem = [(i, i = 1, 16)]
  if (sum(mem) /= 136) call fail('memory of MPI_Alloc_mem')
  call MPI_Free_mem(mem, ierr)

  ! MPI_WIN_ALLOCATE with a TYPE(C_PTR) base: each rank puts into the other
  call MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. c_associated(p)) call fail('MPI_Win_allocate (C_PTR)')
  call c_f_pointer(p, win_mem, [16])
  win_mem = -1
  call MPI_Win_fence(0, win, ierr)
  a = [(100 * rank + i, i = 1, 8)]
  call MPI_Put(a, 8, MPI_INTEGER, other, 4_MPI_ADDRESS_KIND, 8, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (win_mem(5) /= 100 * other + 1 .or. win_mem(12) /= 100 * other + 8 .or. win_mem(4) /= -1) &
       call fail('MPI_Put into MPI_Win_allocate memory')
  call MPI_Win_free(win, ierr)

  ! MPI_WIN_ALLOCATE_SHARED and MPI_WIN_SHARED_QUERY with TYPE(C_PTR)
  call MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, swin, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Win_allocate_shared (C_PTR)')
  call c_f_pointer(p, win_mem, [16])
  call MPI_Win_fence(0, swin, ierr)
  win_mem = [(1000 * rank + i, i = 1, 16)]
  call MPI_Win_fence(0, swin, ierr)
  call MPI_Win_shared_query(swin, other, sz, disp, q, ierr)
  if (ierr /= MPI_SUCCESS .or. sz /= 64 .or. disp /= 4 .or. .not. c_associated(q)) &
       call fail('MPI_Win_shared_query (C_PTR)')
  call c_f_pointer(q, peer_mem, [16])
  if (peer_mem(1) /= 1000 * other + 1 .or. peer_mem(16) /= 1000 * other + 16) &
       call fail('the peer''s shared memory')
  call MPI_Win_fence(0, swin, ierr)
  call MPI_Win_free(swin, ierr)

  ! Open MPI's persistent collectives (its extension: MPIX_*_INIT)
  do i = 1, 3
     if (i == 1) call MPIX_Allreduce_init(rank + 1, base_sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
          MPI_INFO_NULL, preq, ierr)
     if (ierr /= MPI_SUCCESS) call fail('MPIX_ALLREDUCE_INIT')
     call MPI_Start(preq, ierr)
     call MPI_Wait(preq, MPI_STATUS_IGNORE, ierr)
     if (base_sum /= 3 .or. preq == MPI_REQUEST_NULL) call fail('persistent allreduce')
  end do
  call MPI_Request_free(preq, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program ompi_fextra
