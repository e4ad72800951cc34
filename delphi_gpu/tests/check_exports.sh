#!/usr/bin/env bash
# The shared library's dynamic symbols are exactly the public API: every defined dynamic symbol
# is a function declared with DG_API in a public header, and every such function is exported.
# With a third argument, the static library too: its only global definitions are dg_ names
# (no internal name of the library can clash with a program's own).
# Usage: check_exports.sh LIBRARY INCLUDE_DIR [STATIC_LIBRARY]
set -euo pipefail
lib=$1
include_dir=$2
static_lib=${3:-}
command -v nm >/dev/null || { echo "check_exports: nm not found"; exit 1; }
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWw]$/ || $2 == "D" || $2 == "B" {print $3}' | sort -u)
# DG_API declarations; the DelPhi entry points are declared once for each of the f/d suffixes.
declared=$(grep -ho 'DG_API[^(]*dg_[A-Za-z0-9_#]*(' "$include_dir"/delphi_gpu/*.h |
  sed -E 's/.*(dg_[A-Za-z0-9_#]*)\(/\1/' |
  while read -r name; do
    case $name in
    *'##SUFFIX') echo "${name%##SUFFIX}f"; echo "${name%##SUFFIX}d" ;;
    *) echo "$name" ;;
    esac
  done | sort -u)
status=0
# A public function declared without DG_API would be hidden in the shared library.
unmarked=$(grep -nE '^(const |unsigned |struct )*[A-Za-z_][A-Za-z0-9_]*[ *]+dg_[A-Za-z0-9_]*\(' \
  "$include_dir"/delphi_gpu/*.h || true)
if [ -n "$unmarked" ]; then
  echo "check_exports: public functions declared without DG_API (delphi_gpu_export.h):"
  echo "$unmarked" | sed 's/^/  /'; status=1
fi
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [ -n "$extra" ]; then
  echo "check_exports: exported but not public API:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
  echo "check_exports: declared DG_API but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
if [ -n "$static_lib" ]; then
  # global definitions (upper-case types other than U), in every member
  foreign=$(nm -g --defined-only "$static_lib" 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ && $3 !~ /^(dg_|\.gomp_critical_user_dg_)/ {print $3}' | sort -u)
  if [ -n "$foreign" ]; then
    echo "check_exports: $static_lib defines global symbols outside dg_*:"
    echo "$foreign" | head -20 | sed 's/^/  /'; status=1
  fi
fi
[ $status -eq 0 ] && echo "check_exports: $(echo "$exported" | wc -l) symbols, all public dg_* API"

exit $status
