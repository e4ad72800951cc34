#!/usr/bin/env bash
# Host-side overheads of a solve on a GPU machine (transfers, phi check, spectral radius).  From
# the repository root with the build configured in ${BUILD:-build} (scripts/configure.sh); logs
# under ${OUT:-./device-out}/transfers:
#   tests.log  test_gpu_transfers first (faces-only load = full load bit for bit in double, float
#              and mixed, for float and double arrays; load/store round trips on a grid of one
#              slab and of several slabs; the solver's choice of the faces-only load), then
#              ctest -L gpu without the sanitizers (every GPU test; "100% tests passed" expected)
#   parts.log  the program's "solve parts" and "reference parts" lines (medium upload, phi check,
#              load, spectral radius, iterations, store) and wall times: the 25 024-atom two-run
#              at 385^3 and the first 2 000 atoms of 1hpv at 141^3 (backend cuda), two runs each
# With BEFORE=<a build directory of another tree> the runs alternate between that tree's program
# and this one, for a before/after table (lines tagged "before" and "after").
set -u
build=${BUILD:-build}
out=${OUT:-$PWD/device-out}/transfers
mkdir -p "$out/runs"
export PATH=$PATH:/usr/local/cuda/bin
start=$SECONDS
if ! cmake --build "$build" -j"$(nproc)" --target test_gpu_transfers delphi-gpu \
    > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    echo "transfers.sh: build failed"
    exit 2
fi
echo "build: $((SECONDS - start)) s"

{
    echo "== test_gpu_transfers"
    timeout 60 "$build/kernels/tests/test_gpu_transfers"
    echo "== test_gpu_transfers exit $?"
} > "$out/tests.log" 2>&1
grep -E "^== |^FAIL|all checks passed|check\(s\) failed|SKIPPED" "$out/tests.log"

python3 scripts/bench_inputs.py lattice regression/data/1hpv.pqr 2 2 2 "$out/runs/two.pqr" \
    > /dev/null
python3 scripts/bench_inputs.py first regression/data/1hpv.pqr 2000 "$out/runs/first.pqr" \
    > /dev/null
{
    for rep in 1 2; do
        for entry in "two-run|--pqr $out/runs/two.pqr --gsize 385 --solvation-two-run" \
            "2000-atoms|--pqr $out/runs/first.pqr --gsize 141"; do
            name=${entry%%|*}
            for tag in before after; do
                program=$build/host/app/delphi-gpu
                if [ "$tag" = before ]; then
                    [ -n "${BEFORE:-}" ] || continue
                    program=$BEFORE/host/app/delphi-gpu
                fi
                log=$out/runs/${name}_${tag}_$rep.log
                # shellcheck disable=SC2086
                timeout 60 "$program" ${entry#*|} --backend cuda --quiet --energy g,s,c \
                    > "$log" 2>&1
                echo "== $name $tag run $rep (exit $?)"
                grep -E "time \(wall s\)|solve parts|reference parts|total time|energy" "$log"
            done
        done
    done
} > "$out/parts.log" 2>&1
cat "$out/parts.log"

start=$SECONDS
cmake --build "$build" -j"$(nproc)" >> "$out/build.log" 2>&1 || echo "transfers.sh: full build failed"
(cd "$build" && timeout 300 ctest -L gpu -E sanitizers --timeout 120 -j1) >> "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -20
echo "ctest: $((SECONDS - start)) s"
