#!/usr/bin/env python3
"""The kit on a real DelPhi: build stock DelPhi and DelPhi with the kit from the source tree in
DELPHI_SOURCE_DIR, run both on bundled cases, compare iteration counts and energies.

Skips (exit 77) when DELPHI_SOURCE_DIR is unset.  The tree must build as it is with gfortran
(the kit's README, "Checking against a real DelPhi", lists what the 2010 release needs); this
test copies nothing from it into the repository and changes none of its files.

Environment:
  DELPHI_SOURCE_DIR   directory with DelPhi's *.f, *.F, *.h, *.c (qdiff4v.F, itit4j.f, ...)
  DELPHI_PRECISIONS   "dp", "sp" or "dp sp" [dp]
  DELPHI_SOURCES      base names of the program's sources [the 2010 release's list]
  DELPHI_FC_FLAGS     flags for every DelPhi source
                      [-O2 -fcray-pointer -ffixed-line-length-none -std=legacy]

Arguments: --build DIR (work folder), --kit DIR (patches/), --moddir DIR, --libdirs DIR...
(the build tree's Fortran modules and libraries), --examples DIR (the repository's examples/).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

# The sources that make up the 2010 release's program (its archive also holds files that are not
# part of it, e.g. inewt.f, phierg.f); DELPHI_SOURCES (space-separated base names) overrides.
RELEASE_2010 = """qdiff4v objvertices distobj timef qinttot elb up cent4 rent4 phintp4 scaler4
setbc4 conplt itit4j wrteps4b relfac4b react2 clb setcrg setfcrg nitit anagrd4 cputime setrc4d
rdiv chkcrg expand4 anasurf rdlog4 wrt4 wrtprm off4 extrm wrtatd distrTOpoint wrtvisual
extrmobjects nlener grdatm crgarr dbsfd mkdbsf phicon wrtphi wrtsit4 encalc4 wrtgcrg namlen3
watput cfind4 rfind4 rdhrad radass4 crgass4 ichash4 irhash4 rdhcrg form2 getatm2 watpte omalt
rforce ts setout epsmak vwtms2 scale indver sas cube msrf mkvtl ex fxhl wrtsurf memalloc
creapdb""".split()

# The link rule names no libraries variable and the flags are in FLAGS, as in the makefile the
# 2010 release is built with in practice; the kit's fragment has to find everything itself.
MAKEFILE = """\
VPATH = {src}
FLAGS = {flags} -I{src} -DLINUX -DIFC -DDP {real}
CFLAGS = -O2 -DLINUX
OBJ1 = {obj1}
OBJ2 = {obj2}
OBJ3 = {obj3}
{include}
delphi: $(OBJ1) $(OBJ2) $(OBJ3)
\t$(FC) -o $@ $(OBJ1) $(OBJ2) $(OBJ3)
%.o: %.F
\t$(FC) $(FLAGS) -c $<
%.o: %.f
\t$(FC) $(FLAGS) -c $<
%.o: %.c
\t$(CC) $(CFLAGS) -c $<
"""

# (name, molecule, parameter lines, charge override); the +20 e ion in 0.5 M salt drives nitit's
# adaptive relaxation through its cuts (to the 1e-4 floor) and speed-ups; maxc is loosened in SP, where DelPhi's max change stalls
# at the float resolution of potentials of hundreds of kT/e.
CASES = [
    ("born", "born/born_ion.pqr",
     ["scale=4.0", "perfil=20", "indi=1.0", "exdi=80.0", "prbrad=1.4", "bndcon=4"], None),
    ("ion20_nonlinear", "born/born_ion.pqr",
     ["scale=2.0", "perfil=20", "indi=1.0", "exdi=80.0", "prbrad=1.4", "bndcon=4", "salt=0.5",
      "nonit=40"], 20.0),
    ("1ubq_0M", "1ubq/1ubq.pqr",
     ["scale=2.0", "perfil=70", "indi=2.0", "exdi=80.0", "prbrad=1.4", "bndcon=2"], None),
    ("1ubq_0.15M", "1ubq/1ubq.pqr",
     ["scale=2.0", "perfil=70", "indi=2.0", "exdi=80.0", "prbrad=1.4", "bndcon=2", "salt=0.15"],
     None),
    ("1ubq_nonlinear", "1ubq/1ubq.pqr",
     ["scale=2.0", "perfil=70", "indi=2.0", "exdi=80.0", "prbrad=1.4", "bndcon=2", "salt=0.15",
      "nonit=40"], None),
    ("1ubq_pbx", "1ubq/1ubq.pqr",
     ["scale=2.0", "perfil=95", "indi=2.0", "exdi=80.0", "prbrad=1.4", "bndcon=2", "salt=0.15",
      "pbx=true"], None),
    ("1ubq_pbxy", "1ubq/1ubq.pqr",
     ["scale=2.0", "perfil=95", "indi=2.0", "exdi=80.0", "prbrad=1.4", "bndcon=2", "salt=0.15",
      "pbx=true", "pby=true"], None),
]
# Periodic axes: the kit orders the sweep so that it converges (docs/PERIODIC.md), stock copies
# the faces after each half sweep; the two take different paths to the same potential, so these
# cases run a fixed 3000 iterations (both fully converged) and compare the energies to round-off.
# pbz is left out: stock's z copy takes the face z = igrid from plane 2 two points off in x
# (docs/PERIODIC.md), so stock solves other equations there.
PERIODIC = {"1ubq_pbx": "linit=3000", "1ubq_pbxy": "linit=3000"}
ENERGIES = ["total grid energy", "corrected reaction field energy",
            "total reaction field energy", "coulombic energy", "rho*phi/2 term in solution",
            "osmotic pressure term", "Total non linear grid energy"]


def delphi_pdb(pqr, out, charge=None):
    """A PQR file as DelPhi's own PDB format 4 (charge F8.4 in columns 55-62, radius F8.3 in
    63-70); charge replaces every atom's charge when given."""
    with open(pqr) as f, open(out, "w") as o:
        o.write("DELPHI PDB\nFORMAT NUMBER=4\n")
        for line in f:
            if line.startswith(("ATOM", "HETATM")):
                x, y, z, q, r = map(float, line.split()[-5:])
                q = q if charge is None else charge
                o.write("%-30s%8.3f%8.3f%8.3f%8.4f%8.3f\n" % (line[:30], x, y, z, q, r))


