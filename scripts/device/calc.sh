#!/usr/bin/env bash
# GPU checks and the end-to-end benchmark of the calculation layer (run on the GPU machine from
# the repository root, with the build configured in build/; logs under "$OUT").
#   1. ctest: calc_gpu (the layer on CUDA vs CPU; warm re-runs vs fresh handles, bit for bit)
#      and app_gpu (the program, CPU vs CUDA on examples/1ubq).
#   2. scripts/bench_e2e.sh on cuda: 1ubq, 1hpv, a batch of 8 frames of 2 000 atoms at 141^3
#      (one process), the 25 024-atom two-run at 385^3, the 250 240-atom lattice at 1 A spacing
#      (each run cut at 150 s: the host-side energies of the lattice may not finish).
#   3. scripts/bench_e2e.sh --small on cpu and cuda (the same small inputs on both).
# Prints each stage table; OUT/calc_bench_full/table.txt and OUT/calc_bench_small/table.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/calc_out}"
mkdir -p "$out"
cmake --build build -j"$(nproc)" --target delphi-gpu test_calc_gpu test_app_gpu \
  > "$out/calc_build.log" 2>&1 || { tail -30 "$out/calc_build.log"; exit 1; }
ctest --test-dir build -R '^(calc_gpu|app_gpu)$' --output-on-failure 2>&1 | tee "$out/calc_ctest.log"
nvidia-smi --query-gpu=name,memory.total --format=csv > "$out/calc_gpu.txt" 2>&1
bash scripts/bench_e2e.sh --backends cuda --run-timeout 150 --out "$out/calc_bench_full" 2>&1 |
  tee "$out/calc_bench_full.log"
bash scripts/bench_e2e.sh --small --backends "cpu cuda" --run-timeout 60 \
  --out "$out/calc_bench_small" 2>&1 |
  tee "$out/calc_bench_small.log"
# Keep the tables and logs, not the generated inputs (hundreds of MB).
rm -rf "$out/calc_bench_full/inputs" "$out/calc_bench_small/inputs"
rm -f "$out"/calc_bench_*/*.phi "$out"/calc_bench_*/*.frc
