#!/usr/bin/env bash
# Multigrid on a GPU machine, most important first (each step has its own time limit, so a
# short device slot still returns the first logs).  Run from the repository root; configures
# build/ when it is missing.  Logs go to "$OUT" (default ./device-logs):
#   build.log        the build
#   gpu_test.log     ctest -L gpu -R multigrid: CUDA multigrid vs the CPU's (1e-6 of max |phi|
#                    in double, cycles within one) and vs the CUDA SOR (energy 1e-6), the
#                    hand-over paths (zero / non-zero interior, float / double caller and
#                    working precision, faces kept), AUTO below the CUDA size
#   bench_385.log    dg_bench_mg --backend cuda at 129..385^3 (SOR vs MG in double: where MG
#                    starts to win, DG_MG_AUTO_EDGE_CUDA in delphi_gpu/src/mg/mg.h), and 385^3
#                    in float (maxc 1e-3: the float SOR cannot reach 1e-5) and mixed, with the
#                    MG set-up parts
#   program.log      the program's two-run at 385^3 (24k atoms, CUDA mixed) with --solver mg
#                    and with the default (auto), and --solver sor for comparison
#   bench_769.log    769^3 multigrid only (double, float), SOR skipped (about 8 s)
#   cpu_auto.log     the CPU backend (all cores): SOR vs MG at 65..161^3 (the AUTO threshold)
# SIZES_385, SMALL_SIZES, SIZES_769, CPU_SIZES override the grids.  About 3 minutes.
set -u
out=${OUT:-$PWD/device-logs}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1
start=$(date +%s)
stamp() { echo "[$(($(date +%s) - start)) s] $*"; }

if [ ! -f build/CMakeCache.txt ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        > "$out/build.log" 2>&1
fi
if ! cmake --build build -j"$(nproc)" --target test_gpu_multigrid dg_bench_mg delphi-gpu \
    >> "$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    echo "BUILD FAILED"
    exit 1
fi
stamp "built"

(cd build && timeout 120 ctest -L gpu -R 'multigrid|mg' --output-on-failure) \
    > "$out/gpu_test.log" 2>&1
stamp "gpu tests: exit $? (0 passed)"
grep -E "tests passed|FAIL|hand-over|AUTO|\^3 salt" "$out/gpu_test.log" | head -20
./build/kernels/tests/test_gpu_multigrid > "$out/gpu_test_detail.log" 2>&1 || true

bench=./build/delphi_gpu/bench/dg_bench_mg
s385=${SIZES_385:-385}
{
    timeout 60 $bench --backend cuda --precision double --sizes "${SMALL_SIZES:-129,193,257}"
    timeout 60 $bench --backend cuda --precision double --sizes "$s385"
    timeout 60 $bench --backend cuda --precision float --maxc 1e-3 --sizes "$s385"
    timeout 60 $bench --backend cuda --precision mixed --sizes "$s385"
} > "$out/bench_385.log" 2>&1
stamp "bench 385"
cat "$out/bench_385.log"

python3 scripts/bench_inputs.py lattice regression/data/1hpv.pqr 2 2 2 "$out/two.pqr" \
    > /dev/null 2>&1
for solver in mg auto sor; do
    echo "== --solver $solver"
    timeout 60 ./build/host/app/delphi-gpu --pqr "$out/two.pqr" --gsize 385 \
        --solvation-two-run --backend cuda --quiet --energy g,s,c --solver "$solver" \
        --json "$out/program_$solver.json" 2>&1
done > "$out/program.log" 2>&1
rm -f "$out/two.pqr"
stamp "program"
grep -E "^== |solver choice|outcome|solve time|parts|multigrid  |total time|solvation" \
    "$out/program.log"

s769=${SIZES_769:-769}
{
    timeout 90 $bench --backend cuda --precision double --no-sor --sizes "$s769"
    timeout 90 $bench --backend cuda --precision float --maxc 1e-3 --no-sor --sizes "$s769"
} > "$out/bench_769.log" 2>&1
stamp "bench 769"
cat "$out/bench_769.log"

timeout 120 $bench --backend cpu --precision double --sizes "${CPU_SIZES:-65,97,129,161}" \
    > "$out/cpu_auto.log" 2>&1
stamp "cpu"
cat "$out/cpu_auto.log"
