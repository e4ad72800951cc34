#!/usr/bin/env bash
# On a GPU machine, from the repository root: one build (CUDA for sm_90, the program, no
# Fortran), the GPU tests (ctest -L gpu: CPU vs CUDA agreement, convergence, errors,
# sanitizers, the program on 1ubq), then the full regression suite on both backends.
# Logs go to $OUT (default ./device-out), at most 8 files: build-all.log, ctest-gpu.log and
# the 6 of regression/run_on_device.sh.  Usage: scripts/device_check.sh [run_suite options]
set -u
out=${OUT:-$PWD/device-out}
build=${DG_DEVICE_BUILD:-build-device}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
start=$SECONDS
if ! { cmake -S . -B "$build" -DGPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DDG_BUILD_FORTRAN=OFF \
         -DCMAKE_BUILD_TYPE=Release && cmake --build "$build" -j"$(nproc)"; } \
       > "$out/build-all.log" 2>&1; then
    tail -30 "$out/build-all.log"
    echo "device_check: build failed"
    exit 2
fi
echo "build: $((SECONDS - start)) s"
start=$SECONDS
(cd "$build" && timeout 240 ctest -L gpu --output-on-failure) > "$out/ctest-gpu.log" 2>&1
echo "gpu tests: exit $? ($((SECONDS - start)) s)"
grep -E "Test +#|tests passed|tests failed" "$out/ctest-gpu.log"
start=$SECONDS
DG_DEVICE_BUILD=$build OUT=$out bash regression/run_on_device.sh "$@"
echo "regression: $((SECONDS - start)) s"
