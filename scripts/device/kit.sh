#!/usr/bin/env bash
# The DelPhi kit on a GPU machine (run from the repository root, with build/ configured and
# built, or BUILD=<folder>; writes logs under $OUT):
#   1. the kit's ctest tests (label fortran) on the GPU (DELPHI_GPU_BACKEND=auto), when the build
#      has them (KIT_CTEST=0 skips this: a machine without gfortran has none);
#   2. test_delphi_compat_kept with DG_TEST_BACKEND=cuda (the solver kept between calls gives
#      what a fresh one gives, bit for bit, on the GPU);
#   3. kit_bench: the itit call and its parts (check, handle, prepare, upload, check_phi, load,
#      spectral, loop, store, finish, release; delphi_compat_internal.h), each configuration in a
#      fresh process (a cold CUDA start, as in a DelPhi run), two calls per process (DelPhi's
#      focusing / two-run: the second reuses the kept solver):
#        - AChE-sized grids 193^3 and 219^3 with a protein stand-in (a dielectric sphere with
#          its boundary points and 4000 charges), without and with salt, single precision: on
#          CUDA without the early start, with the early start (--early 0.5 stands in for 0.5 s
#          of DelPhi's own set-up; the warm-up of dg_delphi_begin_warm_up), and with CUDA's
#          start-up alone (--warm 0), and on the CPU backend;
#        - the Born-ion series 17^3 .. 193^3 (uniform medium) for the CPU/GPU crossover.
#      Read off beyond_loop_s (target <= 0.020 s per call at 219^3) and which part dominates;
#   4. process wall time of a Born-sized run on the CPU without and with an early start that
#      has no time to finish (--early 0; the program waits for the warm-up thread at exit, as
#      the kit's library does): what the early start costs a tiny DelPhi run (stock: ~0.02 s).
# Budget: about 1-2 minutes of GPU time.
set -uo pipefail
OUT=${OUT:-$PWD/kit_out}
BUILD=${BUILD:-build}
mkdir -p "$OUT"
bench=$BUILD/patches/kit_bench
[ -x "$bench" ] || { echo "kit.sh: $bench not built (cmake --build $BUILD --target kit_bench)"; exit 1; }
nvidia-smi -L > "$OUT/gpu.txt" 2>&1

if [ "${KIT_CTEST:-1}" = 1 ]; then
  DELPHI_GPU_BACKEND=auto ctest --test-dir "$BUILD" -L fortran --output-on-failure \
    > "$OUT/ctest_fortran.log" 2>&1
  echo "ctest -L fortran: rc=$? (log ctest_fortran.log)"
fi

# The kept solver on the GPU: each call of a sequence gives bit for bit what a fresh solver gives.
DG_TEST_BACKEND=cuda "$BUILD/delphi_gpu/tests/test_delphi_compat_kept" > "$OUT/kept_cuda.log" 2>&1
echo "test_delphi_compat_kept on CUDA: rc=$? (log kept_cuda.log)"

# The parts, one line per call, shortened for the log's summary.
short() { sed -E 's/ (check|spectral|release)=[0-9.]+//g'; }

{
  for n in 193 219; do
    for salt in 0 1; do
      common=(--igrid "$n" --medium sphere --salt "$salt" --calls 2)
      "$bench" "${common[@]}" --backend cuda | sed 's/$/ [cold]/'
      "$bench" "${common[@]}" --backend cuda --early 0.5 | sed 's/$/ [early warm-up]/'
      "$bench" "${common[@]}" --backend cuda --early 0.5 --warm 0 | sed 's/$/ [early start only]/'
      "$bench" "${common[@]}" --backend cpu | sed 's/$/ [cpu]/'
    done
  done
} > "$OUT/kit_bench_ache.log" 2>&1
echo "kit_bench AChE-sized: rc=$? (log kit_bench_ache.log)"
short < "$OUT/kit_bench_ache.log"

{
  for n in 17 33 49 65 97 129 161 193; do
    "$bench" --igrid "$n" --backend cpu --calls 2
    "$bench" --igrid "$n" --backend cuda --calls 2
    "$bench" --igrid "$n" --backend cuda --calls 1 --early 0.5 | sed 's/$/ (early start)/'
  done
} > "$OUT/kit_bench.log" 2>&1
echo "kit_bench Born series: rc=$? (log kit_bench.log)"
short < "$OUT/kit_bench.log" | sed -E 's/ (prepare|upload|check_phi|finish)=[0-9.]+//g'

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
