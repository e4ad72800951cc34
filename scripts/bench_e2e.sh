#!/usr/bin/env bash
# End-to-end benchmark of the delphi-gpu program (not a test): runs a fixed set of inputs on
# each backend and prints a stage table (setup = read + grid; surface, medium, charges,
# boundary values, solve (+ the reference solve of a two-run), energies, total; wall seconds
# from each run's JSON summary).
#
#   scripts/bench_e2e.sh [--small] [--backends "cpu cuda"] [--program PATH] [--out DIR]
#                        [--run-timeout SECONDS]   (each run; a run cut off shows exit 124)
#
# The set (full):   1ubq (examples/1ubq/run.prm, 99^3)   1hpv (scale 2, salt, g/s/c energies)
#   lattice  80 copies of 1hpv, 250 240 atoms, 1 A grid spacing (scale 1)
#   lattice-0.5A  the same at 0.5 A grid spacing (scale 2, 757^3)
#   two-run  8 copies of 1hpv, 25 024 atoms, gsize 385, --solvation-two-run
#   batch    8 models (frames) of the first 2 000 atoms of 1hpv at gsize 141, one process
# --small replaces the large cases by small ones (a few seconds each on 2 CPU cores), to check
# that the script works.  Backends: cpu, and cuda when nvidia-smi lists a GPU (or as given).
# Inputs are generated under OUT/inputs (scripts/bench_inputs.py); results: OUT/*.json,
# OUT/*.jsonl, OUT/*.log and the table in OUT/table.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
small=0
run_timeout=""
backends=""
program="$root/build/host/app/delphi-gpu"
out="$root/build/bench_e2e"
while [ $# -gt 0 ]; do
  case "$1" in
    --small) small=1 ;;
    --backends) backends="$2"; shift ;;
    --program) program="$2"; shift ;;
    --out) out="$2"; shift ;;
    --run-timeout) run_timeout="$2"; shift ;;
    *) echo "bench_e2e: unknown argument $1" >&2; exit 1 ;;
  esac
  shift
done
[ -x "$program" ] || { echo "bench_e2e: no program at $program (build first)" >&2; exit 1; }
if [ -z "$backends" ]; then
  backends=cpu
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    backends="cpu cuda"
  fi
fi
mkdir -p "$out/inputs"
out=$(cd "$out" && pwd)
rm -f "$out/wall.txt"
gen="python3 $root/scripts/bench_inputs.py"
data="$root/regression/data"

# name|arguments (inputs under $out/inputs)
if [ "$small" = 1 ]; then
  $gen lattice "$data/1ubq.pqr" 2 1 1 "$out/inputs/lattice.pqr" >/dev/null
  $gen first "$data/1ubq.pqr" 500 "$out/inputs/first.pqr" >/dev/null
  $gen frames "$out/inputs/first.pqr" 3 "$out/inputs/frames.pqr" >/dev/null
  cases=(
    "1ubq|$root/examples/1ubq/run.prm"
    "lattice|--pqr $out/inputs/lattice.pqr --scale 1"
    "two-run|--pqr $data/1ubq.pqr --gsize 65 --solvation-two-run"
    "batch|--pqr $out/inputs/frames.pqr --gsize 45 --frames"
  )
else
  $gen lattice "$data/1hpv.pqr" 4 4 5 "$out/inputs/lattice.pqr" >/dev/null
  $gen lattice "$data/1hpv.pqr" 2 2 2 "$out/inputs/two_run.pqr" >/dev/null
  $gen first "$data/1hpv.pqr" 2000 "$out/inputs/first.pqr" >/dev/null
  $gen frames "$out/inputs/first.pqr" 8 "$out/inputs/frames.pqr" >/dev/null
  cases=(
    "1ubq|$root/examples/1ubq/run.prm"
    "1hpv|--pqr $data/1hpv.pqr --scale 2 --salt 0.15"
    "batch|--pqr $out/inputs/frames.pqr --gsize 141 --frames"
    "two-run|--pqr $out/inputs/two_run.pqr --gsize 385 --solvation-two-run"
    "lattice|--pqr $out/inputs/lattice.pqr --scale 1"
    "lattice-0.5A|--pqr $out/inputs/lattice.pqr --scale 2"
  )
fi

cd "$out"
for backend in $backends; do
  for entry in "${cases[@]}"; do
    name=${entry%%|*}
    args=${entry#*|}
    tag="$name.$backend"
    start=$(date +%s%N)
    limit=()
    [ -n "$run_timeout" ] && limit=(timeout "$run_timeout")
    # shellcheck disable=SC2086
    if "${limit[@]}" "$program" $args --backend "$backend" --energy g,s,c --quiet --jsonl "$tag.jsonl" \
        > "$tag.log" 2>&1; then status=0; else status=$?; fi
    end=$(date +%s%N)
    echo "$tag $status $(( (end - start) / 1000000 ))" >> "$out/wall.txt"
    echo "bench_e2e: $tag exit $status ($(tail -n 1 "$tag.log"))" >&2
  done
done

python3 - "$out" $backends <<'PY' | tee "$out/table.txt"
import json, os, sys
out, backends = sys.argv[1], sys.argv[2:]
wall = {}
for line in open(os.path.join(out, "wall.txt")):
    tag, status, seconds = line.split()
    wall[tag] = (int(status), float(seconds) / 1000.0)  # milliseconds in the file
cols = ("setup", "surface", "medium", "charges", "boundary", "solve", "energies", "total")
print("%-14s %-5s %8s %5s %6s" % ("case", "backend", "atoms", "grid", "iters")
      + "".join("%10s" % c for c in cols))
for backend in backends:
    for name in sorted({t.rsplit(".", 1)[0] for t in wall if t.endswith("." + backend)},
                       key=lambda n: list(wall).index(n + "." + backend)):
        tag = name + "." + backend
        path = os.path.join(out, tag + ".jsonl")
        runs = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
        if not runs:
            print("%-14s %-5s  no result: exit %d after %.1f s" % (name, backend, *wall[tag]))
        for run in runs:
            s = run.get("summary")
            label = name if len(runs) == 1 else "%s[%d]" % (name, run["model"] or run["run"])
            if not s:
                print("%-14s %-5s  failed: exit %s %s" % (label, backend, run["exit_status"],
                                                         run.get("error") or ""))
                continue
            t = s["timing_s"]
            val = lambda k: t.get(k) or 0.0
            row = {"setup": val("read") + val("grid"), "surface": val("surface"),
                   "medium": val("medium"), "charges": val("charges"),
                   "boundary": val("boundary"), "solve": val("solve") + val("reference"),
                   "energies": val("energies"), "total": val("total")}
            print("%-14s %-5s %8d %5d %6s" % (label, s["solver"]["backend"] or backend,
                                              s["input"]["atoms"], s["grid"]["size"][0],
                                              s["solver"]["iterations"])
                  + "".join("%10.3f" % row[c] for c in cols))
        status, seconds = wall[tag]
        if len(runs) > 1:
            print("%-14s %-5s  %d runs in one process: %.3f s wall, exit %d"
                  % (name, backend, len(runs), seconds, status))
PY
