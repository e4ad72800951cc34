#!/usr/bin/env bash
# The program's OpenMP wait policy (host/app/wait_policy.h): passive when the environment does
# not choose, shown in the log; the environment's choice kept; the same answer either way.
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
env -u GOMP_SPINCOUNT -u KMP_BLOCKTIME OMP_WAIT_POLICY=active "$exe" \
    --pqr "$examples/born/born_ion.pqr" --scale 1 --quiet --log active.log --json active.json
grep -q "^OpenMP waiting       : OMP_WAIT_POLICY=active (the environment's)" active.log ||
    { echo "FAIL: the environment's policy not kept"; cat active.log; exit 1; }
# the same grid energy (the policy changes how threads wait, never what they compute)
grid() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["energies_kT"]["grid"])' "$1"; }
e1=$(grid chosen.json) e2=$(grid active.json)
[ -n "$e1" ] && [ "$e1" = "$e2" ] || { echo "FAIL: energies differ: '$e1' '$e2'"; exit 1; }
echo "wait policy: $line; the environment's kept; grid energy $e1 both"
