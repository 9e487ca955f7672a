#!/bin/bash
# Build railmpi and run the whole test suite.
#   scripts/test.sh             build/ (warnings are errors), ctest
#   scripts/test.sh --sanitize  build-asan/ with AddressSanitizer + UBSan, ctest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=build
opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAILMPI_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
    dir=build-asan
    opts+=(-DRAILMPI_SANITIZE=ON)
    # leaks are checked; MPI programs exit through MPI_Finalize
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cmake -S . -B "$dir" "${opts[@]}"
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure --timeout 300 -j2
