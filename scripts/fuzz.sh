#!/usr/bin/env bash
# libFuzzer targets of every reader of host_io (host/io/fuzz/fuzz_*.c): PQR, PDB, .siz/.crg,
# DelPhi parameter files, DX, cube, phimap.  Built with clang -fsanitize=fuzzer,address,undefined
# into build-fuzz/, then each target runs on a copy of its seed corpus (host/io/fuzz/corpus/).
#   scripts/fuzz.sh                  20 s per target
#   scripts/fuzz.sh 60               60 s per target
#   scripts/fuzz.sh 0 1000000        1 000 000 executions per target (no time limit)
#   FUZZ_TARGETS="dx cube" scripts/fuzz.sh   only those targets
# Exits non-zero on the first crash, leak, sanitizer report or timeout; libFuzzer writes the
# input that caused it to build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
runs=${2:--1}
cc=${CC_FUZZ:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$cc" ]; then
  echo "fuzz.sh: clang not found (scripts/install_deps.sh installs it)" >&2
  exit 1
fi
targets=${FUZZ_TARGETS:-"pqr pdb tables params dx cube phimap"}
out=build-fuzz
mkdir -p "$out/artifacts"
flags=(-g -O1 -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Ihost -Ihost/io
       -Idelphi_gpu/include)
# host_io compiled once (instrumented for coverage, no main), then one link per target.
mkdir -p "$out/obj"
objects=()
for src in host/io/*.c; do
  obj="$out/obj/$(basename "${src%.c}").o"
  if [ ! -f "$obj" ] || [ -n "$(find "$src" host/io host/settings.h host/molecule.h -newer "$obj" \
       -name '*.h' -o -newer "$obj" -path "$src" | head -1)" ]; then
    "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj"
  fi
  objects+=("$obj")
done
for t in $targets; do
  "$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined host/io/fuzz/fuzz_"$t".c \
    "${objects[@]}" -lm -o "$out/fuzz_$t"
done
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for t in $targets; do
  work="$out/corpus/$t"
  mkdir -p "$work"
  cp -n host/io/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  limits=(-max_len=8192 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/$t-")
  if [ "$runs" -ge 0 ]; then limits+=(-runs="$runs"); fi
  if [ "$seconds" -gt 0 ]; then limits+=(-max_total_time="$seconds"); fi
  echo "fuzz.sh: $t (${seconds}s, runs $runs)"
  "./$out/fuzz_$t" "${limits[@]}" -print_final_stats=1 "$work" 2>"$out/fuzz_$t.log" ||
    { tail -40 "$out/fuzz_$t.log" >&2; echo "fuzz.sh: $t FAILED" >&2; exit 1; }
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$out/fuzz_$t.log" | tail -2
done
