#!/usr/bin/env bash
# The README's test command: install what is missing, build everything this machine can build
# (C library, CUDA backend if nvcc exists, Fortran bridge, host program), run every test.
# GPU tests skip (exit 77) where there is no GPU.  Then the suite again under ASan + UBSan
# (build-asan) and a short libFuzzer run of the readers (build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/check_format.sh
bash scripts/configure.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The same suite (CPU, minus the slow regression solves) under AddressSanitizer + UBSan.
bash scripts/asan_tests.sh
# A short fuzz run of every reader on its seed corpus (about 20 s per target).
bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
