#!/bin/bash
# The library against every C function MPI-4.0 and 4.1 added
# (tests/unit/mpi41_functions.txt): each is exported with its PMPI twin, except
# the families the open work lists below as still to come. Then against every
# function Debian's MPICH (libmpich.so.12, the ABI railmpi takes) exports by
# MPI_ or MPIX_ names, C and Fortran, so a program built with mpicc.mpich finds
# all it may call; MPICH's ULFM calls (MPIX_Comm_*) come with process fault
# tolerance and are listed as to come. A function that goes missing fails; so
# does one listed as to come that is now there (strike it). Prints what is missing.
#   mpi41_check.sh LIBRARY [LIBMPICH]
set -u
lib=$1 mpich=${2:-/usr/lib/x86_64-linux-gnu/libmpich.so.12} here=$(cd "$(dirname "$0")" && pwd)
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
# Families, or single functions, still to come, by the work that brings them.
pending_families=""
pending_functions="MPIX_Comm_agree MPIX_Comm_failure_ack MPIX_Comm_failure_get_acked
                   MPIX_Comm_revoke MPIX_Comm_shrink"
defined=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' | sed 's/@.*//' | sort -u)
fail=0 missing=() total=0 present=0
is_pending() { # NAME FAMILY
    case " $pending_families " in *" $2 "*) return 0 ;; esac
    case " $(echo $pending_functions) " in *" $1 "*) return 0 ;; esac
    return 1
}
while read -r fn fam; do
    case $fn in ''|'#'*) continue ;; esac
    total=$((total + 1))
    if grep -qx "$fn" <<<"$defined" && grep -qx "P$fn" <<<"$defined"; then
        present=$((present + 1))
        if is_pending "$fn" "$fam"; then
            echo "FAIL: $fn ($fam) is there now: strike it from the pending list in $0"; fail=1
        fi
    elif is_pending "$fn" "$fam"; then
        missing+=("$fam:$fn")
    else
        echo "FAIL: $fn ($fam) is not exported with its PMPI twin"; fail=1
    fi
done < "$here/mpi41_functions.txt"
echo "MPI-4.0/4.1 C functions: $present of $total defined; still to come (${#missing[@]}):"
printf '%s\n' "${missing[@]}" | awk -F: 'NF {n[$1]++; l[$1] = l[$1] " " $2} END {for (f in n) printf "  %-16s %3d:%s\n", f, n[f], substr(l[f], 1, 150)}' | sort

if [ -f "$mpich" ]; then
    theirs=$(nm -D --defined-only "$mpich" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' | sed 's/@.*//' |
             grep -E '^MPIX?_' | sort -u)
    n=0 late=()
    for fn in $(comm -23 <(echo "$theirs") <(echo "$defined")); do
        if [[ $fn == *_c ]] && is_pending "$fn" large-count; then late+=("$fn"); continue; fi
        if is_pending "$fn" -; then late+=("$fn"); continue; fi
        echo "FAIL: $fn is exported by $(basename "$mpich") but not by railmpi"; fail=1
    done
    for fn in $(echo $pending_functions); do
        grep -qx "$fn" <<<"$theirs" && grep -qx "$fn" <<<"$defined" &&
            { echo "FAIL: $fn is there now: strike it from the pending list in $0"; fail=1; }
    done
    echo "$(basename "$mpich"): $(echo "$theirs" | wc -l) MPI_/MPIX_ functions, ${#late[@]} still to come"
else
    echo "NOTE: $mpich not installed (Debian's libmpich12): the comparison with MPICH's exports did not run"
fi
[ $fail = 0 ] || exit 1
echo "OK: every function the library should have by now is exported"
