#!/usr/bin/env bash
# Mixed precision on a GPU machine (issue 10).  From the repository root, with the build
# configured in build/ (scripts/configure.sh).  Logs go to $OUT (default ./device-out/mixed):
#   tests.log   test_gpu_mixed (CUDA mixed vs CPU mixed, CUDA mixed vs CUDA double, float's
#               resolution stop on both backends), test_gpu_agreement and test_gpu_convergence
#               (the sweep kernels gained a mode), then test_gpu_mixed under compute-sanitizer
#               memcheck (exit 0 expected)
#   bench.log   the program (backend cuda) on regression/data/1hpv.pqr, 0.15 M salt,
#               maxc=0.00001, at gsize 141, 225 and 385, in double, float and mixed: iterations,
#               outcome, solve time, energies; then mixed/double ratios of iterations and solve
#               time and the relative energy differences (targets: iterations <= 1.1x, energies
#               within 1e-7, solve time <= 0.65x at 385^3)
#   runs/       the program's log of every run
# About 3-5 minutes of GPU time (memcheck at most 150 s of it).
set -u
out=${OUT:-$PWD/device-out}/mixed
mkdir -p "$out/runs"
export PATH=$PATH:/usr/local/cuda/bin
start=$SECONDS
if ! cmake --build build -j"$(nproc)" --target test_gpu_mixed test_gpu_agreement \
        test_gpu_convergence delphi-gpu > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    echo "mixed.sh: build failed"
    exit 2
fi
echo "build: $((SECONDS - start)) s"

start=$SECONDS
{
    for t in test_gpu_mixed test_gpu_agreement test_gpu_convergence; do
        echo "== $t"
        timeout 200 build/kernels/tests/$t
        echo "== $t exit $?"
    done
} > "$out/tests.log" 2>&1
{
    # The new kernels under memcheck (slow: the whole mixed test, at most 150 s).
    if command -v compute-sanitizer > /dev/null; then
        echo "== memcheck test_gpu_mixed"
        timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
            build/kernels/tests/test_gpu_mixed
        echo "== memcheck test_gpu_mixed exit $? (124 = timed out, 9 = memcheck errors)"
    fi
} >> "$out/tests.log" 2>&1
grep -E "^== |^FAIL|all checks passed|check\(s\) failed|SKIPPED" "$out/tests.log"
echo "tests: $((SECONDS - start)) s"

program=build/host/app/delphi-gpu
pqr=$PWD/regression/data/1hpv.pqr
start=$SECONDS
{
    printf "%-5s %-7s %6s %-26s %9s %18s %18s\n" gsize precision iters outcome solve_s \
        grid_energy_kT corr_rf_kT
    for n in 141 225 385; do
        for p in double float mixed; do
            prm=$out/runs/run_$n.prm
            printf 'in(pqr,file="%s")\ngsize=%d\nperfil=70\nindi=2\nexdi=80\nsalt=0.15\n' \
                "$pqr" "$n" > "$prm"
            printf 'bndcon=2\nmaxc=0.00001\nenergy(g,s)\n' >> "$prm"
            log=$out/runs/run_${n}_$p.log
            (cd "$out/runs" && timeout 120 "$OLDPWD/$program" "$prm" --backend cuda \
                --precision "$p" > "$log" 2>&1)
            status=$?
            iters=$(grep -m1 -oE "outcome +: .* after [0-9]+" "$log" | grep -oE "[0-9]+$")
            outcome=$(grep -m1 -E "^outcome +:" "$log" | sed -E 's/^outcome +: (.*) after.*/\1/')
            solve=$(grep -m1 -E "^solve time" "$log" | grep -oE "[0-9.]+ s" | head -1)
            grid=$(grep -m1 "total grid energy" "$log" | grep -oE "[-0-9.]+ kT" | head -1)
            rf=$(grep -m1 "corrected reaction field energy" "$log" | grep -oE "[-0-9.]+ kT")
            printf "%-5s %-7s %6s %-26s %9s %18s %18s exit %s\n" "$n" "$p" "${iters:-?}" \
                "${outcome:-?}" "${solve% s}" "${grid% kT}" "${rf% kT}" "$status"
        done
    done
} > "$out/bench.log" 2>&1
awk '$1 ~ /^[0-9]+$/ { if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }
                       it[$1, $2] = $3; t[$1, $2] = $(NF - 4); g[$1, $2] = $(NF - 3)
                       r[$1, $2] = $(NF - 2) }
     END { for (i = 1; i <= k; ++i) {
             n = order[i]
             if (!((n, "double") in it) || !((n, "mixed") in it)) continue
             gd = g[n, "double"]; rd = r[n, "double"]; td = t[n, "double"]
             printf "gsize %s: mixed/double iterations %s/%s, solve time ratio %.3f, ", n,
                    it[n, "mixed"], it[n, "double"], (td > 0 ? t[n, "mixed"] / td : 0)
             printf "grid energy rel diff %.2e, corrected rf rel diff %.2e; float %s iterations\n",
                    (g[n, "mixed"] - gd) / (gd == 0 ? 1 : gd),
                    (r[n, "mixed"] - rd) / (rd == 0 ? 1 : rd), it[n, "float"] } }' "$out/bench.log" >> "$out/bench.log"
cat "$out/bench.log"
echo "bench: $((SECONDS - start)) s"
