#!/usr/bin/env bash
# GPU checks of the hardening work (run from the repository root on a GPU machine, with the
# build configured in build/; logs under $OUT).  About 20 s of GPU time.
#  1. test_reentry: re-entrant calls from a progress callback return DG_ERR_STATE and leave
#     the solve unchanged, on the CPU and (here) on the CUDA backend; prints
#     "test_reentry: all checks passed".
#  2. app_hardening: the program's hardening test with a GPU present (the backend notice check
#     is skipped there: a GPU is used); prints "all checks passed".
#  3. The Born example with --backend auto: no "no usable GPU" notice, backend cuda in the log.
set -euo pipefail
out=${OUT:-.}
cmake --build build -j"$(nproc)" --target test_reentry test_app_hardening delphi-gpu >/dev/null
./build/delphi_gpu/tests/test_reentry 2>&1 | tee "$out/hardening_reentry.log"
(cd build/host/app/tests/scratch_hardening && ../test_app_hardening) \
  2>&1 | tail -n 3 | tee "$out/hardening_app.log"
scratch=$(mktemp -d)
# --backend auto with one thread: the Born example's 81^3 grid is then above the size for which
# a single run takes the CPU without asking for a GPU (host/app/backend_choice.h).
(cd "$scratch" && "$OLDPWD/build/host/app/delphi-gpu" "$OLDPWD/examples/born/run.prm" --quiet \
  --threads 1) >"$out/hardening_born.log" 2>&1
if grep -q "no usable GPU" "$out/hardening_born.log"; then
  echo "hardening.sh: FAIL: a GPU machine printed the no-GPU notice" >&2
  exit 1
fi
grep -E "^backend " "$out/hardening_born.log"
if ! grep -qE "^backend +: cuda" "$out/hardening_born.log"; then
  echo "hardening.sh: FAIL: --backend auto did not use the GPU" >&2
  exit 1
fi
echo "hardening.sh: all GPU hardening checks passed"
