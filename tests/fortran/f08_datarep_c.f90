! ranks: 1 2
! MPI_Register_datarep_c from mpi_f08 (MPI-4.1: a name of its own, the
! conversion functions' COUNT an INTEGER(KIND=MPI_COUNT_KIND)): a
! representation that stores integers negated, written and read back through
! it, the bytes in the file checked through 'native', and one registered with
! MPI_CONVERSION_FN_NULL_C (the file holds the buffer's bytes as they are).
module f08dc
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: nconv = 0
contains
  subroutine neg_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, (/ position + count /))
    call c_f_pointer(filebuf, f, (/ count /))
    nconv = nconv + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 11) ierror = MPI_ERR_TYPE
    f = -u(position + 1:position + count)
  end subroutine neg_write
  subroutine neg_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, (/ position + count /))
    call c_f_pointer(filebuf, f, (/ count /))
    nconv = nconv + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 11) ierror = MPI_ERR_TYPE
    u(position + 1:position + count) = -f
  end subroutine neg_read
  subroutine int_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine int_extent
end module f08dc

program f08_datarep_c
  use mpi_f08
  use f08dc
  implicit none
  integer :: rank, v(3), pid, ierr
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  integer(kind=MPI_ADDRESS_KIND) :: eleven
  character(len=64) :: path

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  pid = getpid()
  write (path, '(a,i0,a)') '/tmp/railmpi_f08dc_', pid, '.dat'
  eleven = 11
  call MPI_Register_datarep_c('f08negc', neg_read, neg_write, int_extent, eleven, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c')
  call MPI_Register_datarep_c('f08negc', neg_read, neg_write, int_extent, eleven, ierr)
  call check(ierr /= MPI_SUCCESS, 'a second registration of the same name')
  call MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR + MPI_MODE_CREATE + MPI_MODE_DELETE_ON_CLOSE, &
       MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'f08negc', MPI_INFO_NULL)
  v = (/ 5, 6, 7 /)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, v, 3, MPI_INTEGER, st)
  v = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, v, 3, MPI_INTEGER, st)
  call check(nconv == 2 .and. all(v == (/ 5, 6, 7 /)), 'conversion round trip')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, v, 3, MPI_INTEGER, st)
  call check(all(v == (/ -5, -6, -7 /)), 'converted bytes in the file')
  ! MPI_CONVERSION_FN_NULL_C: the data as they are in memory
  call MPI_Register_datarep_c('f08nullc', MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, int_extent, &
       eleven, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c with MPI_CONVERSION_FN_NULL_C')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'f08nullc', MPI_INFO_NULL)
  v = (/ 8, 9, 10 /)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, v, 3, MPI_INTEGER, st)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  v = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, v, 3, MPI_INTEGER, st)
  call check(nconv == 2 .and. all(v == (/ 8, 9, 10 /)), 'MPI_CONVERSION_FN_NULL_C')
  call MPI_File_close(fh)
  if (rank == 0) print '(a)', 'OK'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       print *, 'FAIL: ', what, ' on rank ', rank, nconv
       call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program f08_datarep_c
