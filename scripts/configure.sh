#!/usr/bin/env bash
# Configure and build into ./build.  The CUDA backend is built whenever nvcc is available
# (for sm_90, Hopper), so CI compiles every CUDA source even without a GPU.
# Usage: scripts/configure.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
cuda_args=(-DGPU=OFF)
if [ -n "$nvcc_path" ]; then
  cuda_args=(-DGPU=ON -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCMAKE_CUDA_ARCHITECTURES=90)
fi
# MPI domain decomposition (and its tests, label mpi) whenever an MPI compiler is installed.
mpi_args=(-DDG_MPI=OFF)
command -v mpicc >/dev/null && mpi_args=(-DDG_MPI=ON)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDG_WARNINGS_AS_ERRORS=ON "${cuda_args[@]}" "${mpi_args[@]}" "$@"
cmake --build build -j"$(nproc)"
