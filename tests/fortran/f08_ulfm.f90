! ranks: 1 3
! The process fault tolerance calls from the mpi_f08 module, without a
! failure (tests/scripts/ulfm_basic.sh kills ranks; the bindings are checked
! here): the error classes' values (MPICH's), an agreement's AND, an empty
! failed group, acknowledgement counts, a shrink of a communicator with no
! dead member (same size, working), their nonblocking forms completed by
! MPI_Wait, and a revoke seen by MPIX_Comm_is_revoked with later operations
! failing with MPIX_ERR_REVOKED.
program f08_ulfm
  use mpi_f08
  implicit none
  type(MPI_Comm) :: d, s
  type(MPI_Group) :: g
  type(MPI_Request) :: req
  integer :: ierr, rank, np, flag, n, acked, cls, total
  logical :: revoked

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (MPIX_ERR_PROC_FAILED /= 101 .or. MPIX_ERR_PROC_FAILED_PENDING /= 102 .or. MPIX_ERR_REVOKED /= 103) then
    print *, "FAIL: error class values"
  end if
  flag = 15
  if (rank == 0) flag = 6
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 6) print *, "FAIL: agree", ierr, flag
  call MPIX_Comm_get_failed(MPI_COMM_WORLD, g, ierr)
  call MPI_Group_size(g, n, ierr)
  if (n /= 0) print *, "FAIL: failed group of size", n
  call MPI_Group_free(g, ierr)
  call MPIX_Comm_ack_failed(MPI_COMM_WORLD, 1, acked, ierr)
  if (ierr /= MPI_SUCCESS .or. acked /= 0) print *, "FAIL: ack_failed", ierr, acked
  call MPIX_Comm_failure_ack(MPI_COMM_WORLD, ierr)
  call MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, g, ierr)
  call MPI_Group_size(g, n, ierr)
  if (n /= 0) print *, "FAIL: acknowledged group of size", n
  call MPI_Group_free(g, ierr)
  call MPIX_Comm_shrink(MPI_COMM_WORLD, s, ierr)
  call MPI_Comm_size(s, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= np) print *, "FAIL: shrink", ierr, n
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, s, ierr)
  if (total /= np) print *, "FAIL: allreduce on the shrunk communicator", total
  call MPI_Comm_free(s, ierr)
  flag = 7
  if (rank == np - 1) flag = 5
  call MPIX_Comm_iagree(MPI_COMM_WORLD, flag, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 5) print *, "FAIL: iagree", ierr, flag
  call MPIX_Comm_ishrink(MPI_COMM_WORLD, s, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_size(s, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= np) print *, "FAIL: ishrink", ierr, n
  call MPI_Comm_free(s, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, d, ierr)
  call MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN, ierr)
  call MPIX_Comm_is_revoked(d, revoked, ierr)
  if (revoked) print *, "FAIL: revoked before the revoke"
  call MPI_Barrier(d, ierr)
  if (rank == 0) call MPIX_Comm_revoke(d, ierr)
  revoked = .false.
  do while (.not. revoked)
    call MPIX_Comm_is_revoked(d, revoked, ierr)
  end do
  call MPI_Barrier(d, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPIX_ERR_REVOKED) print *, "FAIL: barrier on the revoked communicator: class", cls
  call MPI_Comm_free(d, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print *, "OK f08_ulfm"
end program f08_ulfm
