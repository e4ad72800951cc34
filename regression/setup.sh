#!/bin/sh
# Installs what the regression suite needs from Debian's package registry:
#   apbs, pdb2pqr          the independent reference (APBS) and its PQR tool
#   python3-numpy,
#   python3-matplotlib     the runner's numerics and the report's plots (Debian's /usr/bin/python3)
# Idempotent and quiet: installs only what is missing; uses sudo only when not root.
# Usage: regression/setup.sh [--no-apbs]
#   --no-apbs   only the Python packages (e.g. a GPU machine that reuses the cached APBS results)
set -eu

packages="python3-numpy python3-matplotlib"
if [ "${1:-}" != "--no-apbs" ]; then
    packages="apbs pdb2pqr $packages"
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "regression/setup.sh: need root (or sudo) to install:$missing" >&2
    exit 1
fi

echo "regression/setup.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if ! { $as_root apt-get update -qq &&
       $as_root apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "regression/setup.sh: apt-get failed (see above)" >&2
    exit 1
fi

for p in $missing; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        echo "regression/setup.sh: $p is still not installed" >&2
        exit 1
    fi
done
echo "regression/setup.sh: done"
