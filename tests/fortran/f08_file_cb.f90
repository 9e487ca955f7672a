! ranks: 1 2
! MPI-IO callbacks written against mpi_f08 with the standard's f08 abstract
! interfaces: a file error handler taking TYPE(MPI_File), conversion
! functions taking TYPE(C_PTR), VALUE buffers and TYPE(MPI_Datatype).
module f08cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: nerr = 0, lastcode = 0, nconv = 0
  type(MPI_File) :: lastfile
contains
  subroutine file_errh(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    nerr = nerr + 1
    lastfile = file
    lastcode = error_code
  end subroutine file_errh
  subroutine neg_conv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, (/ position + count /))
    call c_f_pointer(filebuf, f, (/ count /))
    nconv = nconv + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 7) ierror = MPI_ERR_TYPE
    f = -u(position + 1:position + count)
  end subroutine neg_conv
  subroutine neg_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, (/ position + count /))
    call c_f_pointer(filebuf, f, (/ count /))
    nconv = nconv + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 7) ierror = MPI_ERR_TYPE
    u(position + 1:position + count) = -f
  end subroutine neg_read
  subroutine int_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine int_extent
end module f08cb

program f08_file_cb
  use mpi_f08
  use f08cb
  implicit none
  integer :: rank, cls, v(2), pid
  type(MPI_File) :: fh
  type(MPI_Errhandler) :: feh
  type(MPI_Status) :: st
  integer(kind=MPI_ADDRESS_KIND) :: seven
  character(len=64) :: path

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  pid = getpid()
  write (path, '(a,i0,a)') '/tmp/railmpi_f08cb_', pid, '.dat'
  seven = 7
  call MPI_Register_datarep('f08neg', neg_read, neg_conv, int_extent, seven)
  call MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR + MPI_MODE_CREATE + MPI_MODE_DELETE_ON_CLOSE, &
       MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'f08neg', MPI_INFO_NULL)
  v = (/ 5, 6 /)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, v, 2, MPI_INTEGER, st)
  v = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, v, 2, MPI_INTEGER, st)
  call check(nconv == 2 .and. all(v == (/ 5, 6 /)), 'f08 conversion round trip')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, v, 2, MPI_INTEGER, st)
  call check(all(v == (/ -5, -6 /)), 'f08 converted bytes in the file')

  call MPI_File_create_errhandler(file_errh, feh)
  call MPI_File_set_errhandler(fh, feh)
  call MPI_File_call_errhandler(fh, MPI_ERR_IO)
  call check(nerr == 1 .and. lastfile == fh .and. lastcode == MPI_ERR_IO, 'f08 file error handler')
  call MPI_File_read_at(fh, -5_MPI_OFFSET_KIND, v, 1, MPI_INTEGER, st)
  call MPI_Error_class(lastcode, cls)
  call check(nerr == 2 .and. lastfile == fh .and. cls == MPI_ERR_ARG, 'f08 handler on a real error')
  call MPI_File_close(fh)
  call MPI_Errhandler_free(feh)
  if (rank == 0) print '(a)', 'OK'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       print *, 'FAIL: ', what, ' on rank ', rank, nerr, lastcode, nconv
       call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program f08_file_cb
