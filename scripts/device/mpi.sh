#!/usr/bin/env bash
# On a GPU machine (repo root): the MPI domain decomposition with the CUDA backend, several ranks
# sharing the GPU(s) this machine has.  Builds build-mpi (GPU=ON, DG_MPI=ON) unless present, runs
# the decomposition test on 1-4 ranks with DG_TEST_BACKEND=cuda (bitwise equality with one rank)
# and dg_bench_mpi at 257^3 and 513^3 (and 1025^3 on a machine of four GPUs or more) on 1, 2 and 4
# ranks; each bench line is followed by the solver choice, which names the halo path.  Logs go to
# $OUT/mpi.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}/mpi.log
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
  nvidia-smi -L
  if [ ! -x build-mpi/delphi_gpu/tests/test_mpi_decomposition ]; then
    cmake -S . -B build-mpi -DGPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DDG_MPI=ON \
      -DDG_BUILD_FORTRAN=OFF -DDG_BUILD_HOST=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      cmake --build build-mpi -j16 --target test_mpi_decomposition dg_bench_mpi >/dev/null
  fi
  for p in 1 2 3 4; do
    echo "== test_mpi_decomposition, $p ranks, CUDA"
    DG_TEST_BACKEND=cuda timeout 120 mpirun --oversubscribe -np "$p" \
      build-mpi/delphi_gpu/tests/test_mpi_decomposition
    echo "exit $?"
  done
  devices=$(nvidia-smi -L | wc -l)
  sizes="257 513"
  [ "$devices" -ge 4 ] && sizes="$sizes 1025" # four ranks of 1025^3 hold about 80 GB of host memory
  for n in $sizes; do
    for p in 1 2 4; do
      for prec in float double; do
        timeout 200 mpirun --oversubscribe -np "$p" build-mpi/delphi_gpu/bench/dg_bench_mpi \
          "$n" 200 cuda "$prec" | tail -2
      done
    done
  done
  echo "devices: $devices (ranks share them round-robin)"
} >"$out" 2>&1
tail -40 "$out"
