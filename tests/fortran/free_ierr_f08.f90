! ranks: 1 2
! use mpi_f08: ierror and handles of the calls that free, close or complete a
! handle (free_ierr.inc)
program free_ierr_f08
  use mpi_f08
  implicit none
  type(MPI_File) :: fh
  type(MPI_Win) :: win
  type(MPI_Request) :: req, req2, preq(2)
  type(MPI_Op) :: op
  type(MPI_Datatype) :: dt
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  type(MPI_Group) :: grp
  type(MPI_Comm) :: comm
  type(MPI_Message) :: msg
  type(MPI_Status) :: st
  include 'free_ierr_decl.inc'
  include 'free_ierr.inc'
  include 'free_ierr_end.inc'
