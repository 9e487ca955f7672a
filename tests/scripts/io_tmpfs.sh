#!/bin/bash
# MPI-IO on a full disk: a tmpfs of 64 KiB is mounted for the test and
# io_nospace runs in it with 1 and 2 ranks ("full": the file system's room,
# not a file size limit): short writes, collective writes and a
# preallocation past the room answer MPI_ERR_NO_SPACE and what the file held
# before is intact. Root only (mount); unmounted on any exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 77; }
mnt=$(mktemp -d)
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT INT TERM
mount -t tmpfs -o size=64k,mode=0755 railmpi_io_full "$mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
for n in 1 2; do
    out=$(RM_TEST_IODIR=$mnt timeout 60 "$build/bin/mpiexec" -n $n "$build/tests/mpi/mpi_io_nospace" full 2>&1)
    echo "$out" | grep -q "^OK io_nospace" || fail "io_nospace on a full tmpfs, $n ranks: $(echo "$out" | tail -3)"
    left=$(ls -A "$mnt")
    [ -z "$left" ] || { fail "left in the tmpfs after $n ranks: $left"; rm -rf "${mnt:?}"/*; }
done
[ $fails = 0 ] && echo "OK: MPI-IO on a full tmpfs"
exit $((fails > 0))
