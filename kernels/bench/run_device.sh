#!/bin/bash
# Build, test, sanitize, benchmark and profile the CUDA backend on a GPU machine, in one go.
# Run from the repository root.  A summary goes to stdout and the logs (at most 8 files:
# machine.txt build.log ctest.log bench.log sanitizers.txt sass.txt resources.txt ncu.txt) to
# $OUT (the device tool's output folder) or ./device-logs, written as each step ends.
#   STEPS=build,test,bench,sanitize,sass,ncu (default all, in this order)
#   BENCH_ARGS="..." (extra dg_bench_gpu arguments)
set -u
out=${OUT:-$PWD/device-logs}
steps=${STEPS:-build,test,bench,sanitize,sass,ncu}
build=${BUILD_DIR:-build-device}
logs=$out
mkdir -p "$out"
has() { case ",$steps," in *",$1,"*) return 0 ;; esac; return 1; }
export PATH=$PATH:/usr/local/cuda/bin

{ date -u; nvidia-smi; nvcc --version | tail -2; } > "$logs/machine.txt" 2>&1
grep -m1 -E "H100|H200|NVIDIA" "$logs/machine.txt"

if has build; then
    start=$SECONDS
    if ! { cmake -S . -B "$build" -DGPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DDG_BUILD_FORTRAN=OFF \
             -DDG_BUILD_HOST=OFF -DCMAKE_BUILD_TYPE=Release -DDG_CUDA_RESOURCE_USAGE=ON &&
           make -C "$build" -j16 dg_bench_gpu test_gpu_agreement test_gpu_convergence \
             test_gpu_errors gpu_sanitizer_case; } > "$logs/build.log" 2>&1; then
        tail -40 "$logs/build.log"
        echo "BUILD FAILED"
        exit 1
    fi
    echo "build: ok ($((SECONDS - start)) s)"
fi

if has test; then
    start=$SECONDS
    (cd "$build" && timeout 180 ctest -L gpu -E sanitizers --output-on-failure) \
        > "$logs/ctest.log" 2>&1
    grep -E "tests passed|tests failed|Passed|Failed|Skipped|\*\*\*" "$logs/ctest.log" | tail -12
    grep -E "^FAIL" "$logs/ctest.log" | head -20
    echo "tests: $((SECONDS - start)) s"
fi

if has bench; then
    start=$SECONDS
    # shellcheck disable=SC2086
    timeout 240 "$build/kernels/bench/dg_bench_gpu" ${BENCH_ARGS:-} > "$logs/bench.log" 2>&1
    echo "bench: exit $? ($((SECONDS - start)) s)"
    sed -n '/== summary/,$p' "$logs/bench.log"
fi

if has sanitize; then
    start=$SECONDS
    san_dir=$(mktemp -d)
    timeout 240 bash kernels/tests/run_sanitizers.sh "$build/kernels/tests/gpu_sanitizer_case" \
        "$san_dir" 2>&1 | tail -30
    for f in "$san_dir"/*.log; do echo "==== $f"; cat "$f"; done > "$logs/sanitizers.txt" 2>&1
    echo "sanitizers: $((SECONDS - start)) s"
fi

if has sass; then
    object="$build/kernels/CMakeFiles/dg_cuda_objects.dir/cuda_launch.cu.o"
    cuobjdump -sass "$object" > "$logs/sass.txt" 2>&1
    grep -E "Function : .*dg_sweep_kernel" "$logs/sass.txt" | head -3
    grep -A3 -E "dg_sweep_kernel" "$logs/build.log" | grep -E "registers" | head -12 \
        > "$logs/resources.txt"
fi

if has ncu; then
    start=$SECONDS
    for precision in float double; do
        timeout 90 ncu --clock-control none -k regex:dg_sweep_kernel --launch-skip 40 \
            --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section Occupancy --section LaunchStats --section SchedulerStats \
            --section WarpStateStats \
            "$build/kernels/bench/dg_bench_gpu" --sizes 513 --only-sweeps --precision $precision \
            >> "$logs/ncu.txt" 2>&1
        grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Block Size|Grid Size|L2 Hit|L1/TEX Hit|Issued Warp|No Eligible" \
            "$logs/ncu.txt" | tail -26
    done
    echo "ncu: $((SECONDS - start)) s"
fi
