#!/bin/sh
# The full regression suite on the GPU machine: builds delphi-gpu with CUDA and runs every case on
# both backends (CPU and CUDA), double and float, by both solvers (SOR and multigrid), against the
# analytic results and the APBS results cached in regression/reference/ (that machine has neither
# APBS nor a network).
#
# Usage, from the repository root on the device machine:
#   regression/run_on_device.sh [more run_suite.py options, e.g. --only born --resume]
# Writes into $OUT (default ./build-regression-device-out), at most 6 files:
#   REPORT.md, regression-report.tar.gz (REPORT.md, figures, results.json), suite.log,
#   build.log, nvidia-smi.txt, exit-status.txt
# Then, on the development machine, unpack the tarball over regression/report/ (see
# regression/README.md, "Publishing a device run").
# Exit status: run_suite.py's (0 all passed, 1 some comparison failed, 2 could not run).
set -u

OUT=${OUT:-$PWD/build-regression-device-out}
BUILD=${DG_DEVICE_BUILD:-build-device-regression}
WORK=$BUILD/regression-full
mkdir -p "$OUT"

if [ ! -f regression/run_suite.py ]; then
    echo "run_on_device.sh: run me from the repository root" >&2
    exit 2
fi

nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >>"$OUT/nvidia-smi.txt"

# Python with the standard library suffices; matplotlib (for the figures) and numpy (faster map
# comparisons) are used when present.  Prefer Debian's, else whatever python3 is first on PATH.
PY=""
for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import matplotlib, numpy' >/dev/null 2>&1; then
        PY=$candidate
        break
    fi
done
[ -n "$PY" ] || PY=python3

JOBS=$(nproc 2>/dev/null || echo 8)
echo "configure and build (GPU=ON, Fortran off, $JOBS jobs)" | tee "$OUT/build.log"
if ! { cmake -S . -B "$BUILD" -DGPU=ON -DDG_BUILD_FORTRAN=OFF -DCMAKE_BUILD_TYPE=Release &&
       cmake --build "$BUILD" -j "$JOBS" --target delphi-gpu; } >>"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    echo "run_on_device.sh: build failed (see build.log)" >&2
    echo 2 >"$OUT/exit-status.txt"
    exit 2
fi

echo "full suite, both backends ($PY)"
PYTHONUNBUFFERED=1 "$PY" regression/run_suite.py --full --backend both --precision both \
    --solver both --apbs cache --program "$BUILD/host/app/delphi-gpu" --out "$WORK" "$@" \
    >"$OUT/suite.log" 2>&1
status=$?
echo $status >"$OUT/exit-status.txt"
tail -45 "$OUT/suite.log"

if [ -f "$WORK/report/REPORT.md" ]; then
    cp "$WORK/report/REPORT.md" "$OUT/REPORT.md"
    cp "$WORK/results.json" "$WORK/report/results.json"
    tar -czf "$OUT/regression-report.tar.gz" -C "$WORK/report" .
fi
exit $status
