#!/usr/bin/env bash
# A DelPhi built with the kit (the stand-in here) started beside a task that is always runnable:
# its start-up (libdelphi_gpu_start.a) chooses OpenMP's passive waiting before the runtime
# starts, and the kit notes it once in the log; with OMP_WAIT_POLICY set it chooses nothing.
# Arguments: the DelPhi executable.
set -euo pipefail
exe=$1
clean=(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME -u DELPHI_GPU_WAIT_POLICY_CHOSEN
       -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMIX_RANK -u MPI_LOCALNRANKS
       DELPHI_GPU_BACKEND=cpu)
sh -c 'while :; do :; done' &
spinner=$!
trap 'kill $spinner 2>/dev/null || true' EXIT
sleep 0.1
log=$("${clean[@]}" "$exe")
notes=$(grep -c "^ delphi-gpu: OpenMP's idle threads wait passively (DelPhi started beside other work: [0-9]* runnable tasks, load [0-9.]*; OMP_WAIT_POLICY=active or passive decides)$" <<<"$log" || true)
[ "$notes" = 1 ] || { echo "FAIL: the passive choice noted $notes times"; echo "$log"; exit 1; }
log=$("${clean[@]}" OMP_WAIT_POLICY=active "$exe")
if grep -q "wait passively" <<<"$log"; then
    echo "FAIL: noted passive waiting with OMP_WAIT_POLICY=active"; echo "$log"; exit 1
fi
echo "kit: passive waiting chosen beside a runnable task and noted once; the environment's kept"
