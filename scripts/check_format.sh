#!/usr/bin/env bash
# Fail if any C/CUDA source differs from .clang-format (fix with: clang-format -i FILES).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format not installed"; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
[ ${#files[@]} -eq 0 ] && exit 0
clang-format --dry-run -Werror "${files[@]}"
echo "check_format: ${#files[@]} files follow .clang-format"
