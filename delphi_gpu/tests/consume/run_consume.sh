#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then configure, build and run a downstream
# project against it with find_package(delphi_gpu) (a C one, and a C++ one without C).
# The consumers ask for VERSION (major.minor); before 1.0 an older minor one is refused.
# Usage: run_consume.sh BUILD_DIR WORK_DIR VERSION
set -euo pipefail
build=$1 work=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DDG_EXPECT_VERSION="$version" >/dev/null
cmake --build "$work/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
"$work/build/consumer_static"
"$work/build/consumer_clash"
cmake -S "$here/cxx" -B "$work/build_cxx" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DDG_EXPECT_VERSION="$version" >/dev/null
cmake --build "$work/build_cxx" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build_cxx/consumer_cxx"
"$work/build_cxx/consumer_cxx_static"
# Before 1.0 each minor version is its own ABI: a request for the previous one is refused
# (with SameMajorVersion 0.2 would have answered a request for 0.1).
major=${version%%.*} minor=${version#*.}
if [ "$major" = 0 ] && [ "$minor" -gt 0 ]; then
  if cmake -S "$here/cxx" -B "$work/build_older" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DDG_EXPECT_VERSION="$major.$((minor - 1))" >/dev/null 2>&1; then
    echo "run_consume: find_package accepted a request for $major.$((minor - 1)) from $version" >&2
    exit 1
  fi
fi
echo "run_consume: version $version found; $major.$((minor - 1)) refused"
