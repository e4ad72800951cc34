#!/bin/bash
# The stage operations on a GPU machine (run from the repository root, the build configured in
# build/): their GPU tests, the same under compute-sanitizer memcheck, the pair-sum benchmark and
# whole delphi-gpu runs on generated large inputs, with the per-stage and per-part times.
# Logs go to $OUT (or ./device-logs); a summary to stdout.
#   STAGES_SMALL=1   small inputs on the CPU backend only (checks the script without a GPU)
#   STAGES_CPU=1     also the 24k-atom two-run on the CPU backend (about a minute on 16 threads)
#   STAGES_LARGE=1   also the 250k-atom input at 0.5 A (grid >= 640^3)
set -u
out=${OUT:-$PWD/device-logs}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
small=${STAGES_SMALL:-0}
gpu=cuda
[ "$small" = 1 ] && gpu=cpu
{ date -u; nvidia-smi 2>&1 | head -15; nproc; } > "$out/stages_machine.txt" 2>&1

start=$SECONDS
if ! cmake --build build -j"$(nproc)" --target delphi-gpu dg_bench_stages test_gpu_stages \
        test_calc_stage_medium test_stage_pairs > "$out/stages_build.log" 2>&1; then
    tail -30 "$out/stages_build.log"
    echo "BUILD FAILED"
    exit 1
fi
echo "build: ok ($((SECONDS - start)) s)"

# 1. Tests: the CPU ops against plain references and the host builder (unit), CPU vs CUDA (gpu).
(cd build && ctest -R '^(test_stage_pairs|calc_stage_medium|test_gpu_stages|gpu_stage_medium)$' \
    --output-on-failure) > "$out/stages_ctest.log" 2>&1
grep -E "tests passed|tests failed|Passed|Failed|Skipped|\*\*\*" "$out/stages_ctest.log"
build/kernels/tests/test_gpu_stages > "$out/stages_gpu_pairs.log" 2>&1
grep -E "bitwise|FAIL|SKIPPED" "$out/stages_gpu_pairs.log" | head -20
build/delphi_gpu/tests/calc/test_calc_stage_medium cuda > "$out/stages_gpu_medium.log" 2>&1
grep -E "differ|FAIL|CHECK|SKIPPED" "$out/stages_gpu_medium.log" | head -10

# 2. compute-sanitizer memcheck on small cases.
sanitizer=$(command -v compute-sanitizer 2>/dev/null || true)
if [ "$small" != 1 ] && [ -n "$sanitizer" ]; then
    timeout 300 "$sanitizer" --tool memcheck --leak-check full --error-exitcode 9 \
        build/kernels/tests/test_gpu_stages quick > "$out/stages_memcheck.log" 2>&1
    echo "memcheck pairs: exit $? ($(grep -c "ERROR SUMMARY: 0" "$out/stages_memcheck.log") clean summaries)"
    timeout 300 "$sanitizer" --tool memcheck --leak-check full --error-exitcode 9 \
        build/delphi_gpu/tests/calc/test_calc_stage_medium cuda >> "$out/stages_memcheck.log" 2>&1
    echo "memcheck medium: exit $?"
    grep "ERROR SUMMARY" "$out/stages_memcheck.log"
fi

# 3. Whole run on 1hpv, CPU backend vs the GPU backend: the energies of the JSON summaries
#    (17 digits), relative difference (the target is <= 1e-10).
for backend in cpu $gpu; do
    build/host/app/delphi-gpu --pqr regression/data/1hpv.pqr --scale 2 --salt 0.15 \
        --energy g,s,c --precision double --backend $backend --maxc 1e-6 --quiet \
        --json "$out/stages_1hpv_$backend.json" > "$out/stages_1hpv_$backend.log" 2>&1
    grep -o '"\(grid\|coulombic\|reaction_field_corrected\|total_reaction_field\)": *-\?[0-9][0-9.e+-]*' \
        "$out/stages_1hpv_$backend.json" | awk -F: '!seen[$1]++' > "$out/stages_1hpv_$backend.energies"
done
paste -d'|' "$out/stages_1hpv_cpu.energies" "$out/stages_1hpv_$gpu.energies" |
    awk -F'|' '{ split($1, a, ":"); split($2, b, ":"); x = a[2] + 0; y = b[2] + 0;
                 d = x - y; if (d < 0) d = -d; r = x; if (r < 0) r = -r; rel = d;
                 if (r > 0) rel = d / r;
                 printf "1hpv cpu vs '$gpu': %-28s %.17g vs %.17g  rel %.2e\n", a[1], x, y, rel }'

# 4. Generated inputs: copies of 1hpv (3128 atoms) on a lattice.
bench=build/host/bench/dg_bench_stages
big=250000 mid=24000
[ "$small" = 1 ] && big=12000 mid=6000
$bench lattice regression/data/1hpv.pqr $big "$out/stages_big.pqr" | tee "$out/stages_inputs.log"
$bench lattice regression/data/1hpv.pqr $mid "$out/stages_mid.pqr" | tee -a "$out/stages_inputs.log"

# 5. The pair sums alone: Coulombic upper triangle and boundary-like points x atoms.
targets=665000 mid_targets=200000
[ "$small" = 1 ] && targets=20000 mid_targets=20000
{
    $bench pairs "$out/stages_mid.pqr" $mid_targets cpu $gpu
    $bench pairs "$out/stages_big.pqr" $targets $gpu
} > "$out/stages_pairs.log" 2>&1
cat "$out/stages_pairs.log"

# 6. Whole runs, per-stage and per-part times (the program's log lines).
run() { # name backend args...
    local name=$1 backend=$2
    shift 2
    local t0=$SECONDS
    build/host/app/delphi-gpu --backend "$backend" --precision double --energy g,s,c --quiet \
        --json "$out/stages_$name.json" "$@" > "$out/stages_$name.log" 2>&1
    echo "== $name ($backend): exit $?, $((SECONDS - t0)) s"
    grep -E "^grid  |boundary points|time \(wall|stage parts|solve parts|reference parts|total time|energy" \
        "$out/stages_$name.log" | grep -v "^ *$"
}
if [ "$small" = 1 ]; then
    run big_small cpu --pqr "$out/stages_big.pqr" --scale 1 --threads "$(nproc)"
    run mid_small_two_run cpu --pqr "$out/stages_mid.pqr" --scale 1 --solvation-two-run \
        --threads "$(nproc)"
else
    run big_1A cuda --pqr "$out/stages_big.pqr" --scale 1
    run mid_385_two_run cuda --pqr "$out/stages_mid.pqr" --gsize 385 --scale 2 --solvation-two-run
    [ "${STAGES_CPU:-0}" = 1 ] && run mid_385_two_run_cpu cpu --pqr "$out/stages_mid.pqr" \
        --gsize 385 --scale 2 --solvation-two-run --threads 16
    [ "${STAGES_LARGE:-0}" = 1 ] && run big_05A cuda --pqr "$out/stages_big.pqr" --scale 2
fi
rm -f "$out"/stages_*.pqr
echo "stages.sh: done ($SECONDS s)"
