#!/usr/bin/env bash
# The program under mpirun (label mpi): examples/1ubq with 37 SOR iterations (a fixed count, so
# the decomposed potential is bitwise the single process's) on 1 process and on 2 and 3 ranks;
# the JSON energies must agree to every printed digit, and only rank 0 writes.  With
# DG_TEST_BACKEND=cuda (a GPU machine) the runs use the CUDA backend in double precision and the
# decomposed runs' solver choice must say that the halos go from device to device.  Then a
# binding run focused from a coarse grid on 2 ranks against the single process's; periodic x
# and y on 2 ranks against the single process's, and a periodic z refused; nonlinear PB by
# Newton's method on 2 and 3 ranks against the single process's.
# Usage: mpi_program.sh PROGRAM EXAMPLES_DIR WORKDIR
set -euo pipefail
program=$1 examples=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
backend=${DG_TEST_BACKEND:-cpu}
args=("$examples/1ubq/run.prm" --backend "$backend" --precision double --linit 37 --autoc 0
  --maxc 0 --quiet)
"$program" "${args[@]}" --json single.json > single.log 2>&1 || { cat single.log; exit 1; }
energies() {
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["energies_kT"]; print(repr(e))' "$1"
}
for ranks in 2 3; do
  mpirun --oversubscribe -np "$ranks" "$program" "${args[@]}" --json "mpi$ranks.json" \
    > "mpi$ranks.log" 2>&1 || { cat "mpi$ranks.log"; exit 1; }
  grep -q "mpi ranks *: $ranks" "mpi$ranks.log" || { echo "no 'mpi ranks: $ranks' line"; exit 1; }
  if [ "$backend" = cuda ] && ! grep -q "halos from device to device" "mpi$ranks.log"; then
    echo "$ranks ranks: the solver choice does not say that the halos go device to device"
    grep "solver choice" "mpi$ranks.log"
    exit 1
  fi
  if [ "$(grep -c '^backend  ' "mpi$ranks.log")" != 1 ]; then
    echo "$ranks ranks: the log was printed by more than rank 0"; exit 1
  fi
  if ! diff <(energies single.json) <(energies "mpi$ranks.json"); then
    echo "$ranks ranks: energies differ from the single process"; exit 1
  fi
  echo "$ranks ranks: energies equal to the single process's: $(energies "mpi$ranks.json")"
done
# A binding run focused from a coarse grid (each partner alone, then the complex: twelve solves
# with the coarse and the salt-free ones) on 2 ranks gives the single process's binding and
# focusing objects, and only rank 0 writes the residue table.
# The molecule: examples/1ubq split at residue 40 into chains A and B.
awk '$1 == "ATOM" { $5 = ($6 <= 40 ? "A" : "B") } { print }' "$examples/1ubq/1ubq.pqr" > split.pqr
bargs=(--pqr split.pqr --scale 1 --salt 0.1 --backend "$backend" --precision double --linit 37
  --autoc 0 --maxc 0 --binding A:B --coarse-perfil 25 --quiet)
"$program" "${bargs[@]}" --json bsingle.json > bsingle.log 2>&1 || { cat bsingle.log; exit 1; }
mpirun --oversubscribe -np 2 "$program" "${bargs[@]}" --json bmpi.json \
  --binding-residues bmpi.txt > bmpi.log 2>&1 || { cat bmpi.log; exit 1; }
binding() {
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); b=j["binding"]; print(repr((b["energy_kT"], b["salt_kT"], b["grid_energy_kT"], j["focusing"])))' "$1"
}
if ! diff <(binding bsingle.json) <(binding bmpi.json) || [ ! -s bmpi.txt ] ||
  [ "$(grep -c '^binding energy:' bmpi.log)" != 1 ]; then
  echo "binding on 2 ranks differs from the single process's (or rank 0 alone did not write)"
  exit 1
fi
echo "binding on 2 ranks equal to the single process's: $(binding bmpi.json)"
rm -f split.pqr bsingle.* bmpi.*
# Periodic x and y (a membrane's axes) on 2 ranks: the single process's energies; a periodic z
# (the axis the ranks split) is refused under mpirun, exit 1, naming pbz.
pargs=("${args[@]}" --periodic xy --salt 0.1)
"$program" "${pargs[@]}" --json psingle.json > psingle.log 2>&1 || { cat psingle.log; exit 1; }
mpirun --oversubscribe -np 2 "$program" "${pargs[@]}" --json pmpi.json > pmpi.log 2>&1 ||
  { cat pmpi.log; exit 1; }
if ! diff <(energies psingle.json) <(energies pmpi.json); then
  echo "periodic x and y on 2 ranks: energies differ from the single process"; exit 1
