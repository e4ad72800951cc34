#!/usr/bin/env bash
# libdelphi_gpu_start.a (delphi_gpu_start.h) in a program of its own (start_probe):
# beside a task that is always runnable it executes the program again with OpenMP's passive
# waiting (the runtime's spin count 0), the same arguments and the choice recorded; the
# environment's choice, an earlier choice and an MPI rank are left alone; run through the dynamic
# loader (which /proc/self/exe then names) it keeps spinning and says why; on its own it chooses
# by what it saw.
# Arguments: the probe program.
set -euo pipefail
probe=$1
clean=(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME -u DELPHI_GPU_WAIT_POLICY_CHOSEN
       -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMIX_RANK -u MPI_LOCALNRANKS)
fail() { echo "FAIL: $1"; shift; printf '%s\n' "$@"; exit 1; }

# alone: the choice follows what it saw (another runnable task, or a load of 1, means passive)
out=$("${clean[@]}" "$probe" a)
if [[ $out =~ choice:\ spin\ ([0-9]+)\ ([0-9.]+) ]]; then
    python3 -c "import sys; r, l = int(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if r <= 1 and l < 1 else 1)" \
        "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" || fail "spinning although busy" "$out"
elif [[ $out =~ marker:\ passive\ ([0-9]+)\ ([0-9.]+) ]]; then
    python3 -c "import sys; r, l = int(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if r > 1 or l >= 1 else 1)" \
        "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" || fail "passive although idle" "$out"
else
    fail "no choice made" "$out"
fi

sh -c 'while :; do :; done' &
spinner=$!
trap 'kill $spinner 2>/dev/null || true' EXIT
sleep 0.1

# busy: executed again, passive, arguments kept (spaces and empty ones too)
out=$("${clean[@]}" OMP_DISPLAY_ENV=verbose "$probe" "two words" "" last 2>&1)
grep -q "^choice: (none)$" <<<"$out" || fail "a choice in the new image" "$out"
grep -Eq "^marker: passive [0-9]+ [0-9]+\.[0-9]{2}$" <<<"$out" || fail "no passive marker" "$out"
grep -q "^OMP_WAIT_POLICY: passive$" <<<"$out" || fail "OMP_WAIT_POLICY not set" "$out"
grep -q "^arguments: \[two words\] \[\] \[last\]$" <<<"$out" || fail "arguments changed" "$out"
if grep -q "GOMP_SPINCOUNT" <<<"$out"; then
    grep -q "GOMP_SPINCOUNT = '0'" <<<"$out" || fail "the runtime still spins" "$out"
fi

# chosen already: the environment's policy, an earlier choice, an MPI rank
for setting in OMP_WAIT_POLICY=active GOMP_SPINCOUNT=1000 KMP_BLOCKTIME=0 \
               "DELPHI_GPU_WAIT_POLICY_CHOSEN=passive 9 9.00" PMI_SIZE=1 OMPI_COMM_WORLD_SIZE=1; do
    out=$("${clean[@]}" "$setting" "$probe")
    grep -q "^choice: (none)$" <<<"$out" || fail "$setting: a choice made" "$out"
    name=${setting%%=*}
    if [ "$name" != DELPHI_GPU_WAIT_POLICY_CHOSEN ]; then
        grep -q "^marker: (none)$" <<<"$out" || fail "$setting: executed again" "$out"
    fi
    if [ "$name" != OMP_WAIT_POLICY ]; then
        grep -q "^OMP_WAIT_POLICY: (none)$" <<<"$out" || fail "$setting: policy set" "$out"
    fi
done

# through the dynamic loader: no new image (it would take the program for its own argument)
loader=$(readelf -l "$probe" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
if [ -n "$loader" ] && [ -x "$loader" ]; then
    out=$("${clean[@]}" "$loader" "$probe" x)
    grep -Eq "^choice: spin -?[0-9]+ -?[0-9.]+ \(could not execute again\)$" <<<"$out" ||
        fail "through the loader" "$out"
    grep -q "^arguments: \[x\]$" <<<"$out" || fail "through the loader: arguments" "$out"
fi
echo "start: chooses by the load; passive beside a runnable task; earlier choices kept"
