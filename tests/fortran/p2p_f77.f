! ranks: 2 3
! Point-to-point through mpif.h (fixed form): statuses, MPI_STATUS_IGNORE,
! MPI_STATUSES_IGNORE, 1-based WAITANY indices, SENDRECV, PROBE, GET_COUNT.
      PROGRAM P2PF77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, CNT, IDX, FLAG2
      INTEGER ST(MPI_STATUS_SIZE), STS(MPI_STATUS_SIZE, 2)
      INTEGER REQ(2), IBUF(10), JBUF(10), RIGHT, LEFT
      DOUBLE PRECISION DBUF(5)
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IF (RANK .EQ. 0) THEN
         DO I = 1, 10
            IBUF(I) = I * 7
         END DO
         CALL MPI_SEND(IBUF, 7, MPI_INTEGER, 1, 42, MPI_COMM_WORLD,
     &                 IERR)
         DBUF = 2.5D0
         CALL MPI_SSEND(DBUF, 5, MPI_DOUBLE_PRECISION, 1, 43,
     &                  MPI_COMM_WORLD, IERR)
      ELSE IF (RANK .EQ. 1) THEN
         CALL MPI_PROBE(0, 42, MPI_COMM_WORLD, ST, IERR)
         CALL MPI_GET_COUNT(ST, MPI_INTEGER, CNT, IERR)
         IF (CNT .NE. 7) CALL FAIL('probe count')
         CALL MPI_RECV(JBUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &                 MPI_ANY_TAG, MPI_COMM_WORLD, ST, IERR)
         IF (ST(MPI_SOURCE) .NE. 0) CALL FAIL('source')
         IF (ST(MPI_TAG) .NE. 42) CALL FAIL('tag')
!        (MPI_ERROR is set by the calls completing several requests only)
         CALL MPI_GET_COUNT(ST, MPI_INTEGER, CNT, IERR)
         IF (CNT .NE. 7 .OR. JBUF(7) .NE. 49) CALL FAIL('recv data')
         CALL MPI_RECV(DBUF, 5, MPI_DOUBLE_PRECISION, 0, 43,
     &                 MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         IF (DBUF(5) .NE. 2.5D0) CALL FAIL('status_ignore recv')
      END IF
!     a ring with nonblocking calls: WAITANY gives Fortran (1-based) indices
      RIGHT = MOD(RANK + 1, NP)
      LEFT = MOD(RANK + NP - 1, NP)
      CALL MPI_IRECV(JBUF, 1, MPI_INTEGER, LEFT, 5, MPI_COMM_WORLD,
     &               REQ(1), IERR)
      CALL MPI_ISEND(RANK, 1, MPI_INTEGER, RIGHT, 5, MPI_COMM_WORLD,
     &               REQ(2), IERR)
      CALL MPI_WAITANY(2, REQ, IDX, ST, IERR)
      IF (IDX .LT. 1 .OR. IDX .GT. 2) CALL FAIL('waitany index')
      IF (REQ(IDX) .NE. MPI_REQUEST_NULL) CALL FAIL('waitany null')
      CALL MPI_WAITALL(2, REQ, MPI_STATUSES_IGNORE, IERR)
      IF (JBUF(1) .NE. LEFT) CALL FAIL('ring')
      CALL MPI_IRECV(JBUF, 1, MPI_INTEGER, LEFT, 6, MPI_COMM_WORLD,
     &               REQ(1), IERR)
      CALL MPI_ISEND(RANK, 1, MPI_INTEGER, RIGHT, 6, MPI_COMM_WORLD,
     &               REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, STS, IERR)
      IF (STS(MPI_SOURCE, 1) .NE. LEFT) CALL FAIL('waitall status')
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, RIGHT, 7, JBUF, 1,
     &     MPI_INTEGER, LEFT, 7, MPI_COMM_WORLD, ST, IERR)
      IF (JBUF(1) .NE. LEFT .OR. ST(MPI_TAG) .NE. 7) CALL FAIL('sr')
      CALL MPI_IPROBE(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, FLAG, ST,
     &                IERR)
      IF (FLAG) CALL FAIL('iprobe flag')
      CALL MPI_INITIALIZED(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL('initialized')
      FLAG2 = 0
      IF (MPI_WTIME() .LE. 0D0 .OR. MPI_WTICK() .LE. 0D0) FLAG2 = 1
      IF (FLAG2 .NE. 0) CALL FAIL('wtime')
      CALL MPI_PCONTROL(1)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT *, 'OK'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE FAIL(WHAT)
      CHARACTER*(*) WHAT
      INCLUDE 'mpif.h'
      INTEGER IERR
      PRINT *, 'FAIL: ', WHAT
      CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END
