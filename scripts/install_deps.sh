#!/usr/bin/env bash
# Install the Debian packages the project needs, only those missing; safe to run repeatedly.
#   install_deps.sh build   compilers, CMake, MPI and NumPy (the program and the Python package)
#   install_deps.sh all     also what the tests need: APBS, PDB2PQR, pytest, matplotlib, mrcfile,
#                           clang-format, clang with its sanitizer and libFuzzer runtimes
#                           (the default)
set -euo pipefail
profile=${1:-all}
packages=(cmake make gcc g++ gfortran libgomp1 python3 python3-numpy openmpi-bin libopenmpi-dev)
if [ "$profile" = all ]; then
  packages+=(python3-pytest python3-matplotlib python3-mrcfile apbs pdb2pqr clang-format clang)
  # libFuzzer and the sanitizer runtimes of Debian's default clang (scripts/fuzz.sh).
  clang_major=$(apt-cache show clang 2>/dev/null | sed -n 's/^Depends:.*clang-\([0-9][0-9]*\).*/\1/p' | head -1)
  packages+=("libclang-rt-${clang_major:-14}-dev")
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
