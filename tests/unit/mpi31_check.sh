#!/bin/bash
# The library against every C function of MPI-3.1 (tests/unit/mpi31_functions.txt):
# each is exported with its PMPI twin, except the ones the open work lists below
# as still to come. A function that goes missing fails; so does one listed as to
# come that is now there (strike it from the list). Prints what is missing.
#   mpi31_check.sh LIBRARY
set -u
lib=$1 here=$(cd "$(dirname "$0")" && pwd)
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
# Families, or single functions, still to come, by the work that brings them.
pending_families=""
pending_functions=""
defined=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" {print $3}' | sed 's/@.*//' | sort -u)
fail=0 missing=() total=0 present=0
while read -r fn fam; do
    case $fn in ''|'#'*) continue ;; esac
    total=$((total + 1))
    pending=0
    case " $pending_families " in *" $fam "*) pending=1 ;; esac
    case " $(echo $pending_functions) " in *" $fn "*) pending=1 ;; esac
    has=0
    grep -qx "$fn" <<<"$defined" && grep -qx "P$fn" <<<"$defined" && has=1
    if [ $has = 1 ]; then
        present=$((present + 1))
        if [ $pending = 1 ] && ! case " $pending_families " in *" $fam "*) true ;; *) false ;; esac; then
            echo "FAIL: $fn is there now: strike it from the pending list in $0"; fail=1
        fi
    elif [ $pending = 1 ]; then
        missing+=("$fam:$fn")
    else
        echo "FAIL: $fn ($fam) is not exported with its PMPI twin"; fail=1
    fi
done < "$here/mpi31_functions.txt"
echo "MPI-3.1 C functions: $present of $total defined; still to come (${#missing[@]}):"
printf '%s\n' "${missing[@]}" | awk -F: '{n[$1]++; l[$1] = l[$1] " " $2} END {for (f in n) printf "  %-16s %3d:%s\n", f, n[f], substr(l[f], 1, 150)}' | sort
[ $fail = 0 ] || exit 1
echo "OK: every function the library should have by now is exported"
