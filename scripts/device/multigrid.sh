#!/usr/bin/env bash
# Multigrid on a GPU machine: the GPU tests (CUDA vs CPU multigrid, CUDA multigrid vs SOR) and
# the SOR vs multigrid benchmark (time to DelPhi's maxc on a protein-like medium) at 129^3 ..
# 769^3: double at maxc 1e-5, float at maxc 1e-3 (float SOR cannot reach 1e-5: rounding of the
# ~10^3 kT/e potentials at charges).  Run from the repository root with the build configured
# in build/ (scripts/configure.sh).  Logs go to "$OUT" (default ./device-logs):
#   multigrid_build.log  multigrid_test.log  bench_double.log  bench_float.log
# Prints a short summary.  About 3 minutes; SIZES, FLOAT_SIZES override the grids.
set -u
out=${OUT:-$PWD/device-logs}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1

if ! cmake --build build -j16 --target test_gpu_multigrid dg_bench_mg > "$out/multigrid_build.log" 2>&1; then
    tail -30 "$out/multigrid_build.log"
    echo "BUILD FAILED"
    exit 1
fi

# GPU tests: CUDA multigrid agrees with the CPU multigrid (1e-9 of max |phi| in double, cycles
# within 1) and with the CUDA SOR (energy 1e-6 relative), with and without salt, and in float.
timeout 300 ./build/kernels/tests/test_gpu_multigrid > "$out/multigrid_test.log" 2>&1
echo "test_gpu_multigrid: exit $? (0 passed, 77 skipped)"
cat "$out/multigrid_test.log" | tail -8

# Benchmark: one line per grid and solver (iterations or cycles, set-up / solve / total
# seconds, outcome, energy, MG energy relative to the SOR's, speed-up of MG over SOR).
sizes=${SIZES:-129,257,385,513,769}
float_sizes=${FLOAT_SIZES:-129,257,385,513}
timeout 900 ./build/delphi_gpu/bench/dg_bench_mg --backend cuda --precision double \
    --sizes "$sizes" > "$out/bench_double.log" 2>&1
echo "bench double: exit $?"
cat "$out/bench_double.log"
timeout 600 ./build/delphi_gpu/bench/dg_bench_mg --backend cuda --precision float --maxc 1e-3 \
    --sizes "$float_sizes" > "$out/bench_float.log" 2>&1
echo "bench float: exit $?"
cat "$out/bench_float.log"
