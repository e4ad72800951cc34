#!/usr/bin/env bash
# The README's main job: build, then run delphi-gpu on the bundled example (ubiquitin, PDB 1UBQ,
# in 0.15 M salt; examples/1ubq/run.prm) and print its log.  Outputs (potential map, site
# potentials, JSON summary) go to build/example-1ubq/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh build
bash scripts/configure.sh
mkdir -p build/example-1ubq
cd build/example-1ubq
../host/app/delphi-gpu ../../examples/1ubq/run.prm --json 1ubq.json
echo "outputs in $(pwd): $(ls | tr '\n' ' ')"
