#!/usr/bin/env bash
# GPU checks of the SES arc dots at DelPhi's density (384 angles per SAS circle; run on the GPU
# machine from the repository root, with the build configured in build/; logs under "$OUT").
#   1. ctest app_delphi_parity: the program on examples/1ubq with stock DelPhi's parameters (the
#      automatic backend: CUDA here), boundary points and corrected reaction field against
#      DelPhi's recorded values (it prints both; expect 12949 points and about -956.10 kT).
#   2. ctest gpu_stage_medium, calc_gpu, app_gpu: the medium maps and surface sites on CUDA
#      against the host (the CUDA kernels read the same, now denser, dot lists).
#   3. The program on examples/1ubq with --backend cpu and cuda: the stage tables (surface model,
#      medium maps, reaction field sites) to see what the denser dots cost on each.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/rf_out}"
mkdir -p "$out"
root="$PWD"
cmake --build build -j"$(nproc)" --target delphi-gpu test_app_delphi_parity test_calc_stage_medium \
  test_calc_gpu test_app_gpu > "$out/rf_build.log" 2>&1 || { tail -30 "$out/rf_build.log"; exit 1; }
ctest --test-dir build -R '^(app_delphi_parity|gpu_stage_medium|calc_gpu|app_gpu)$' -V 2>&1 |
  grep -E 'boundary points|corrected reaction|grid energy|Passed|Failed|Skipped|checks' |
  tee "$out/rf_ctest.log"
work="$out/rf_1ubq"
mkdir -p "$work"
for backend in cpu cuda; do
  (cd "$work" && "$root/build/host/app/delphi-gpu" "$root/examples/1ubq/run.prm" \
    --backend "$backend" > "$work/$backend.log" 2>&1)
  echo "$backend: $(grep -E 'arc dots' "$work/$backend.log")"
  grep -E 'dielectric boundary|corrected reaction|stage parts' "$work/$backend.log"
done | tee "$out/rf_stages.log"
