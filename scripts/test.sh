#!/bin/bash
# Build railmpi and run the whole test suite.
#   scripts/test.sh             build/ (warnings are errors), ctest
#   scripts/test.sh --sanitize [CTEST ARGS]
#                               build-asan/ with AddressSanitizer + UBSan, ctest
#   scripts/test.sh --tsan [CTEST ARGS]
#                               build-tsan/ with ThreadSanitizer, ctest (CTEST ARGS,
#                               e.g. -L 'unit|mpi', narrow the run; default: everything,
#                               the fault tests included, which need root)
# Any sanitizer report fails the test that produced it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=build
opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAILMPI_WERROR=ON)
mode=${1:-}
if [ $# -gt 0 ]; then shift; fi
ctest_args=(-j2)
run=()
case $mode in
    --sanitize)
        dir=build-asan
        opts+=(-DRAILMPI_SANITIZE=ON)
        # leaks are checked; MPI programs exit through MPI_Finalize
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        # what third-party libraries keep for themselves (tests/lsan.supp says what and why)
        export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
        ctest_args+=("$@") ;;
    --tsan)
        dir=build-tsan
        opts+=(-DRAILMPI_TSAN=ON)
        # The first race ends the process with 66, so mpiexec, the job and the
        # test fail. history_size=4 keeps the older access's stack restorable in
        # long runs (the fault tests); second_deadlock_stack names both lock orders.
        export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 history_size=4"
        ctest_args+=("$@") ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--sanitize | --tsan [CTEST ARGS]]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${opts[@]}"
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
if [ "$mode" = --tsan ]; then
    # TSan's shadow memory needs the old address-space layout: on kernels with
    # more mmap randomisation bits (6.x with vm.mmap_rnd_bits = 32) programs die
    # with "FATAL: ThreadSanitizer: unexpected memory mapping". Then run the
    # suite with ASLR off (setarch -R); children inherit it.
    if bin/mpiexec --version 2>&1 | grep -q "unexpected memory mapping"; then
        echo "test.sh: TSan needs ASLR off here: running ctest under setarch -R"
        run=(setarch "$(uname -m)" -R)
    fi
fi
"${run[@]}" ctest --output-on-failure --timeout 300 "${ctest_args[@]}"
