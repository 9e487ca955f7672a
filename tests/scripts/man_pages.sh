#!/bin/bash
# `man MPI_Name` for every C function the library exports: after `cmake
# --install`, share/man/man3 holds a page for each MPI_/MPIX_ function of
# libmpi.so.12 (nm -D) and no other, every page renders without a warning,
# man finds them through MANPATH, and once indexed apropos (man -k) does too.
# The generator refuses a function without a description.
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
command -v man >/dev/null && command -v groff >/dev/null && command -v mandb >/dev/null ||
    { echo "SKIP: man-db and groff are not installed (scripts/deps.sh)"; exit 77; }
install_to_tmp "$build"
m=$tmp/p/share/man
nm -D --defined-only "$build/lib/libmpi.so.12" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' |
    sed 's/@.*//' | grep -E '^MPIX?_' | grep -vE '^MPIX?_[A-Z0-9_]+$' | sort -u >"$tmp/exported"
[ "$(wc -l <"$tmp/exported")" -gt 400 ] || fail "only $(wc -l <"$tmp/exported") functions exported?"
ls "$m/man3" 2>/dev/null | sed -n 's/\.3$//p' | sort >"$tmp/pages"
d=$(comm -23 "$tmp/exported" "$tmp/pages")
[ -z "$d" ] || fail "exported without a page ($(echo "$d" | wc -l)): $(echo "$d" | head -5 | tr '\n' ' ')"
d=$(comm -13 "$tmp/exported" "$tmp/pages")
[ -z "$d" ] || fail "pages of functions not exported: $(echo "$d" | head -5 | tr '\n' ' ')"

# Every page through groff with all warnings on, in one run (names the page
# and line of any warning); a sample through man itself, as a reader gets them.
w=$(cd "$m/man3" && LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 ./*.3 2>&1)
[ -z "$w" ] || fail "groff warnings: $(echo "$w" | head -5)"
for f in MPI_Send MPI_Comm_spawn_multiple MPI_Type_create_darray MPI_File_open MPI_T_event_get_info \
         MPI_Neighbor_alltoallw_init MPI_Pcontrol MPI_Comm_f2c MPIX_Rail_migrate MPI_Wtime; do
    out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m/man3/$f.3" 2>"$tmp/err")
    [ -s "$tmp/err" ] && fail "man --warnings $f: $(head -3 "$tmp/err")"
    # the C synopsis, the parameters with their direction, the error classes
    for want in "^NAME" "$f" "#include <mpi.h>" "^PARAMETERS|$f\(void\)" "^ERRORS" "\((IN|OUT|INOUT)\)|$f\(void\)"; do
        echo "$out" | grep -qE -- "$want" || fail "man $f: no '$want'"
    done
done
out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$m/man3/MPI_Recv.3" 2>/dev/null)
for want in "USE mpi_f08" "TYPE\(MPI_Status\), INTENT\(OUT\) :: status" "status \(OUT\)" "MPI_ERR_TRUNCATE" \
            "MPI_ERR_RANK" "RAILMPI_PARTITION_TIMEOUT_S" "MPI_Irecv\(3\)"; do
    echo "$out" | grep -qE -- "$want" || fail "man MPI_Recv: no '$want'"
done
[ "$(MANPATH=$m man -w MPI_Allreduce 2>&1)" = "$m/man3/MPI_Allreduce.3" ] ||
    fail "man -w MPI_Allreduce: $(MANPATH=$m man -w MPI_Allreduce 2>&1)"

# apropos after indexing the prefix's pages (as man-db's trigger does for packages)
mandb -q "$m" >"$tmp/mandb.log" 2>&1 || fail "mandb: $(head -3 "$tmp/mandb.log")"
a=$(MANPATH=$m man -k MPI_Send 2>&1)
echo "$a" | grep -q "^MPI_Send (3) *- Sends a message" || fail "man -k MPI_Send: $a"
echo "$a" | grep -q "^MPI_Sendrecv (3)" || fail "man -k MPI_Send finds no MPI_Sendrecv: $a"
a=$(MANPATH=$m apropos -e MPIX_Rail_migrate 2>&1)
echo "$a" | grep -q "^MPIX_Rail_migrate (3)" || fail "apropos -e MPIX_Rail_migrate: $a"

# a function without a description stops the generator, naming it
grep -v '^MPI_Barrier:' "$src/tools/api/mpi_desc.txt" >"$tmp/desc.txt"
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
out=$(python3 "$src/tools/man/gen_fn.py" --api "$src/tools/api/mpi_api.txt" --desc "$tmp/desc.txt" \
    --params "$src/tools/api/mpi_params.txt" --header "$src/include/mpi.h" --cc "${cc:-cc}" \
    --lib "$build/lib/libmpi.so.12" --src "$src/src/mpi" --version 0 --out "$tmp/gen" 2>&1) &&
    fail "gen_fn.py accepted a missing description"
echo "$out" | grep -q "no description.*MPI_Barrier" || fail "gen_fn.py without MPI_Barrier's description: $out"
[ $fails = 0 ] && echo "OK: man pages of $(wc -l <"$tmp/pages") functions" || exit 1
