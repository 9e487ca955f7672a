#!/bin/bash
# include/mpi.h declares exactly the functions the library defines: a program
# that compiles against the header also links and runs, and every function the
# library exports can be called from C. Both directions are checked.
#   header_check.sh INCLUDE_DIR LIBRARY
set -u
inc=$1 lib=$2
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '#include <mpi.h>' > "$tmp/h.c"
# -aux-info lists every function prototype the translation unit sees, with
# the file and line it comes from: no hand-written parsing of C declarations.
cc -I"$inc" -aux-info "$tmp/h.aux" -fsyntax-only "$tmp/h.c" || { echo "FAIL: mpi.h does not compile"; exit 1; }
grep -F "$inc/mpi.h:" "$tmp/h.aux" |
    sed -nE 's/^.*\*\/ extern [^(]*[ *](P?MPIX?_[A-Za-z0-9_]+) \(.*$/\1/p' | sort -u > "$tmp/declared"
# all-capital names (MPI_SEND) are Fortran bindings, not C functions
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' |
    sed 's/@.*//' | grep -E '^P?MPIX?_' | grep -vE '^P?MPIX?_[A-Z0-9_]+$' | sort -u > "$tmp/defined"
[ -s "$tmp/declared" ] && [ -s "$tmp/defined" ] || { echo "FAIL: no functions found"; exit 1; }
fail=0
undefined=$(comm -23 "$tmp/declared" "$tmp/defined")
if [ -n "$undefined" ]; then
    echo "FAIL: declared in mpi.h but not defined by the library ($(echo "$undefined" | wc -l)):"
    echo "$undefined" | head -40 | sed 's/^/  /'
    fail=1
fi
undeclared=$(comm -13 "$tmp/declared" "$tmp/defined")
if [ -n "$undeclared" ]; then
    echo "FAIL: defined by the library but not declared in mpi.h ($(echo "$undeclared" | wc -l)):"
    echo "$undeclared" | head -40 | sed 's/^/  /'
    fail=1
fi
# Exported objects (MPI_F_STATUS_IGNORE and the like) are named in the header too.
for v in $(nm -D --defined-only "$lib" | awk '$2 == "B" || $2 == "D" || $2 == "R" {print $3}' | grep -E '^MPIX?_'); do
    grep -qw "$v" "$inc/mpi.h" || { echo "FAIL: exported object $v is not in mpi.h"; fail=1; }
done
[ $fail = 0 ] || exit 1
echo "OK: mpi.h declares the $(wc -l < "$tmp/defined") functions the library defines, no more"
