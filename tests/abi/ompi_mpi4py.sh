#!/bin/bash
# Debian's python3-mpi4py (built on Open MPI) runs on railmpi's libmpi.so.40:
#   ompi_mpi4py.sh MPIEXEC
# Exits 77 (skipped) where Debian's python3 cannot import mpi4py.
set -u
mpiexec=$1
py=/usr/bin/python3
if ! "$py" -c 'import mpi4py' 2>/dev/null; then
    echo "SKIP: $py has no mpi4py (Debian's python3-mpi4py)"
    exit 77
fi
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
# a sanitizer build of the library: its runtime must come first in the
# interpreter, whose own leaks are not railmpi's
lib=$(dirname "$mpiexec")/../lib/openmpi-abi/libmpi.so.40
san=$(ldd "$lib" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
san_env=()
[ -z "$san" ] || san_env=(-genv LD_PRELOAD "$san" -genv ASAN_OPTIONS "detect_leaks=0:abort_on_error=1")
timeout -k 5 60 "$mpiexec" -abi openmpi -n 2 --timeout 50 "${san_env[@]}" "$py" "$(dirname "$0")/ompi_mpi4py.py"
