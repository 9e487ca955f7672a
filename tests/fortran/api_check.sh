#!/bin/bash
# tools/api/mpi_api.txt, from which the Fortran bindings are generated,
# describes exactly the C functions include/mpi.h declares, with the C
# parameter types its kinds imply (gcc -aux-info reads the header, so no
# C declaration is parsed by hand). A function added to the header without
# its description line, or a description that drifted, fails here.
#   api_check.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '#include <mpi.h>' > "$tmp/h.c"
cc -I"$src/include" -aux-info "$tmp/h.aux" -fsyntax-only "$tmp/h.c" || { echo "FAIL: mpi.h does not compile"; exit 1; }
norm() { sed -E 's/const //g; s/ +/ /g; s/ ?;$//; s/ ,/,/g; s/[A-Za-z_]+_function (\(\*\)|\*)/fnptr */g' | sort -u; }
grep -F "$src/include/mpi.h:" "$tmp/h.aux" | sed -nE 's/^.*\*\/ extern ([^(]* MPIX?_[A-Za-z0-9_]+ \(.*\);)$/\1/p' | norm > "$tmp/header"
python3 "$src/tools/fortran/gen.py" --api "$src/tools/api/mpi_api.txt" --header "$src/include/mpi.h" --ctypes | norm > "$tmp/described" ||
    { echo "FAIL: gen.py"; exit 1; }
# functions the standard gives no Fortran binding are listed with "!" and only named
grep -E '^[!?] MPIX?_' "$src/tools/api/mpi_api.txt" | sed -E 's/^[!?] (MPIX?_[A-Za-z0-9_]+).*/\1/' | sort -u > "$tmp/nofortran"
grep -vFf <(sed 's/$/ (/' "$tmp/nofortran") "$tmp/header" > "$tmp/header_f"
fail=0
d=$(diff "$tmp/header_f" "$tmp/described")
if [ -n "$d" ]; then
    echo "FAIL: tools/api/mpi_api.txt and include/mpi.h differ (< header, > description):"
    echo "$d" | grep '^[<>]' | head -40
    echo "(tools/fortran/draft.py include/mpi.h MPI_Name prints a first description line)"
    fail=1
fi
for f in $(cat "$tmp/nofortran"); do
    grep -q " $f (" "$tmp/header" || { echo "FAIL: $f is described but not declared"; fail=1; }
done
[ $fail = 0 ] || exit 1
echo "OK: $(wc -l < "$tmp/described") functions described as the header declares them, $(wc -l < "$tmp/nofortran") without Fortran binding"
