#!/bin/sh
# check_real_size.sh KIT_OBJECT DELPHI_OBJECT...
# Part of the delphi-gpu kit's make fragment: fails when the kit's replacement object and
# DelPhi's own objects disagree on the size of a COMMON block they share (/val1/ holds REALs,
# so its size tells real*4 from real*8).  Prints what it compared.
kit=$1
shift
if ! command -v nm >/dev/null 2>&1; then
  echo "check_real_size: nm not found; the REAL-size check is skipped" >&2
  exit 0
fi
size_of() { # object block -> size in bytes (decimal), empty when absent
  nm -S "$1" 2>/dev/null | awk -v s="$2" '$NF == s && NF == 4 { print $2; exit }' |
    { read -r hex && printf '%d\n' "0x$hex"; }
}
status=0
compared=0
for block in val1_ ival1_ log1_; do
  mine=$(size_of "$kit" "$block")
  [ -n "$mine" ] || continue
  for obj in "$@"; do
    theirs=$(size_of "$obj" "$block")
    [ -n "$theirs" ] || continue
    compared=$((compared + 1))
    if [ "$mine" != "$theirs" ]; then
      echo "delphi_gpu.mk: COMMON /${block%_}/ is $mine bytes in $kit but $theirs bytes in $obj:"
      echo "  the replacements were compiled with another REAL size than DelPhi (real*4 vs real*8)."
      echo "  Compile them with DelPhi's Fortran flags: set DELPHI_GPU_FFLAGS (or DELPHI_GPU_FLAGS_VAR)."
      status=1
    else
      echo "COMMON /${block%_}/: $mine bytes in $kit and $obj"
    fi
    break
  done
done
if [ "$compared" -eq 0 ]; then
  echo "delphi_gpu.mk: none of DelPhi's objects shares COMMON /val1/, /ival1/ or /log1/ with $kit;"
  echo "  cannot check that both use the same REAL size (name DelPhi objects that include its"
  echo "  COMMON header in DELPHI_GPU_CHECK_OBJS)"
  exit 1
fi
exit $status
