#!/usr/bin/env bash
# The program's OpenMP wait policy (host/app/wait_policy.h): chosen by the load the program saw
# when the environment does not choose, shown in the log; passive beside a runnable task; the
# environment's choice kept; the same answer either way.
# Arguments: the delphi-gpu program, the examples directory, a scratch directory.
set -euo pipefail
exe=$1 examples=$2 dir=$3
mkdir -p "$dir" && cd "$dir"
rm -f ./*.log ./*.json
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME "$exe" --pqr "$examples/born/born_ion.pqr" \
    --scale 1 --quiet --log chosen.log --json chosen.json
grep -Eq "^OpenMP waiting       : (passive|spinning) \(the program's choice" chosen.log ||
    { echo "FAIL: no wait policy of the program's in the log"; cat chosen.log; exit 1; }
# the choice follows the load the program saw: passive with another runnable task or a load of 1
line=$(grep "^OpenMP waiting" chosen.log)
if [[ $line =~ choice:\ ([0-9]+)\ runnable\ tasks?,\ load\ ([0-9.]+) ]]; then
    running=${BASH_REMATCH[1]} load=${BASH_REMATCH[2]}
    busy=$(python3 -c "print(int($running > 1 or $load >= 1.0))")
    expect=$([ "$busy" = 1 ] && echo passive || echo spinning)
    [[ $line == "OpenMP waiting       : $expect"* ]] ||
        { echo "FAIL: $running runnable, load $load, but: $line"; exit 1; }
fi
# beside a task that is always runnable the machine is busy: passive, chosen before the OpenMP
# runtime started (GNU's runtime shows a spin count of 0 when OMP_DISPLAY_ENV=verbose)
sh -c 'while :; do :; done' &
spinner=$!
trap 'kill $spinner 2>/dev/null || true' EXIT
sleep 0.1
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME OMP_DISPLAY_ENV=verbose "$exe" \
    --pqr "$examples/born/born_ion.pqr" --scale 1 --quiet --log busy.log --json busy.json \
    > busy.out 2>&1
kill $spinner 2>/dev/null || true
grep -q "^OpenMP waiting       : passive (the program's choice: [0-9]* runnable tasks" busy.log ||
    { echo "FAIL: not passive beside a runnable task"; grep "^OpenMP waiting" busy.log; exit 1; }
if grep -q "GOMP_SPINCOUNT" busy.out; then
    grep -q "GOMP_SPINCOUNT = '0'" busy.out ||
        { echo "FAIL: the OpenMP runtime still spins"; grep "GOMP_SPINCOUNT" busy.out; exit 1; }
fi
env -u GOMP_SPINCOUNT -u KMP_BLOCKTIME OMP_WAIT_POLICY=active "$exe" \
    --pqr "$examples/born/born_ion.pqr" --scale 1 --quiet --log active.log --json active.json
grep -q "^OpenMP waiting       : OMP_WAIT_POLICY=active (the environment's)" active.log ||
    { echo "FAIL: the environment's policy not kept"; cat active.log; exit 1; }
# the same grid energy (the policy changes how threads wait, never what they compute)
grid() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["energies_kT"]["grid"])' "$1"; }
e1=$(grid chosen.json) e2=$(grid active.json) e3=$(grid busy.json)
[ -n "$e1" ] && [ "$e1" = "$e2" ] && [ "$e1" = "$e3" ] ||
    { echo "FAIL: energies differ: '$e1' '$e2' '$e3'"; exit 1; }
echo "wait policy: $line; passive when busy; the environment's kept; grid energy $e1 in each"