def build(kind, precision, args, src, sources):
    folder = os.path.join(args.build, "%s_%s" % (kind, precision))
    os.makedirs(folder, exist_ok=True)
    objects = [re.sub(r"\.[fFc]$", ".o", s) for s in sources]
    sor = [o for o in objects if o in ("itit4j.o", "nitit.o")]
    rest = [o for o in objects if o not in sor]
    include = ""
    if kind == "kit":
        include = "include %s/make/delphi_gpu.mk" % args.kit
    text = MAKEFILE.format(src=src, flags=os.environ.get(
        "DELPHI_FC_FLAGS", "-O2 -fcray-pointer -ffixed-line-length-none -std=legacy"),
        real="-fdefault-real-8" if precision == "dp" else "",
        obj1=" ".join(rest[: len(rest) // 2]), obj2=" ".join(sor + rest[len(rest) // 2:]),
        obj3="", include=include)
    with open(os.path.join(folder, "Makefile"), "w") as f:
        f.write(text)
    command = ["make", "-j%d" % (os.cpu_count() or 2), "FC=gfortran"]
    if kind == "kit":
        command += ["GPU=ON", "DELPHI_GPU_MODDIR=%s" % args.moddir,
                    "DELPHI_GPU_LIBDIR=%s" % args.libdirs[0],
                    "DELPHI_GPU_EXTRA_LIBDIRS=%s" % " ".join(args.libdirs[1:])]
    done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:])
        raise SystemExit("building %s DelPhi (%s) failed" % (kind, precision))
    return os.path.join(folder, "delphi")


