#!/bin/bash
# railmpi's demo on one host: build and install, compile an MPI program with
# the installed mpicc, run it on 4 ranks, run a program built against Debian's
# MPICH on railmpi unchanged, and compare point-to-point speed with MPICH and
# Open MPI side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
prefix=$PWD/demo-out/prefix
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
cmake --install build --prefix "$prefix" >/dev/null
echo "== installed railmpi in $prefix"
"$prefix/bin/mpicc" -O2 examples/ring.c -o demo-out/ring
echo "== $prefix/bin/mpiexec -n 4 -l demo-out/ring"
"$prefix/bin/mpiexec" -n 4 -l --timeout 60 demo-out/ring
mpicc.mpich -O2 examples/ring.c -o demo-out/ring.mpich
echo "== the same program built against Debian's MPICH, run on railmpi via LD_LIBRARY_PATH"
LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/mpiexec" -n 3 --timeout 60 demo-out/ring.mpich
echo "== side-by-side benchmark (railmpi, MPICH, Open MPI; one round)"
bash bench/run.sh --rounds 1 --build build
