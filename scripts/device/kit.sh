#!/usr/bin/env bash
# The DelPhi kit on a GPU machine (run from the repository root, with build/ configured and
# built; writes logs under $OUT):
#   1. the kit's ctest tests (label fortran) on the GPU (DELPHI_GPU_BACKEND=auto);
#   2. kit_bench: the itit call on Born-ion-sized (17^3) up to AChE-sized (193^3) grids, CPU and
#      GPU, each in a fresh process (a cold CUDA start, as in a DelPhi run), with and without
#      the early CUDA start-up that the kit begins when DelPhi starts (--early 0.5 stands in for
#      0.5 s of DelPhi's own set-up).  Read off:
#        - the crossover: the smallest igrid where "cuda early" call_s beats "cpu" call_s; set
#          DG_DELPHI_GPU_MIN_POINTS (delphi_compat.h) to about that igrid^3;
#        - the kit's own cost: beyond_loop_s of the warm call (call=2) and of the early-start
#          first call, target <= 0.020 s at 193^3;
#        - the cost of a cold start without the early start (cuda, call=1).
#   3. process wall time of a Born-sized run on the CPU without and with an early start that
#      has no time to finish (--early 0; the program waits for the start-up thread at exit, as
#      the kit's library does): what the early start costs a tiny DelPhi run (stock: ~0.02 s).
# Budget: about 1-2 minutes of GPU time.
set -uo pipefail
OUT=${OUT:-$PWD/kit_out}
mkdir -p "$OUT"
bench=build/patches/kit_bench
[ -x "$bench" ] || { echo "kit.sh: $bench not built (cmake --build build --target kit_bench)"; exit 1; }
nvidia-smi -L > "$OUT/gpu.txt" 2>&1

DELPHI_GPU_BACKEND=auto ctest --test-dir build -L fortran --output-on-failure \
  > "$OUT/ctest_fortran.log" 2>&1
echo "ctest -L fortran: rc=$? (log ctest_fortran.log)"

{
  for n in 17 33 49 65 97 129 161 193; do
    "$bench" --igrid "$n" --backend cpu --calls 2
    "$bench" --igrid "$n" --backend cuda --calls 2
    "$bench" --igrid "$n" --backend cuda --calls 1 --early 0.5 | sed 's/$/ (early start)/'
  done
} > "$OUT/kit_bench.log" 2>&1
echo "kit_bench: rc=$? (log kit_bench.log)"
cat "$OUT/kit_bench.log"

{
  for early in none 0; do
    for rep in 1 2 3; do
      args=(--igrid 17 --backend cpu --calls 1)
      [ "$early" = none ] || args+=(--early "$early")
      t0=$(date +%s.%N)
      "$bench" "${args[@]}" > /dev/null
      t1=$(date +%s.%N)
      echo "born-size process, cpu backend, early start ${early}: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
    done
  done
} > "$OUT/process_time.log" 2>&1
cat "$OUT/process_time.log"
