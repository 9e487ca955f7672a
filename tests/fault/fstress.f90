! The fault tests' traffic mix (tests/cluster/stress.c) written in Fortran
! with the `mpi` module: every rank sends checked messages of random sizes
! (0 to 8 MiB of INTEGER(8)) to random peers with random tags, Isend and
! Issend; receivers take them with MPI_ANY_SOURCE / MPI_ANY_TAG and check
! each one exactly once and in order (a sequence number per sender and
! receiver, compared at the end with what was sent; nothing may be left).
! Allreduce and Bcast in between.
!   fstress SECONDSs [seed]
! Rank 0's clock ends the run; it prints "progress UNIXTIME round R" per
! round and "OK: R rounds, N messages (B bytes) verified exactly once", the
! lines tests/fault/lib.sh reads.
module fstress_util
  use, intrinsic :: iso_c_binding, only: c_long, c_int, c_ptr, c_null_ptr
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: hdr = 4, maxwords = 1048576
  type, bind(c) :: timeval
     integer(c_long) :: sec, usec
  end type timeval
  interface
     integer(c_int) function gettimeofday(tv, tz) bind(c, name='gettimeofday')
       import :: timeval, c_ptr, c_int
       type(timeval) :: tv
       type(c_ptr), value :: tz
     end function gettimeofday
  end interface
  type msgbuf
     integer(i8), allocatable :: w(:)
  end type msgbuf
contains
  ! xorshift: shifts and xors only, so no signed overflow; never negative
  pure integer(i8) function mix(x0)
    integer(i8), intent(in) :: x0
    integer(i8) :: x
    x = ieor(x0, 88172645463325252_i8)
    x = ieor(x, ishft(x, 13))
    x = ieor(x, ishft(x, -7))
    x = ieor(x, ishft(x, 17))
    x = ieor(x, ishft(x, -31))
    mix = iand(x, huge(x) / 2)
  end function mix
  pure integer function pick_words(r)
    integer(i8), intent(in) :: r
    select case (int(mod(r, 4_i8)))
    case (0)
       pick_words = int(mod(r, 8_i8))
    case (1)
       pick_words = int(mod(r, 2500_i8))
    case (2)
       pick_words = int(mod(r, 37500_i8))
    case default
       pick_words = int(mod(r, int(maxwords, i8)))
    end select
  end function pick_words
  double precision function wall_now()
    type(timeval) :: tv
    integer(c_int) :: rc
    rc = gettimeofday(tv, c_null_ptr)
    wall_now = dble(tv%sec) + dble(tv%usec) * 1d-6
  end function wall_now
end module fstress_util

