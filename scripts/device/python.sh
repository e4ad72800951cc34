#!/usr/bin/env bash
# On a GPU machine, from the repository root, with the build configured and built in build/
# (scripts/configure.sh): the Python package's tests on the CUDA backend and the trajectory
# throughput benchmark.  Logs and JSON records go to "$OUT" (default build/device-python).
#   1. ctest -L python with DELPHI_GPU_TEST_BACKEND=cuda (Born ion, 1ubq against the program on
#      the GPU, frame reuse, errors, maps, layout)          -> python_tests_cuda.log
#   2. python/bench/bench_trajectory.py: 30 frames, 141^3, energies g,c,s, maxc 1e-4, one warm
#      calculation vs a cold one per frame, for 1ubq (1231 atoms) and 1hpv (3128 atoms), double
#      and float                                            -> bench_<molecule>_<precision>.json
#   3. python/examples/trajectory.py on a 10-frame 1ubq trajectory -> trajectory_example.log
# Target (issue 14): >= 20 frames/s for a ~2000-atom protein at 141^3 with energies on an H100.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/device-python}
mkdir -p "$OUT"
# The python3 on PATH (on the GPU machines the one that has NumPy), else Debian's.
python=$(command -v python3 || echo /usr/bin/python3)
export DELPHI_GPU_LIBRARY=$PWD/build/delphi_gpu/libdelphi_gpu.so
status=0
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
cmake --build build -j"$(nproc)" > "$OUT/build.log" 2>&1 || { echo "build failed"; status=1; }

DELPHI_GPU_TEST_BACKEND=cuda ctest --test-dir build -L python --output-on-failure \
  > "$OUT/python_tests_cuda.log" 2>&1 || status=1
tail -5 "$OUT/python_tests_cuda.log"

for source in examples/1ubq/1ubq.pqr regression/data/1hpv.pqr; do
  name=$(basename "$source" .pqr)
  for precision in double mixed; do
    timeout 300 "$python" python/bench/bench_trajectory.py --source "$source" --gsize 141 \
      --frames 30 --backend cuda --precision "$precision" --work build/device-python-work \
      --json "$OUT/bench_${name}_${precision}.json" > "$OUT/bench_${name}_${precision}.log" 2>&1 ||
      status=1
    grep -E '"(atoms|grid_n|backend|warm_frames_per_second|warm_frame_ms|cold_frame_ms|mean_iterations|mean_solve_ms)"' \
      "$OUT/bench_${name}_${precision}.log" | tr -d '\n' | sed "s/^/$name $precision: /"
    echo
  done
done

mkdir -p build/device-python-work
"$python" python/examples/trajectory.py --make-trajectory build/device-python-work/1ubq_10.pqr --frames 10 \
  build/device-python-work/1ubq_10.pqr --gsize 141 --backend cuda > "$OUT/trajectory_example.log" 2>&1 ||
  status=1
tail -1 "$OUT/trajectory_example.log"
echo "scripts/device/python.sh: status $status (logs in $OUT)"
exit $status
