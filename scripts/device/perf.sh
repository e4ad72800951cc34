#!/bin/bash
# Host-side costs of a whole run on a GPU machine (run from the repository root, the build
# configured in build/): the end-to-end benchmark on the CUDA backend (1ubq, 1hpv, the 2 000-atom
# batch, the 25 024-atom two-run at 385^3, the 250 240-atom lattice at 1 A), its stage table and
# the program's "solve parts" / "stage parts" lines of every run.  Logs go to $OUT (or
# ./device-logs); the table to stdout.  About a minute of GPU time.
set -u
out=${OUT:-$PWD/device-logs}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
{ date -u; nvidia-smi 2>&1 | head -15; nproc; } > "$out/perf_machine.txt" 2>&1
if ! cmake --build build -j"$(nproc)" --target delphi-gpu > "$out/perf_build.log" 2>&1; then
    tail -30 "$out/perf_build.log"
    echo "BUILD FAILED"
    exit 1
fi
bash scripts/bench_e2e.sh --backends cuda --out "$out/perf_bench" --run-timeout 240 \
    > "$out/perf_bench.log" 2>&1
status=$?
cat "$out/perf_bench/table.txt" 2>/dev/null || tail -20 "$out/perf_bench.log"
# The per-part lines need a run without --quiet: the two-run and the lattice once more.
for entry in "two-run|--pqr $out/perf_bench/inputs/two_run.pqr --gsize 385 --solvation-two-run" \
    "lattice|--pqr $out/perf_bench/inputs/lattice.pqr --scale 1"; do
    name=${entry%%|*}
    # shellcheck disable=SC2086
    timeout 240 build/host/app/delphi-gpu ${entry#*|} --backend cuda --energy g,s,c \
        --json "$out/perf_$name.json" > "$out/perf_$name.log" 2>&1
    echo "== $name (exit $?)"
    grep -E "time \(wall s\)|stage parts|solve parts|reference parts" "$out/perf_$name.log"
done
exit $status
