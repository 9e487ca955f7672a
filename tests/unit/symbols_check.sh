#!/bin/bash
# The shared library exports only MPI_*, PMPI_*, MPIX_*, PMPIX_* (the ULFM calls'
# profiling names, as MPICH has them), the Fortran mpi_*/pmpi_*
# MPICH's Fortran common blocks and the MPI_SIZEOF specifics of MPICH's mpi
# module (__mpi_sizeofs_MOD_mpi_sizeof_*), the objects and module procedures
# of MPICH's mpi_f08 (MPIR_F08_*, __mpi_f08_{types,link_constants,callbacks}_MOD_*)
# (plus the ELF
# bookkeeping symbols every library has), and every MPI_ function has a PMPI_ twin.
set -u
lib=$1
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
# Fortran: mpi_x_ and its spellings, and MPICH's sentinel common blocks
bad=$(echo "$syms" | grep -vE '^(MPI_|PMPI_|MPIX_|PMPIX_|mpi_|pmpi_|mpix_|pmpix_)' |
      grep -vE '^(_init|_fini|_edata|_end|__bss_start|mpipriv1_|mpipriv2_|mpiprivc_|mpifcmb5_|mpifcmb9_|mpifcmba_)$' |
      grep -vE '^__mpi_sizeofs_MOD_mpi_sizeof_[a-z0-9]+$' |
      grep -vE '^(MPIR_F08_MPI_[A-Z_]+|__mpi_f08_(types|link_constants|callbacks)_MOD_mpi_[a-z0-9_]+)$' || true)
if [ -n "$bad" ]; then
    echo "FAIL: unexpected exported symbols:"; echo "$bad" | head -20; exit 1
fi
missing=0
for f in $(echo "$syms" | grep -E '^MPI_[A-Z][a-z_0-9]+' | grep -vE '^MPI_(UNWEIGHTED|WEIGHTS_EMPTY|F_STATUS|F08_STATUS|T_PVAR_ALL_HANDLES)'); do
    echo "$syms" | grep -qx "P$f" || { echo "FAIL: $f has no PMPI twin"; missing=1; }
done
[ $missing = 0 ] || exit 1
n=$(echo "$syms" | grep '^PMPI_' | grep -vcE '^PMPI_[A-Z0-9_]+$')  # PMPI_SEND &c. are Fortran
echo "OK: $n PMPI functions, no stray exports"
