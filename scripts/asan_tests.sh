#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer: a second build folder
# (build-asan, CPU only, GPU=OFF) and ctest there, minus the GPU tests (none are built), the
# slow regression-labelled solves and the downstream-build tests (see below).  Any sanitizer report fails the test that triggered it.
# Usage: scripts/asan_tests.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPU=OFF -DDG_BUILD_BENCH=OFF \
  -DDG_WARNINGS_AS_ERRORS=ON \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j"$(nproc)"
# Leaks are reported too (detect_leaks); halt_on_error makes every report a failure.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Left out: the tests that build a downstream project with its own compiler flags (the
# installed package, the DelPhi kit), which cannot link the sanitizer runtimes.
# The Python tests (label python) are left out as well: they load the instrumented library
# into an uninstrumented python3, which exits at once unless the ASan runtime is preloaded.
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE "gpu|regression|python" \
  -E "install_consume|^kit_" "$@"
