#!/bin/bash
# mpiexec -abi: `openmpi` puts the directory of railmpi's libmpi.so.40 first
# on the ranks' LD_LIBRARY_PATH (the rest kept), `mpich` changes nothing, any
# other name is refused.
#   ompi_mpiexec.sh MPIEXEC LIBDIR
set -u
mpiexec=$1 libdir=$(cd "$2" && pwd -P)
fail=0
got=$(LD_LIBRARY_PATH=/keep/me timeout -k 5 30 "$mpiexec" -abi openmpi -n 1 sh -c 'echo "$LD_LIBRARY_PATH"')
want="$libdir/openmpi-abi:/keep/me"
[ "$got" = "$want" ] || { echo "FAIL: -abi openmpi gave LD_LIBRARY_PATH '$got', want '$want'"; fail=1; }
got=$(LD_LIBRARY_PATH=/keep/me timeout -k 5 30 "$mpiexec" -abi mpich -n 1 sh -c 'echo "$LD_LIBRARY_PATH"')
[ "$got" = /keep/me ] || { echo "FAIL: -abi mpich changed LD_LIBRARY_PATH to '$got'"; fail=1; }
timeout -k 5 30 "$mpiexec" -abi lam -n 1 true 2>/dev/null
rc=$?
[ $rc = 2 ] || { echo "FAIL: -abi lam: exit status $rc, want 2"; fail=1; }
[ $fail = 0 ] && echo OK
exit $fail
