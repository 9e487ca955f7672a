! ranks: 1 2
! MPI-IO procedures written in Fortran: a file error handler
! (MPI_FILE_CREATE_ERRHANDLER: it gets the INTEGER file handle and the
! error code), on a file and on MPI_FILE_NULL, and a data representation
! whose conversion and extent functions are Fortran (MPI_REGISTER_DATAREP:
! every argument by reference, the extra_state an ADDRESS_KIND integer).
module fcb
  use mpi
  implicit none
  integer :: nerr = 0, lastfile = -1, lastcode = 0
  integer :: nread = 0, nwrite = 0, nextent = 0, lastdtype = 0
contains
  subroutine file_errh(file, code)
    integer :: file, code
    nerr = nerr + 1
    lastfile = file
    lastcode = code
  end subroutine file_errh
  subroutine xor_write(userbuf, dtype, count, filebuf, position, extra, ierr)
    integer :: dtype, count, ierr, i
    integer :: userbuf(*), filebuf(*)
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra
    nwrite = nwrite + 1
    lastdtype = dtype
    do i = 1, count
       filebuf(i) = ieor(userbuf(position + i), int(extra))
    end do
    ierr = MPI_SUCCESS
  end subroutine xor_write
  subroutine xor_read(userbuf, dtype, count, filebuf, position, extra, ierr)
    integer :: dtype, count, ierr, i
    integer :: userbuf(*), filebuf(*)
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra
    nread = nread + 1
    lastdtype = dtype
    do i = 1, count
       userbuf(position + i) = ieor(filebuf(i), int(extra))
    end do
    ierr = MPI_SUCCESS
  end subroutine xor_read
  subroutine xor_extent(dtype, extent, extra, ierr)
    integer :: dtype, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra
    nextent = nextent + 1
    extent = 4
    if (extra /= int(z'5A5A5A5A', MPI_ADDRESS_KIND)) extent = 0
    ierr = MPI_SUCCESS
  end subroutine xor_extent
end module fcb

program file_cb
  use mpi
  use fcb
  implicit none
  integer :: ierr, rank, np, fh, feh, cls, v(1), st(MPI_STATUS_SIZE), pid
  integer(kind=MPI_ADDRESS_KIND) :: key
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=64) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (path, '(a,i0,a)') '/tmp/railmpi_fcb_', pid, '.dat'

  ! a data representation written in Fortran
  key = int(z'5A5A5A5A', MPI_ADDRESS_KIND)
  call MPI_Register_datarep('fxor', xor_read, xor_write, xor_extent, key, ierr)
  call check(ierr == MPI_SUCCESS, 'Register_datarep')
  call MPI_Register_datarep('fxor', xor_read, xor_write, xor_extent, key, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  call check(cls == MPI_ERR_DUP_DATAREP, 'Register_datarep twice')
  call MPI_Register_datarep('fnull', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
       xor_extent, key, ierr)
  call check(ierr == MPI_SUCCESS, 'Register_datarep with MPI_CONVERSION_FN_NULL')

  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR + MPI_MODE_CREATE, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'fxor', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS .and. nextent >= 1, 'set_view fxor, extent function called')
  v(1) = 1000 + rank
  off = rank
  call MPI_File_write_at(fh, off, v, 1, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. nwrite == 1 .and. lastdtype == MPI_INTEGER, &
       'write conversion called with MPI_INTEGER')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  v(1) = -1
  call MPI_File_read_at(fh, off, v, 1, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. nread == 1 .and. v(1) == 1000 + rank, 'fxor round trip')
  ! the bytes in the file are the converted ones
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_read_at(fh, off, v, 1, MPI_INTEGER, st, ierr)
  call check(v(1) == ieor(1000 + rank, int(z'5A5A5A5A')), 'fxor bytes in the file')

  ! a file error handler written in Fortran: it gets the INTEGER handle
  call MPI_File_create_errhandler(file_errh, feh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_create_errhandler')
  call MPI_File_set_errhandler(fh, feh, ierr)
  call MPI_File_call_errhandler(fh, MPI_ERR_OTHER, ierr)
  call check(nerr == 1 .and. lastfile == fh .and. lastcode == MPI_ERR_OTHER, &
       'File_call_errhandler reaches the Fortran handler with the file')
  call MPI_File_write_at(fh, -1_MPI_OFFSET_KIND, v, 1, MPI_INTEGER, st, ierr)
  call MPI_Error_class(lastcode, cls, ierr)
  call check(nerr == 2 .and. lastfile == fh .and. cls == MPI_ERR_ARG, &
       'an erroneous write calls the Fortran handler')
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! on MPI_FILE_NULL: errors of MPI_FILE_OPEN
  call MPI_File_set_errhandler(MPI_FILE_NULL, feh, ierr)
  call MPI_File_open(MPI_COMM_SELF, trim(path) // '.none', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_Error_class(lastcode, cls, ierr)
  call check(nerr == 3 .and. lastfile == MPI_FILE_NULL .and. cls == MPI_ERR_NO_SUCH_FILE, &
       'open of a missing file calls the handler set on MPI_FILE_NULL')
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(feh, ierr)
  call check(feh == MPI_ERRHANDLER_NULL, 'Errhandler_free')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(path, MPI_INFO_NULL, ierr)
  if (rank == 0) print '(a)', 'OK'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
       print *, 'FAIL: ', what, ' on rank ', rank, ' (', nerr, lastfile, lastcode, ')'
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program file_cb
