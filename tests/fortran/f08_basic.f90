! ranks: 1 2 4
! The mpi_f08 module: TYPE(MPI_Comm) and friends, TYPE(MPI_Status), optional
! ierror, handle comparisons, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE,
! a derived type, communicator split, nonblocking requests.
program f08_basic
  use mpi_f08
  implicit none
  integer :: rank, np, ierr, i, cnt, sz, right, left, vals(4)
  type(MPI_Comm) :: half, dup
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: req(2)
  type(MPI_Datatype) :: pairt
  double precision :: d(3), pr(2)
  logical :: l

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror present')
  call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, 'handle ==, /=')

  d = rank
  call MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(all(d == np * (np - 1) / 2.0d0), 'allreduce in place')
  l = .true.
  call MPI_Allreduce(MPI_IN_PLACE, l, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(l, 'logical land')
  pr = (/ dble(mod(rank + 1, np)), dble(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, pr, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD)
  call check(pr(1) == np - 1 .and. nint(pr(2)) == np - 2 + merge(np, 0, np == 1), 'maxloc')

  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)
  call MPI_Irecv(vals, 4, MPI_INTEGER, left, 9, MPI_COMM_WORLD, req(1))
  call MPI_Isend((/ rank, rank, rank, rank /), 4, MPI_INTEGER, right, 9, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, sts)
  call MPI_F_sync_reg(vals)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
  call check(sts(1)%MPI_SOURCE == left .and. sts(1)%MPI_TAG == 9, 'status components')
  call MPI_Get_count(sts(1), MPI_INTEGER, cnt)
  call check(cnt == 4 .and. vals(4) == left, 'get_count')
  call check(req(1) == MPI_REQUEST_NULL, 'request nulled')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 3, i, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call check(i == left, 'sendrecv status_ignore')
  call MPI_Irecv(vals, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  call check(vals(1) == left, 'statuses_ignore')

  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pairt)
  call MPI_Type_commit(pairt)
  call MPI_Type_size(pairt, sz)
  call check(sz == 16, 'type size')
  pr = rank
  call MPI_Bcast(pr, 1, pairt, 0, MPI_COMM_WORLD)
  call check(all(pr == 0d0), 'bcast derived type')
  call MPI_Type_free(pairt)
  call check(pairt == MPI_DATATYPE_NULL, 'type_free')

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_dup(half, dup)
  call MPI_Comm_size(dup, sz)
  call check(sz == (np + 1 - mod(rank, 2)) / 2, 'split size')
  call MPI_Comm_free(dup)
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'comm_free')
  call MPI_Send(rank, 1, MPI_INTEGER, 0, 1, MPI_COMM_SELF)
  call MPI_Recv(i, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, st)
  call check(i == rank .and. st%MPI_SOURCE == 0 .and. st%MPI_TAG == 1, 'self recv')
  call MPI_Barrier(MPI_COMM_WORLD)
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
end program f08_basic
