#!/usr/bin/env bash
# Mixed precision's speed against double (issue 10: mixed solve time <= 0.65x double's at
# >= 385^3) on a GPU machine.  From the repository root; configures build/ if it is missing
# (BUILD=dir for another folder), builds only what it runs.  Logs go to ${OUT:-./device-out}/
# mixed_speed:
#   tests.log   ctest -L gpu -R "agreement|mixed": test_gpu_agreement (every forced sweep
#               variant, the wide kernels of 2 and 4 pairs per thread included, = CPU bit for
#               bit) and test_gpu_mixed (CUDA mixed = CPU mixed, also with 2 pairs per thread)
#   bench.log   delphi-gpu on regression/data/1hpv.pqr at 385^3, SOR, maxc 1e-5, without salt
#               and with 0.15 M, in double, float and mixed: outcome and iterations, the solve
#               time, the "solve parts" line, the grid energy; then per input the mixed/double
#               ratios of iterations (target <= 1.1), iterations time and solve time (target
#               <= 0.65) and the grid energy's relative difference (target <= 1e-7), and
#               float/double for reference
#   sweeps.log  dg_bench_gpu --only-sweeps at 385^3 in float: the autotune's table (ms for 2
#               iterations of every candidate, wW = pairs per thread) and the kept shape
#   runs/       the program's log of every run
# About 2 minutes with the build.
set -u
build=${BUILD:-build}
out=${OUT:-$PWD/device-out}/mixed_speed
mkdir -p "$out/runs"
export PATH=$PATH:/usr/local/cuda/bin
start=$SECONDS
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 2; }
fi
if ! cmake --build "$build" -j16 --target delphi-gpu test_gpu_agreement test_gpu_mixed dg_bench_gpu \
    > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    echo "mixed_speed.sh: build failed"
    exit 2
fi
echo "build: $((SECONDS - start)) s"
(ctest --test-dir "$build" -L gpu -R "agreement|mixed" -V --timeout 120 > "$out/tests.log" 2>&1)
grep -E "tests passed|tests failed|Passed|Failed|FAIL|\*\*\*" "$out/tests.log"

bench=$(find "$build" -name dg_bench_gpu -type f -perm -u+x | head -1)
[ -n "$bench" ] && timeout 60 "$bench" --only-sweeps --sizes 385 --precision float \
    > "$out/sweeps.log" 2>&1
grep -E "autotune|kept|bare|G upd" "$out/sweeps.log" | cut -c1-2000

program=$PWD/$build/host/app/delphi-gpu
pqr=$PWD/regression/data/1hpv.pqr
run() { # name, args...
    local name=$1
    shift
    (cd "$out/runs" && timeout 60 "$program" "$@" > "$name.log" 2>&1)
    echo "== $name exit $?"
    grep -E "^outcome|^time \(wall s\)|solve parts|grid energy" "$out/runs/$name.log"
}
{
    for salt in 0 0.15; do
        for p in double float mixed; do
            args=(--pqr "$pqr" --gsize 385 --backend cuda --precision "$p" --solver sor
                --maxc 0.00001 --quiet --energy g)
            [ "$salt" != 0 ] && args+=(--salt "$salt")
            run "salt${salt}_$p" "${args[@]}"
        done
    done
} > "$out/bench.log" 2>&1
# Per input: iterations, iterations time and solve time, grid energy; ratios to double.
for salt in 0 0.15; do
    d=$out/runs/salt${salt}_double.log
    for p in float mixed; do
        m=$out/runs/salt${salt}_$p.log
        [ -f "$d" ] && [ -f "$m" ] || continue
        awk -v name="1hpv 385^3 salt $salt: $p/double" '
            FNR == 1 { file++ }
            /^outcome/ { if (match($0, /after [0-9]+ iterations/)) it[file] = substr($0, RSTART + 6, RLENGTH - 17) + 0 }
            /^time \(wall s\)/ { if (match($0, /solve [0-9.]+/)) s[file] = substr($0, RSTART + 6, RLENGTH - 6) + 0 }
            /solve parts/ { if (match($0, /iterations [0-9.]+/)) t[file] = substr($0, RSTART + 11, RLENGTH - 11) + 0 }
            /grid energy/ { split($0, w, ":"); e[file] = w[2] + 0 }
            END {
                printf "%s: iterations %d/%d = %.3f; iterations time %.3f/%.3f s = %.3f; ", name,
                       it[2], it[1], it[1] ? it[2] / it[1] : 0, t[2], t[1], t[1] ? t[2] / t[1] : 0
                printf "solve %.3f/%.3f s = %.3f", s[2], s[1], s[1] ? s[2] / s[1] : 0
                if (e[1] != 0) { r = (e[2] - e[1]) / e[1]; if (r < 0) r = -r; printf "; grid energy rel diff %.2e", r }
                printf "\n"
            }' "$d" "$m"
    done
done >> "$out/bench.log"
cat "$out/bench.log"
echo "total: $((SECONDS - start)) s"
