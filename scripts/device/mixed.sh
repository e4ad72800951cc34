#!/usr/bin/env bash
# Mixed precision on a GPU machine (issue 10).  From the repository root, with the build
# configured in ${BUILD:-build} (scripts/configure.sh; use a fresh folder name for a build
# configured on the device).  Logs go to ${OUT:-./device-out}/mixed:
#   tests.log   ctest -L gpu -R mixed -V: test_gpu_mixed (CUDA mixed = CPU mixed bit for bit, CUDA
#               mixed vs CUDA double, float's resolution stop on both backends)
#   bench.log   the program (backend cuda) on a 24k-atom lattice of 1hpv copies (two-run
#               solvation, 385^3, maxc=0.00001) and on 1hpv at 225^3 (0.15 M), in double and
#               mixed: outcome and iterations, "solve parts" (iterations time), energies; then
#               the mixed/double ratios (targets: iterations <= 1.1x, iterations time <= 0.65x,
#               energies within 1e-7 relative)
#   runs/       the program's log of every run
# About 1-2 minutes of GPU time after the build.
set -u
build=${BUILD:-build}
out=${OUT:-$PWD/device-out}/mixed
mkdir -p "$out/runs"
export PATH=$PATH:/usr/local/cuda/bin
start=$SECONDS
if ! cmake --build "$build" -j"$(nproc)" --target test_gpu_mixed delphi-gpu > "$out/build.log" 2>&1
then
    tail -30 "$out/build.log"
    echo "mixed.sh: build failed"
    exit 2
fi
echo "build: $((SECONDS - start)) s"
(ctest --test-dir "$build" -L gpu -R mixed -V --timeout 120 > "$out/tests.log" 2>&1)
grep -E "tests passed|tests failed|Passed|Failed|\*\*\*" "$out/tests.log"
grep -E "(linear PB|Poisson|nonlinear PB) " "$out/tests.log" || true

program=$PWD/$build/host/app/delphi-gpu
python3 scripts/bench_inputs.py lattice regression/data/1hpv.pqr 2 2 2 "$out/runs/two.pqr" \
    > /dev/null
run() { # name, args...
    local name=$1
    shift
    (cd "$out/runs" && timeout 60 "$program" "$@" > "$name.log" 2>&1)
    echo "== $name exit $?"
    grep -E "^outcome|solve parts|grid energy|reaction field energy|coulombic energy" \
        "$out/runs/$name.log"
}
{
    for p in double mixed; do
        run "two_385_$p" --pqr two.pqr --gsize 385 --maxc 0.00001 --backend cuda \
            --precision "$p" --quiet --energy g,s,c
        run "1hpv_225_$p" --pqr "$PWD/regression/data/1hpv.pqr" --gsize 225 --salt 0.15 \
            --maxc 0.00001 --backend cuda --precision "$p" --quiet --energy g,s,c
    done
} > "$out/bench.log" 2>&1
# Ratios per case: iterations (summed over the solves), iterations time, energies.
for c in two_385 1hpv_225; do
    d=$out/runs/${c}_double.log m=$out/runs/${c}_mixed.log
    [ -f "$d" ] && [ -f "$m" ] || continue
    awk -v name="$c" '
        FNR == 1 { file++ }
        /^outcome/ { n = split($0, w, " "); it[file] += w[n - 1] }
        /solve parts/ {
            if (match($0, /iterations [0-9.]+/)) t[file] += substr($0, RSTART + 11, RLENGTH - 11)
        }
        /energy +:/ { split($0, w, ":"); v = w[2] + 0; key = w[1]; e[file, key] = v; keys[key] = 1 }
        END {
            printf "%s: iterations mixed/double %d/%d = %.3f; iterations time %.3f/%.3f s = %.3f\n",
                   name, it[2], it[1], it[1] ? it[2] / it[1] : 0, t[2], t[1], t[1] ? t[2] / t[1] : 0
            for (k in keys) if (e[1, k] != 0) {
                d = (e[2, k] - e[1, k]) / e[1, k]; if (d < 0) d = -d
                printf "  %s rel diff %.2e\n", k, d }
        }' "$d" "$m"
done >> "$out/bench.log"
cat "$out/bench.log"
