! ranks: 2
! The process fault tolerance calls through mpif.h (no failure): the
! error classes, an agreement, the failed group and a revoke.
      PROGRAM ULFMF77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, FLAG, G, N, D, CLS
      LOGICAL REVOKED
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (MPIX_ERR_REVOKED .NE. 103) PRINT *, 'FAIL: MPIX_ERR_REVOKED'
      FLAG = 3 + 4 * RANK
      CALL MPIX_COMM_AGREE(MPI_COMM_WORLD, FLAG, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. FLAG .NE. 3)
     &    PRINT *, 'FAIL: agree', IERR, FLAG
      CALL MPIX_COMM_GET_FAILED(MPI_COMM_WORLD, G, IERR)
      CALL MPI_GROUP_SIZE(G, N, IERR)
      IF (N .NE. 0) PRINT *, 'FAIL: failed group of size', N
      CALL MPI_GROUP_FREE(G, IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, D, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(D, MPI_ERRORS_RETURN, IERR)
      CALL MPIX_COMM_REVOKE(D, IERR)
      CALL MPIX_COMM_IS_REVOKED(D, REVOKED, IERR)
      IF (.NOT. REVOKED) PRINT *, 'FAIL: not revoked'
      CALL MPI_BARRIER(D, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, IERR)
      IF (CLS .NE. MPIX_ERR_REVOKED) PRINT *, 'FAIL: class', CLS
      CALL MPI_COMM_FREE(D, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0) PRINT *, 'OK ulfm_f77'
      END
