! ranks: 2 3 4
! mpi_f08 with array sections, MPI_IN_PLACE, status fields, handle operators;
! also built with MPICH's mpif90 and its mpi_f08 (tests/fortran/mpich_fortran.sh)
program f08_sections
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr
  implicit none
  character, target :: bsbuf(4096)
  type(c_ptr) :: bsaddr
  type(MPI_Datatype) :: abstype
  integer :: v2(2)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2)
  type(MPI_Comm) :: dup
  type(MPI_Status) :: st
  type(MPI_Request) :: req(2)
  type(MPI_Datatype) :: vec
  integer :: rank, size, i, n, fails, res
  integer :: a(20), b(20), m(4,6)
  double precision :: d(10), e(10)
  logical :: flag
  fails = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (dup == MPI_COMM_WORLD .or. .not. (dup /= MPI_COMM_WORLD)) call bad('comm operators')
  if (MPI_COMM_WORLD /= MPI_COMM_WORLD) call bad('comm /= itself')
  if (MPI_DOUBLE_PRECISION == MPI_INTEGER) call bad('datatype ==')
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, res)
  if (res /= MPI_CONGRUENT) call bad('comm_compare')
  ! contiguous and strided sections, point-to-point
  if (rank == 0) then
    a = [(i, i = 1, 20)]
    call MPI_Send(a, 20, MPI_INTEGER, 1, 7, dup)
    call MPI_Send(a(1:20:2), 10, MPI_INTEGER, 1, 8, dup)
    do i = 1, 6
      m(:, i) = [(100*i + n, n = 1, 4)]
    end do
    call MPI_Send(m(2, :), 6, MPI_INTEGER, 1, 9, dup)
    call MPI_Send(m(2:3, 2:5), 8, MPI_INTEGER, 1, 10, dup, ierror=res)
    if (res /= MPI_SUCCESS) call bad('ierror')
  else if (rank == 1) then
    b = -1
    call MPI_Recv(b, 20, MPI_INTEGER, 0, 7, dup, st)
    if (any(b /= [(i, i = 1, 20)])) call bad('contiguous recv')
    if (st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= 7) call bad('status fields')
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (n /= 20) call bad('get_count')
    b = -1
    call MPI_Recv(b(2:20:2), 10, MPI_INTEGER, 0, 8, dup, MPI_STATUS_IGNORE)
    do i = 1, 20
      if (mod(i, 2) == 0 .and. b(i) /= i - 1) call bad('strided recv')
      if (mod(i, 2) == 1 .and. b(i) /= -1) call bad('strided recv overwrote')
    end do
    m = 0
    call MPI_Recv(m(3, :), 6, MPI_INTEGER, 0, 9, dup, MPI_STATUS_IGNORE)
    do i = 1, 6
      if (m(3, i) /= 100*i + 2 .or. m(1, i) /= 0) call bad('row recv')
    end do
    m = 0
    call MPI_Recv(m(1:2, 1:4), 8, MPI_INTEGER, 0, 10, dup, st)
    if (any(m(1:2, 1:4) /= reshape([202,203,302,303,402,403,502,503], [2,4]))) call bad('2-d section recv')
    if (any(m(3:4, :) /= 0)) call bad('2-d section overwrote')
  end if
  ! nonblocking, waitall with MPI_STATUSES_IGNORE
  if (size >= 2 .and. rank < 2) then
    d = rank
    e = -1
    call MPI_Irecv(e, 10, MPI_DOUBLE_PRECISION, 1 - rank, 3, dup, req(1))
    call MPI_Isend(d, 10, MPI_DOUBLE_PRECISION, 1 - rank, 3, dup, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    if (any(e /= 1 - rank)) call bad('isend/irecv')
    if (req(1) /= MPI_REQUEST_NULL) call bad('request not null')
  end if
  ! nonblocking calls on array sections, where the module takes them as
  ! they are (MPICH's mpi_f08: MPI_SUBARRAYS_SUPPORTED)
  if (MPI_SUBARRAYS_SUPPORTED .and. size >= 2 .and. rank < 2) then
    a = [(100*rank + i, i = 1, 20)]
    b = -1
    call MPI_Irecv(b(20:1:-2), 10, MPI_INTEGER, 1 - rank, 4, dup, req(1))
    call MPI_Isend(a(1:20:2), 10, MPI_INTEGER, 1 - rank, 4, dup, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    do i = 1, 10
      if (b(22 - 2*i) /= 100*(1 - rank) + 2*i - 1 .or. b(21 - 2*i) /= -1) call bad('nonblocking sections')
    end do
    ! persistent requests keep the section's datatype past the call
    b = -1
    call MPI_Recv_init(b(1:20:2), 10, MPI_INTEGER, 1 - rank, 6, dup, req(1))
    call MPI_Send_init(a(2:20:2), 10, MPI_INTEGER, 1 - rank, 6, dup, req(2))
    do n = 1, 2
      call MPI_Startall(2, req)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    end do
    do i = 1, 10
      if (b(2*i - 1) /= 100*(1 - rank) + 2*i .or. b(2*i) /= -1) call bad('persistent sections')
    end do
    call MPI_Request_free(req(1))
    call MPI_Request_free(req(2))
    ! fewer elements than the section has
    b = -1
    call MPI_Irecv(b(1:10:2), 4, MPI_INTEGER, 1 - rank, 5, dup, req(1))
    call MPI_Isend(a(1:20:3), 4, MPI_INTEGER, 1 - rank, 5, dup, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    if (any(b(1:7:2) /= 100*(1 - rank) + [1, 4, 7, 10]) .or. any(b(2:10:2) /= -1) .or. b(9) /= -1) &
      call bad('nonblocking sections, fewer elements')
    ! a 2-d section with fewer elements than it has cannot be described
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
    call MPI_Isend(m(1:2, 1:4), 3, MPI_INTEGER, 1 - rank, 5, dup, req(1), ierror=res)
    call MPI_Error_class(res, n)
    if (n /= MPI_ERR_BUFFER) call bad('section refused with MPI_ERR_BUFFER')
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL)
  end if
  ! a nonblocking collective on sections (counts per process)
  if (MPI_SUBARRAYS_SUPPORTED) then
    a = [(1000*rank + i, i = 1, 20)]
    b = -1
    call MPI_Igather(a(1:6:3), 2, MPI_INTEGER, b(1:4*size:2), 2, MPI_INTEGER, 0, dup, req(1))
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    if (rank == 0) then
      do i = 0, size - 1
        do n = 1, 2
          if (b(4*i + 2*n - 1) /= 1000*i + 3*n - 2 .or. b(4*i + 2*n) /= -1) call bad('igather sections')
        end do
      end do
    end if
  end if
  ! nonblocking reductions on sections of one stride (one DATATYPE for both)
  if (MPI_SUBARRAYS_SUPPORTED) then
    a = [(rank + i, i = 1, 20)]
    b = -1
    call MPI_Iallreduce(a(1:10:2), b(1:10:2), 5, MPI_INTEGER, MPI_SUM, dup, req(1))
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    do i = 1, 5
      if (b(2*i - 1) /= size*(2*i - 1) + size*(size - 1)/2 .or. b(2*i) /= -1) call bad('iallreduce sections')
    end do
    call MPI_Iallreduce(MPI_IN_PLACE, b(1:10:2), 5, MPI_INTEGER, MPI_MAX, dup, req(1))
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    if (b(9) /= size*9 + size*(size - 1)/2 .or. b(10) /= -1) call bad('iallreduce in place section')
  end if
  ! collectives: MPI_IN_PLACE, strided buffer
  a = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, a, 20, MPI_INTEGER, MPI_SUM, dup)
  if (any(a /= size*(size+1)/2)) call bad('allreduce in place')
  b = 0
  a = rank
  call MPI_Allreduce(a(1:20:4), b(1:10:2), 5, MPI_INTEGER, MPI_MAX, dup)
  if (any(b(1:10:2) /= size - 1) .or. any(b(2:10:2) /= 0)) call bad('allreduce strided')
  if (rank == 0) a(1:5) = [5, 4, 3, 2, 1]
  call MPI_Bcast(a(1:5), 5, MPI_INTEGER, 0, dup)
  if (any(a(1:5) /= [5, 4, 3, 2, 1])) call bad('bcast')
  b = -1
  call MPI_Gather(rank, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 0, dup)
  if (rank == 0 .and. any(b(1:size) /= [(i, i = 0, size - 1)])) call bad('gather')
  ! derived type
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  a = [(i, i = 1, 20)]
  if (rank /= 0) a = 0
  call MPI_Bcast(a, 1, vec, 0, dup)
  if (any(a(1:5:2) /= [1, 3, 5])) call bad('bcast vector type')
  if (rank /= 0 .and. any(a(2:6:2) /= 0)) call bad('vector type overwrote')
  call MPI_Type_free(vec)
  if (vec /= MPI_DATATYPE_NULL) call bad('type_free')
  ! a struct type of absolute addresses (MPI_GET_ADDRESS of array elements),
  ! broadcast from MPI_BOTTOM
  v2 = 0
  d = 0
  if (rank == 0) then
    v2 = [7, 8]
    d(3) = 2.5d0
  end if
  call MPI_Get_address(v2(1), disp(1))
  call MPI_Get_address(d(3), disp(2))
  call MPI_Type_create_struct(2, [2, 1], disp, [MPI_INTEGER, MPI_DOUBLE_PRECISION], abstype)
  call MPI_Type_commit(abstype)
  call MPI_Bcast(MPI_BOTTOM, 1, abstype, 0, dup)
  call MPI_F_sync_reg(v2)
  call MPI_F_sync_reg(d)
  if (any(v2 /= [7, 8]) .or. d(3) /= 2.5d0 .or. d(2) /= 0 .or. d(4) /= 0) call bad('MPI_BOTTOM struct')
  call MPI_Type_free(abstype)
  ! MPI_SIZEOF, MPI_BUFFER_ATTACH / DETACH (TYPE(C_PTR) address back)
  call MPI_Sizeof(d(1), n)
  call MPI_Sizeof(a, res)
  if (n /= 8 .or. res /= 4) call bad('sizeof')
  a = [(i, i = 1, 20)]
  call MPI_Buffer_attach(bsbuf, 4096)
  if (rank == 0) call MPI_Bsend(a(1:20:4), 5, MPI_INTEGER, size - 1, 11, dup)
  if (rank == size - 1) then
    call MPI_Recv(b, 5, MPI_INTEGER, 0, 11, dup, MPI_STATUS_IGNORE)
    if (any(b(1:5) /= a(1:20:4))) call bad('bsend section')
  end if
  call MPI_Buffer_detach(bsaddr, n)
  if (n /= 4096 .or. transfer(bsaddr, 0_8) /= loc(bsbuf)) call bad('buffer_detach')
  call MPI_Barrier(dup)
  call MPI_Comm_free(dup)
  call MPI_Allreduce(fails, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Initialized(flag)
  if (rank == 0 .and. n == 0 .and. flag) print '(a)', 'OK'
  call MPI_Finalize()
contains
  subroutine bad(what)
    character(*) :: what
    print *, 'FAIL:', rank, what
    fails = fails + 1
  end subroutine
end program
