! A `use mpi` program linked with libmpi_usempi_ignore_tkr.so.40 (Open MPI's
! `use mpi` library for gfortran, which a program linked without --as-needed
! names; tests/abi/ompi_fortran.sh with TKR=1 links it so and checks that
! railmpi's copy is the one loaded): MPI_SIZEOF's specifics come from it.
program tkr
  use mpi
  implicit none
  integer :: ierr, sz, rank
  double precision :: d(3)
  integer(kind=8) :: i8
  integer(kind=2) :: i2(2, 2)
  complex :: z
  character :: c
  logical :: l
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Sizeof(d, sz, ierr)
  call expect(sz, 8, 'double precision array')
  if (ierr /= MPI_SUCCESS) error stop 'MPI_SIZEOF: ierror'
  call MPI_Sizeof(i8, sz, ierr)
  call expect(sz, 8, 'integer(8)')
  call MPI_Sizeof(i2, sz, ierr)
  call expect(sz, 2, 'integer(2) rank 2')
  call MPI_Sizeof(z, sz, ierr)
  call expect(sz, 8, 'complex')
  call MPI_Sizeof(c, sz, ierr)
  call expect(sz, 1, 'character')
  call MPI_Sizeof(l, sz, ierr)
  call expect(sz, 4, 'logical')
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'OK'
contains
  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
      print *, 'FAIL: MPI_SIZEOF of ', what, ' = ', got, ' not ', want
      error stop 1
    end if
  end subroutine
end program tkr
