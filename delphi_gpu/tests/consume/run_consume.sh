#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then configure, build and run a downstream
# project against it with find_package(delphi_gpu) (a C one, and a C++ one without C).
# Usage: run_consume.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
"$work/build/consumer_static"
"$work/build/consumer_clash"
cmake -S "$here/cxx" -B "$work/build_cxx" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build_cxx" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build_cxx/consumer_cxx"
"$work/build_cxx/consumer_cxx_static"
