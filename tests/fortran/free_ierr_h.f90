! ranks: 1 2
! mpif.h: IERR and handles of the calls that free, close or complete a handle
! (free_ierr.inc)
program free_ierr_h
  implicit none
  include 'mpif.h'
  include 'free_ierr_int.inc'
