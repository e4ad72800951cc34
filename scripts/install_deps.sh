#!/usr/bin/env bash
# Install the Debian packages the build, the tests and the regression suite need (only those
# missing).  Safe to run repeatedly.  Uses sudo when not root.
set -euo pipefail
packages=(cmake make gcc g++ gfortran libgomp1 python3 python3-numpy python3-matplotlib
          apbs pdb2pqr clang-format)
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
