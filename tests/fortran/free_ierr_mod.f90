! ranks: 1 2
! use mpi: IERR and handles of the calls that free, close or complete a handle
! (free_ierr.inc); free_ierr_h.f90 with the module in place of mpif.h
program free_ierr_mod
  use mpi
  implicit none
  include 'free_ierr_int.inc'
