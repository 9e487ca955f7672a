! ranks: 1
! MPI_SIZEOF (MPI-3.1 17.1.9) from the mpi and the mpi_f08 modules: the
! size in bytes of every intrinsic type and kind, scalars and arrays of any
! rank, matched against the compiler's STORAGE_SIZE; MPI_TYPE_SIZE of the
! datatype MPI_TYPE_MATCH_SIZE finds for it agrees.
subroutine with_mpi(nfail)
  use mpi
  implicit none
  integer, intent(inout) :: nfail
  integer(kind=1) :: i1
  integer(kind=2) :: i2(3)
  integer :: i4(2, 2), sz, ierr, dt, tsz
  integer(kind=8) :: i8
  real :: r4(2, 2, 2)
  double precision :: r8
  complex :: c4
  complex(kind=8) :: c8(5)
  logical :: l4
  character(len=10) :: ch

  call MPI_Sizeof(i1, sz, ierr); call expect(sz, storage_size(i1) / 8, 'INTEGER(1)')
  call MPI_Sizeof(i2, sz, ierr); call expect(sz, storage_size(i2) / 8, 'INTEGER(2) array')
  call MPI_Sizeof(i4, sz, ierr); call expect(sz, storage_size(i4) / 8, 'INTEGER rank 2')
  call MPI_Sizeof(i8, sz, ierr); call expect(sz, storage_size(i8) / 8, 'INTEGER(8)')
  call MPI_Sizeof(r4, sz, ierr); call expect(sz, storage_size(r4) / 8, 'REAL rank 3')
  call MPI_Sizeof(r8, sz, ierr); call expect(sz, storage_size(r8) / 8, 'DOUBLE PRECISION')
  call MPI_Sizeof(c4, sz, ierr); call expect(sz, storage_size(c4) / 8, 'COMPLEX')
  call MPI_Sizeof(c8, sz, ierr); call expect(sz, storage_size(c8) / 8, 'COMPLEX(8) array')
  call MPI_Sizeof(l4, sz, ierr); call expect(sz, storage_size(l4) / 8, 'LOGICAL')
  call MPI_Sizeof(ch, sz, ierr); call expect(sz, 1, 'CHARACTER')
  call expect(ierr, MPI_SUCCESS, 'ierror')
  ! the intended use: a datatype for a kind
  call MPI_Sizeof(r8, sz, ierr)
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, sz, dt, ierr)
  call MPI_Type_size(dt, tsz, ierr)
  call expect(tsz, 8, 'MPI_TYPE_MATCH_SIZE of MPI_SIZEOF(DOUBLE PRECISION)')
contains
  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
       print *, 'FAIL: mpi MPI_SIZEOF ', what, ' = ', got, ' not ', want
       nfail = nfail + 1
    end if
  end subroutine expect
end subroutine with_mpi

program sizeof_mod
  use mpi_f08
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64, real128
  implicit none
  integer(int8) :: a(4)
  integer(int16) :: b
  integer(int32) :: c
  integer(int64) :: d(2, 3)
  integer(kind=16) :: q
  real(real32) :: e
  real(real64) :: f(7)
  real(kind=10) :: x
  real(real128) :: g
  complex(real32) :: h
  complex(real64) :: k(2, 2)
  complex(kind=10) :: cx
  complex(real128) :: m
  logical(kind=1) :: l1
  logical(kind=2) :: l2
  logical(kind=8) :: l8
  integer :: sz, ierr, nfail

  nfail = 0
  call MPI_Init()
  call MPI_Sizeof(a, sz); call expect(sz, storage_size(a) / 8, 'INTEGER(INT8) array')
  call MPI_Sizeof(b, sz); call expect(sz, storage_size(b) / 8, 'INTEGER(INT16)')
  call MPI_Sizeof(c, sz); call expect(sz, storage_size(c) / 8, 'INTEGER(INT32)')
  call MPI_Sizeof(d, sz); call expect(sz, storage_size(d) / 8, 'INTEGER(INT64) rank 2')
  call MPI_Sizeof(q, sz); call expect(sz, storage_size(q) / 8, 'INTEGER(16)')
  call MPI_Sizeof(e, sz); call expect(sz, storage_size(e) / 8, 'REAL(REAL32)')
  call MPI_Sizeof(f, sz); call expect(sz, storage_size(f) / 8, 'REAL(REAL64) array')
  call MPI_Sizeof(x, sz); call expect(sz, storage_size(x) / 8, 'REAL(10)')
  call MPI_Sizeof(g, sz); call expect(sz, storage_size(g) / 8, 'REAL(REAL128)')
  call MPI_Sizeof(h, sz); call expect(sz, storage_size(h) / 8, 'COMPLEX(REAL32)')
  call MPI_Sizeof(k, sz); call expect(sz, storage_size(k) / 8, 'COMPLEX(REAL64) rank 2')
  call MPI_Sizeof(cx, sz); call expect(sz, storage_size(cx) / 8, 'COMPLEX(10)')
  call MPI_Sizeof(m, sz); call expect(sz, storage_size(m) / 8, 'COMPLEX(REAL128)')
  call MPI_Sizeof(l1, sz); call expect(sz, storage_size(l1) / 8, 'LOGICAL(1)')
  call MPI_Sizeof(l2, sz); call expect(sz, storage_size(l2) / 8, 'LOGICAL(2)')
  call MPI_Sizeof(l8, sz, ierr); call expect(sz, storage_size(l8) / 8, 'LOGICAL(8)')
  call expect(ierr, MPI_SUCCESS, 'ierror')
  call with_mpi(nfail)
  if (nfail == 0) print '(a)', 'OK'
  call MPI_Finalize()
  if (nfail /= 0) error stop 1
contains
  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
       print *, 'FAIL: mpi_f08 MPI_Sizeof ', what, ' = ', got, ' not ', want
       nfail = nfail + 1
    end if
  end subroutine expect
end program sizeof_mod