def run_case(binary, folder, prm):
    env = dict(os.environ, DELPHI_GPU_BACKEND=os.environ.get("DELPHI_GPU_BACKEND", "cpu"))
    done = subprocess.run([binary, prm], cwd=folder, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        print(done.stdout[-3000:])
        raise SystemExit("%s failed on %s" % (binary, prm))
    return done.stdout


def summary(log, kit):
    """Iteration counts and energies from a DelPhi log (stock or kit)."""
    s = {}
    if kit:
        m = re.search(r"delphi-gpu itit: # loops = (\d+)", log)
        s["linear loops"] = m and int(m.group(1))
        s["nonlinear checks"] = len(re.findall(r"nonlinear block \d+", log))
        if s["nonlinear checks"]:
            # the kit's table: "rms max iteration" lines, then "... nonlinear block N" lines
            head = log[:log.rfind("\n", 0, log.index("nonlinear block"))]
            m = re.findall(r"^\s*\S+\s+\S+\s+(\d+)\s*$", head, re.M)
            s["last linear check"] = int(m[-1]) if m else None
    else:
        m = re.search(r"# loops\s*:\s*(\d+)", log)
        s["linear loops"] = m and int(m.group(1))
        s["nonlinear checks"] = len(re.findall(r"\d+ it\. ", log))
        if s["nonlinear checks"]:
            m = re.findall(r"at\s+(\d+)\s+iterations", log)
            s["last linear check"] = int(m[-1]) if m else None
    for name in ENERGIES:
        m = re.search(re.escape(name) + r"\s*:\s*(\S+)", log)
        if m: s[name] = float(m.group(1))
    return s


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--kit", required=True)
    p.add_argument("--moddir", required=True)
    p.add_argument("--libdirs", nargs="+", required=True)
    p.add_argument("--examples", required=True)
    args = p.parse_args()
    src = os.environ.get("DELPHI_SOURCE_DIR")
    if not src:
        print("DELPHI_SOURCE_DIR is not set: skipped")
        return SKIP
    if not os.path.isfile(os.path.join(src, "itit4j.f")):
        raise SystemExit("DELPHI_SOURCE_DIR=%s has no itit4j.f" % src)
    wanted = os.environ.get("DELPHI_SOURCES", "").split() or RELEASE_2010
    present = {os.path.splitext(f)[0]: f for f in os.listdir(src)
               if re.search(r"\.(f|F|c)$", f)}
    missing = [w for w in wanted if w not in present]
    if missing:
        raise SystemExit("DELPHI_SOURCE_DIR lacks %s" % " ".join(missing))
    sources = [present[w] for w in wanted]
    failures = 0
    for precision in os.environ.get("DELPHI_PRECISIONS", "dp").split():
        stock = build("stock", precision, args, src, sources)
        kit = build("kit", precision, args, src, sources)
        # DP: stock's counts exactly and energies to round-off.  SP: the max change is quantised
        # at the float spacing of the potentials and the kit sums in another order, so a count
        # may differ by one check (10 iterations, or 2 nonlinear blocks) and the small
        # nonlinear solvent terms by the loose SP criterion (see the README's SP table).
        tolerance = 1e-9 if precision == "dp" else 1e-4
        slack = 0 if precision == "dp" else 10
        for name, molecule, lines, charge in CASES:
            folder = os.path.join(args.build, "run_%s_%s" % (precision, name))
            os.makedirs(folder, exist_ok=True)
            delphi_pdb(os.path.join(args.examples, molecule), os.path.join(folder, "mol.pdb"),
                       charge)
            criterion = "maxc=0.0001" if precision == "dp" else "maxc=0.001"
            periodic = name in PERIODIC
            if periodic:
                if precision != "dp":
                    continue  # SP stalls above a criterion tight enough to compare energies
                criterion = PERIODIC[name]
            with open(os.path.join(folder, "run.prm"), "w") as f:
                f.write("\n".join(['in(pdb,file="mol.pdb")'] + lines +
                                  [criterion, "energy(g,s,c)", ""]))
            a = summary(run_case(stock, folder, "run.prm"), False)
            b = summary(run_case(kit, folder, "run.prm"), True)
            for key in sorted(set(a) | set(b)):
                if precision == "sp" and key == "coulombic energy":
                    continue  # the SP build of DelPhi prints garbage there
                x, y = a.get(key), b.get(key)
                if isinstance(x, float) and isinstance(y, float):
                    rel = abs(x - y) / max(abs(x), 1e-300)
                    small_term = key.startswith(("rho*phi", "osmotic"))
                    ok = rel <= (tolerance if precision == "dp" or not small_term else 5e-2)
                    print("%s %-15s %-34s stock %.15g kit %.15g rel %.1e %s" % (
                        precision, name, key, x, y, rel, "ok" if ok else "DIFFERS"))
                elif isinstance(x, int) and isinstance(y, int):
                    ok = abs(x - y) <= (slack if key != "nonlinear checks" else slack // 5)
                    print("%s %-15s %-34s stock %s kit %s %s" % (
                        precision, name, key, x, y, "ok" if ok else "DIFFERS"))
                else:
                    ok = x == y
                    print("%s %-15s %-34s stock %s kit %s %s" % (
                        precision, name, key, x, y, "ok" if ok else "DIFFERS"))
                failures += not ok
    print("real DelPhi: %s" % ("all agree" if not failures else "%d differences" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
