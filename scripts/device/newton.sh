#!/usr/bin/env bash
# Nonlinear PB by Newton on a GPU machine (docs/NONLINEAR.md).  From the repository root, with
# the build configured in build/:
#   1. builds and runs the GPU test test_gpu_newton (CPU vs CUDA Newton, ctest label gpu);
#   2. times linear PB, Newton and DelPhi's scheme with the program on the CUDA backend (double,
#      --maxc 1e-5) on 1hpv (protein-sized, 0.15 M), 1hpv with 40 extra negative charges
#      (-36 e, 0.15 M) and a generated B-DNA-like bundle (-1024 e, 0.15 M and 1 M), scale 2.
# Logs go to "$OUT" (default ./newton_out): ctest.log, one log and JSON per run, and
# summary.txt with one line per run: input, salt, method, outcome, iterations, solve seconds.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/newton_out}
mkdir -p "$OUT"
cmake --build build -j"$(nproc)" --target test_gpu_newton delphi-gpu > "$OUT/build.log" 2>&1 ||
  { echo "build failed (see $OUT/build.log)"; exit 1; }
ctest --test-dir build -R '^test_gpu_newton$' --output-on-failure > "$OUT/ctest.log" 2>&1
echo "test_gpu_newton: exit $? (log: $OUT/ctest.log)"

python3 scripts/make_charged_inputs.py dna "$OUT/dna_bundle.pqr" &&
  python3 scripts/make_charged_inputs.py protein regression/data/1hpv.pqr "$OUT/1hpv_m36.pqr" ||
  { echo "could not generate the charged inputs"; exit 1; }
prog=build/host/app/delphi-gpu
summary="$OUT/summary.txt"
: > "$summary"
for input in regression/data/1hpv.pqr:0.15 "$OUT/1hpv_m36.pqr":0.15 "$OUT/dna_bundle.pqr":0.15 \
  "$OUT/dna_bundle.pqr":1.0; do
  pqr=${input%:*}
  salt=${input##*:}
  for method in linear newton delphi; do
    tag="$(basename "$pqr" .pqr)_${salt}M_$method"
    extra=(--nonit 50 --nonlinear "$method")
    [ "$method" = linear ] && extra=()
    timeout 120 "$prog" --pqr "$pqr" --scale 2 --perfil 70 --salt "$salt" --maxc 1e-5 \
      --backend cuda --energy g,ion --quiet --json "$OUT/$tag.json" "${extra[@]}" \
      > "$OUT/$tag.log" 2>&1
    status=$?
    line=$(grep -E '^outcome' "$OUT/$tag.log" | cut -c24-)
    solve=$(grep -E '^solve time' "$OUT/$tag.log" | cut -c24-)
    grid=$(grep -E '^grid ' "$OUT/$tag.log" | head -1 | cut -c24-)
    [ -z "$line" ] && line="no outcome: $(grep -E 'error' "$OUT/$tag.log" | head -1)"
    echo "$tag | exit $status | $line | $solve | $grid" | tee -a "$summary"
  done
done