program fstress
  use mpi
  use fstress_util
  implicit none
  integer :: ierr, rank, np, round, s, d, k, m, nreq, expect, cnt, src, tag, i, failures, total
  integer :: n, v(262144), st(MPI_STATUS_SIZE), bn
  integer, allocatable :: plan(:, :), reqs(:)
  integer(i8), allocatable :: next_from(:), seq_to(:), sent_me(:), rbuf(:)
  integer(i8) :: seed, key, bytes_ok, got, mine2(2), tot2(2), mine, sum
  type(msgbuf), allocatable :: bufs(:)
  double precision :: seconds, start
  logical :: more, extra, bad
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  seconds = 10
  seed = 1
  if (command_argument_count() >= 1) then
     call get_command_argument(1, arg)
     n = len_trim(arg)
     if (arg(n:n) == 's') n = n - 1
     read (arg(1:n), *) seconds
  end if
  if (command_argument_count() >= 2) then
     call get_command_argument(2, arg)
     read (arg, *) seed
  end if
  allocate (plan(0:np - 1, 0:np - 1), reqs(3 * np), bufs(3 * np))
  allocate (next_from(0:np - 1), seq_to(0:np - 1), sent_me(0:np - 1), rbuf(maxwords + hdr))
  next_from = 0
  seq_to = 0
  bytes_ok = 0
  failures = 0
  start = MPI_Wtime()
  round = 0
  do
     more = MPI_Wtime() - start < seconds
     call MPI_Bcast(more, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr) ! rank 0's clock decides
     if (.not. more) exit
     ! everyone learns how many messages to expect from a global plan
     do s = 0, np - 1
        do d = 0, np - 1
           plan(s, d) = int(mod(mix(seed * 7919_i8 + int(round, i8) * 131_i8 + int(s * np + d, i8)), 3_i8))
        end do
     end do
     expect = 0
     do s = 0, np - 1
        if (s /= rank) expect = expect + plan(s, rank)
     end do
     nreq = 0
     do d = 0, np - 1
        if (d == rank) cycle
        do k = 0, plan(rank, d) - 1
           key = mix(ieor(ieor(seed, ishft(int(rank, i8), 40)), ieor(ishft(int(round, i8), 20), int(d * 8 + k, i8))))
           n = pick_words(key)
           nreq = nreq + 1
           allocate (bufs(nreq)%w(n + hdr))
           bufs(nreq)%w(1:hdr) = (/ int(rank, i8), seq_to(d), int(n, i8), key /)
           seq_to(d) = seq_to(d) + 1
           do i = 1, n
              bufs(nreq)%w(hdr + i) = mix(key + i)
           end do
           tag = int(mod(key, 1000_i8))
           if (mod(key, 5_i8) == 0) then
              call MPI_Issend(bufs(nreq)%w, n + hdr, MPI_INTEGER8, d, tag, MPI_COMM_WORLD, reqs(nreq), ierr)
           else
              call MPI_Isend(bufs(nreq)%w, n + hdr, MPI_INTEGER8, d, tag, MPI_COMM_WORLD, reqs(nreq), ierr)
           end if
        end do
     end do
     do m = 1, expect
        call MPI_Recv(rbuf, maxwords + hdr, MPI_INTEGER8, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
        call MPI_Get_count(st, MPI_INTEGER8, cnt, ierr)
        src = st(MPI_SOURCE)
        bad = rbuf(1) /= src .or. cnt /= rbuf(3) + hdr .or. st(MPI_TAG) /= mod(rbuf(4), 1000_i8)
        if (.not. bad) then
           do i = 1, int(rbuf(3))
              if (rbuf(hdr + i) /= mix(rbuf(4) + i)) then
                 bad = .true.
                 exit
              end if
           end do
        end if
        if (bad) then
           print '(a,i0,a,i0,a,i0,a,i0,a)', 'FAIL: rank ', rank, ' round ', round, ': corrupt message from ', &
                src, ' (', cnt, ' words)'
           failures = failures + 1
           cycle
        end if
        ! a sender's messages match wildcard receives in the order it sent them,
        ! so anything but the next number was lost, duplicated or overtaken
        if (rbuf(2) /= next_from(src)) then
           print '(a,i0,a,i0,a,i0,a,i0,a)', 'FAIL: rank ', rank, ' round ', round, ': message ', rbuf(2), &
                ' where ', next_from(src), ' was due'
           failures = failures + 1
        end if
        next_from(src) = rbuf(2) + 1
        bytes_ok = bytes_ok + 8 * rbuf(3)
     end do
     call MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE, ierr)
     do i = 1, nreq
        deallocate (bufs(i)%w)
     end do
     ! collectives in between
     mine = round + rank
     call MPI_Allreduce(mine, sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
     if (sum /= int(np, i8) * round + int(np, i8) * (np - 1) / 2) then
        print '(a,i0,a,i0)', 'FAIL: rank ', rank, ': allreduce ', sum
        failures = failures + 1
     end if
     if (rank == 0) then
        print '(a,f0.6,a,i0)', 'progress ', wall_now(), ' round ', round
        flush (6)
     end if
     if (mod(round, 5) == 0) then
        bn = size(v)
        do i = 1, bn
           v(i) = -1
           if (rank == 0) v(i) = ieor(i, round)
        end do
        call MPI_Bcast(v, bn, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
        do i = 1, bn
           if (v(i) /= ieor(i, round)) then
              print '(a,i0,a,i0)', 'FAIL: rank ', rank, ': bcast element ', i
              failures = failures + 1
              exit
           end if
        end do
     end if
     round = round + 1
  end do
  ! exactly once: what each peer sent me is what I received ...
  call MPI_Alltoall(seq_to, 1, MPI_INTEGER8, sent_me, 1, MPI_INTEGER8, MPI_COMM_WORLD, ierr)
  got = 0
  do s = 0, np - 1
     got = got + next_from(s)
     if (sent_me(s) /= next_from(s)) then
        print '(a,i0,a,i0,a,i0,a,i0,a)', 'FAIL: rank ', rank, ': ', sent_me(s), ' messages from ', s, &
             ' sent, ', next_from(s), ' received'
        failures = failures + 1
     end if
  end do
  ! ... and no late copy arrives after the last one was received
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 1, 100
     call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, extra, st, ierr)
     if (extra) then
        print '(a,i0,a,i0,a)', 'FAIL: rank ', rank, ': an extra message from ', st(MPI_SOURCE), &
             ' after the last round'
        failures = failures + 1
        exit
     end if
  end do
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  mine2 = (/ got, bytes_ok /)
  call MPI_Reduce(mine2, tot2, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (total /= 0) then
        print '(a,i0,a)', 'FAIL: ', total, ' bad messages'
     else
        print '(a,i0,a,i0,a,i0,a)', 'OK: ', round, ' rounds, ', tot2(1), ' messages (', tot2(2), &
             ' bytes) verified exactly once'
     end if
  end if
  ! the main program's arrays are never freed by the compiler: LeakSanitizer
  ! (the sanitizer build) would count them
  deallocate (plan, reqs, bufs, next_from, seq_to, sent_me, rbuf)
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1
end program fstress
