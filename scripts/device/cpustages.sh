#!/bin/bash
# The stages around the solve on a GPU machine (issue 9): the GPU and CPU checks of the stage
# operations and the calculation layer, whole delphi-gpu runs with their stage parts, then the
# host geometry stages and the pair sums alone (dg_bench_stages).  The runs:
#   two-run  copies of 1hpv on a 2x2x2 lattice (25 024 atoms) at gsize 385, --solvation-two-run,
#            on CUDA and on the CPU backend (16 threads, multigrid when the build has it)
#   frames   8 models of the first 2 000 atoms of 1hpv at gsize 141 in one process (--frames)
#   10k      the first 10 000 atoms of a 2x2x1 lattice of 1hpv, scale 2, perfil 80, CPU backend
# Run from the repository root; the build directory is $BUILD (default build).  Logs go to $OUT
# (or ./device-logs), a summary to stdout.
#   CPUSTAGES_SMALL=1   small inputs, CPU backend only (checks the script on a machine without a
#                       GPU)
#   CPUSTAGES_LARGE=1   also the 250 240-atom lattice at 0.5 A on CUDA
set -u
out=${OUT:-$PWD/device-logs}
build=${BUILD:-build}
mkdir -p "$out/inputs"
small=${CPUSTAGES_SMALL:-0}
gpu=cuda
[ "$small" = 1 ] && gpu=""
threads=$(nproc)
[ "$threads" -gt 16 ] && threads=16
{ date -u; nvidia-smi 2>&1 | head -15; nproc; lscpu 2>/dev/null | grep -E "Model name|Flags" | cut -c1-300; } \
    > "$out/cpustages_machine.txt" 2>&1

start=$SECONDS
if ! cmake --build "$build" -j"$(nproc)" --target delphi-gpu dg_bench_stages test_stage_pairs \
        test_gpu_stages test_calc_gpu test_calc_stage_medium test_calc_surface \
        > "$out/cpustages_build.log" 2>&1; then
    tail -30 "$out/cpustages_build.log"
    echo "BUILD FAILED"
    exit 1
fi
echo "build: ok ($((SECONDS - start)) s)"

# 1. Tests: the CPU pair sums bit for bit against the in-order loop, the host medium builder
#    against the stage operation (unit); CPU vs CUDA pair sums, medium maps, sites and whole
#    calculations (gpu; they skip without a device).
(cd "$build" && ctest -R '^(test_stage_pairs|calc_stage_medium|calc_surface)$' -L unit \
    --output-on-failure && ctest -L gpu -R 'stage|calc' --output-on-failure) \
    > "$out/cpustages_ctest.log" 2>&1
grep -E "tests passed|tests failed|Passed|Failed|Skipped|\*\*\*" "$out/cpustages_ctest.log"
[ -n "$gpu" ] && "$build"/kernels/tests/test_gpu_stages 2>&1 | grep -E "bitwise|FAIL" | head -12

# 2. Inputs (scripts/bench_inputs.py).
gen="python3 scripts/bench_inputs.py"
in=$out/inputs
if [ "$small" = 1 ]; then
    $gen lattice regression/data/1ubq.pqr 2 1 1 "$in/two_run.pqr" > /dev/null
    $gen first regression/data/1hpv.pqr 500 "$in/first.pqr" > /dev/null
    $gen first regression/data/1hpv.pqr 2000 "$in/p10k.pqr" > /dev/null
    grid_two_run=97 grid_frames=65
else
    $gen lattice regression/data/1hpv.pqr 2 2 2 "$in/two_run.pqr" > /dev/null
    $gen first regression/data/1hpv.pqr 2000 "$in/first.pqr" > /dev/null
    $gen lattice regression/data/1hpv.pqr 2 2 1 "$in/l221.pqr" > /dev/null
    $gen first "$in/l221.pqr" 10000 "$in/p10k.pqr" > /dev/null
    grid_two_run=385 grid_frames=141
fi
$gen frames "$in/first.pqr" 8 "$in/frames.pqr" > /dev/null

# 4. Whole runs: the log's stage lines.
solver_mg=""
"$build"/host/app/delphi-gpu --help 2>&1 | grep -q -- "--solver" && solver_mg="--solver mg"
run() { # name backend args...
    local name=$1 backend=$2
    shift 2
    local t0=$SECONDS
    "$build"/host/app/delphi-gpu --backend "$backend" --energy g,s,c --quiet \
        --json "$out/cpustages_$name.json" "$@" > "$out/cpustages_$name.log" 2>&1
    echo "== $name ($backend): exit $?, $((SECONDS - t0)) s"
    grep -E "^grid  |boundary points|time \(wall|stage parts|solve parts|reference parts|total time|energy  |solvation" \
        "$out/cpustages_$name.log" | grep -v "^ *$"
}
if [ -n "$gpu" ]; then
    run two_run_cuda cuda --pqr "$in/two_run.pqr" --gsize $grid_two_run --solvation-two-run
fi
# 4b. Frames: 8 models in one process; per-frame stage times from the JSON lines.
frames_backend=${gpu:-cpu}
t0=$(date +%s%N)
"$build"/host/app/delphi-gpu --pqr "$in/frames.pqr" --gsize $grid_frames --frames \
    --backend "$frames_backend" --energy g,s,c --quiet --jsonl "$out/cpustages_frames.jsonl" \
    > "$out/cpustages_frames.log" 2>&1
echo "== frames ($frames_backend): exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms wall"
python3 - "$out/cpustages_frames.jsonl" <<'PY'
import json, sys
cols = ("surface", "medium", "charges", "boundary", "solve", "energies", "total")
print("frame " + "".join("%10s" % c for c in cols) + "   (ms)")
total = 0.0
for line in open(sys.argv[1]):
    run = json.loads(line)
    t = (run.get("summary") or {}).get("timing_s") or {}
    total += t.get("total") or 0.0
    print("%5s " % (run.get("model") or run.get("run"))
          + "".join("%10.2f" % (1000.0 * (t.get(c) or 0.0)) for c in cols))
print("sum of the frames' totals: %.3f s" % total)
PY

# 5. Whole runs on the CPU backend.
# shellcheck disable=SC2086
run two_run_cpu cpu --pqr "$in/two_run.pqr" --gsize $grid_two_run --solvation-two-run \
    --threads $threads $solver_mg
run p10k_cpu cpu --pqr "$in/p10k.pqr" --scale 2 --perfil 80 --threads $threads

# 6. The host geometry stages (surface model, medium maps, surface sites; checksums) and the
#    pair sums alone, on $threads threads.
bench=$build/host/bench/dg_bench_stages
{
    OMP_NUM_THREADS=$threads $bench geometry "$in/two_run.pqr" 2 80 3
    OMP_NUM_THREADS=$threads $bench geometry "$in/first.pqr" 2 80 5
    OMP_NUM_THREADS=$threads $bench pairs "$in/two_run.pqr" 300000 cpu $gpu
} > "$out/cpustages_bench.log" 2>&1
cat "$out/cpustages_bench.log"

if [ "${CPUSTAGES_LARGE:-0}" = 1 ] && [ -n "$gpu" ]; then
    $gen lattice regression/data/1hpv.pqr 4 4 5 "$in/lattice.pqr" > /dev/null
    run lattice_05A cuda --pqr "$in/lattice.pqr" --scale 2
fi
rm -rf "$in"
echo "cpustages.sh: done ($SECONDS s)"
