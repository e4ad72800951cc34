#!/usr/bin/env bash
# The README's test command: install what is missing, build everything this machine can build
# (C library, CUDA backend if nvcc exists, Fortran bridge, host program), run every test.
# GPU tests skip (exit 77) where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/check_format.sh
bash scripts/configure.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