fi
echo "periodic x and y on 2 ranks equal to the single process's: $(energies pmpi.json)"
rc=0
mpirun --oversubscribe -np 2 "$program" "${args[@]}" --periodic z > pz.log 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "pbz" pz.log; then
  echo "periodic z on 2 ranks: exit $rc"; cat pz.log; exit 1
fi
echo "periodic z on 2 ranks refused with exit 1"
rm -f psingle.* pmpi.* pz.log
# Nonlinear PB by Newton's method (the program's default for nonit > 0) on 2 and 3 ranks: the
# single process's energies (its steps decided from norms reduced over the ranks), ionic terms
# included.
nargs=("$examples/1ubq/run.prm" --backend "$backend" --precision double --nonit 30 --maxc 1e-6
  --energy g,s,ion --quiet)
"$program" "${nargs[@]}" --json nsingle.json > nsingle.log 2>&1 || { cat nsingle.log; exit 1; }
for ranks in 2 3; do
  mpirun --oversubscribe -np "$ranks" "$program" "${nargs[@]}" --json "nmpi$ranks.json" \
    > "nmpi$ranks.log" 2>&1 || { cat "nmpi$ranks.log"; exit 1; }
  if ! diff <(energies nsingle.json) <(energies "nmpi$ranks.json"); then
    echo "Newton on $ranks ranks: energies differ from the single process"; exit 1
  fi
  echo "Newton on $ranks ranks equal to the single process's: $(energies "nmpi$ranks.json")"
done
rm -f nsingle.* nmpi*
# A rank that fails alone (here rank 1, given a molecule file that does not exist) ends the
# whole job with its exit status instead of leaving the others waiting in the solve; rank 0
# leaves no output behind.
rm -f ./*.phi ./*.frc
rc=0
timeout 120 mpirun --oversubscribe -np 1 "$program" "${args[@]}" --json bad0.json : \
  -np 1 "$program" "${args[@]}" --pqr missing.pqr > bad.log 2>&1 || rc=$?
left=$(ls -A | grep -v -E '^(single|mpi[0-9]+)\.(json|log)$|^bad\.log$' || true)
if [ "$rc" != 1 ] || ! grep -q "missing.pqr" bad.log || [ -n "$left" ]; then
  echo "left behind: $left"
  echo "one rank's missing input: exit $rc"; cat bad.log; exit 1
fi
echo "one rank's missing input: the job ended with exit 1"
# Batches under mpirun (rank 0 writes, the others wait for it after each run): DelPhi's focusing
# in two parameter files, the coarse run's phimap read by the focused run (the other ranks read
# it before rank 0 had written it), and a batch whose first run fails, whose second run's
# outputs must stay (the ranks that write nothing ended the job while rank 0 wrote them).
printf 'in(pqr,file="%s")\ngsize=33\nscale=0.5\nbndcon=4\nout(phi,file="coarse.phi")\n' \
  "$examples/born/born_ion.pqr" > coarse.prm
printf 'in(pqr,file="%s")\ngsize=33\nscale=2\nbndcon=3\nin(phi,file="coarse.phi")\nenergy(g,s)\nout(phi,file="fine.phi")\n' \
  "$examples/born/born_ion.pqr" > fine.prm
printf 'in(pqr,file="missing.pqr")\n' > broken.prm
rm -f coarse.phi fine.phi
"$program" coarse.prm fine.prm --backend "$backend" --quiet --json f1.json > f1.log 2>&1 ||
  { cat f1.log; exit 1; }
rm -f coarse.phi fine.phi
timeout 120 mpirun --oversubscribe -np 2 "$program" coarse.prm fine.prm --backend "$backend" \
  --quiet --json f2.json > f2.log 2>&1 || { echo "focusing batch on 2 ranks failed"; cat f2.log; exit 1; }
if [ ! -s fine.phi ] || ! diff <(energies f1.2.json) <(energies f2.2.json); then
  echo "focusing batch on 2 ranks: no fine map, or energies differ from the single process"
  exit 1
fi
rm -f coarse.phi fine.phi
rc=0
timeout 120 mpirun --oversubscribe -np 2 "$program" broken.prm coarse.prm --backend "$backend" \
  --quiet --dx kept.dx > b2.log 2>&1 || rc=$?
if [ "$rc" != 1 ] || [ ! -s coarse.phi ] || [ ! -s kept.2.dx ] || ls -A | grep -q 'tmp-'; then
  echo "a batch with a failed run on 2 ranks: exit $rc, outputs: $(ls -A | tr '\n' ' ')"
  cat b2.log; exit 1
fi
echo "batches on 2 ranks: focusing in two files as one process; a failed run keeps the others' outputs"
