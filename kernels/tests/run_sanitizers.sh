#!/bin/sh
# compute-sanitizer memcheck (with leak check), racecheck, synccheck and initcheck on the small
# case gpu_sanitizer_case.  Usage: run_sanitizers.sh <path to gpu_sanitizer_case> [log dir]
# Exit 0 when every tool reports no error, 1 otherwise, 77 (skipped) without a GPU or without
# compute-sanitizer.
set -u
case_exe=${1:?usage: run_sanitizers.sh <gpu_sanitizer_case> [log dir]}
log_dir=${2:-.}
sanitizer=$(command -v compute-sanitizer 2>/dev/null)
for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$sanitizer" ] && [ -x "$candidate" ] && sanitizer=$candidate
done
if [ -z "$sanitizer" ]; then
    echo "run_sanitizers: SKIPPED (compute-sanitizer not found)"
    exit 77
fi
# Without a GPU the case itself exits 77.
"$case_exe" > "$log_dir/sanitizer_plain.log" 2>&1
status=$?
if [ $status -ne 0 ]; then
    cat "$log_dir/sanitizer_plain.log"
    [ $status -eq 77 ] && echo "run_sanitizers: SKIPPED (no usable CUDA device)"
    exit $status
fi
failed=0
for tool in memcheck racecheck synccheck initcheck; do
    extra=""
    [ $tool = memcheck ] && extra="--leak-check full"
    [ $tool = racecheck ] && extra="--racecheck-report all"
    log="$log_dir/sanitizer_$tool.log"
    # shellcheck disable=SC2086
    "$sanitizer" --tool $tool $extra --error-exitcode 3 "$case_exe" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool: exit $rc; ${summary:-no summary}"
    if [ $rc -ne 0 ]; then
        failed=1
        grep -m 20 -E "=========" "$log"
    fi
done
[ $failed -eq 0 ] && echo "run_sanitizers: all tools clean" && exit 0
exit 1
