#!/usr/bin/python3
"""A stand-in for delphi-gpu used ONLY by the suite's self-test (selftest.py).

It accepts the command line the suite builds, and for a sphere PQR (one atom with a radius, the
rest point charges) writes the JSON summary, log and map that a correct program would write,
using the analytic energies.  Environment variables make it wrong on purpose:
  FAKE_DG_ENERGY_ERROR  relative error added to the solvation part of every energy (e.g. 0.3)
  FAKE_DG_CUDA_SKEW     relative error of the cuda backend's potentials and energies
  FAKE_DG_MG_SKEW       relative error of the multigrid runs' (--solver mg) potentials and energies
  FAKE_DG_EXIT          exit with this status (after writing the outputs, as CLI.md says for 3)
  FAKE_DG_DROP_KEY      a dotted JSON key to leave out (e.g. energies_kT.grid)
"""

import argparse
import array
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dgreg import analytic, constants  # noqa: E402
from dgreg.molecules import read_pqr  # noqa: E402


def parse(argv):
    p = argparse.ArgumentParser()
    for name in ("pqr", "set", "backend", "precision", "energy", "json", "log", "phi", "surface",
                 "nonlinear", "solver"):
        p.add_argument("--" + name)
    for name in ("gsize", "bndcon", "conint", "nonit", "linit"):
        p.add_argument("--" + name, type=int)
    for name in ("scale", "indi", "exdi", "prbrad", "ionrad", "salt", "temper", "maxc"):
        p.add_argument("--" + name, type=float)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def energies(args):
    atoms = read_pqr(args.pqr)
    sphere = max(atoms, key=lambda a: a[4])
    charges = [(a[3], (a[0] - sphere[0], a[1] - sphere[1], a[2] - sphere[2])) for a in atoms
               if a[3] != 0.0]
    temperature = args.temper + 273.15
    epkt = constants.delphi_epkt(temperature)
    reaction = analytic.kirkwood_energy(charges, sphere[4], args.indi, args.exdi, epkt)
    screening, ionic_terms = 0.0, None
    if args.salt > 0.0:  # a central charge: the Debye-Hueckel sphere, or DelPhi's nonlinear PB
        kappa = 1.0 / constants.delphi_debye_length(temperature, args.exdi, args.salt)
        q = sum(c for c, _ in charges)
        b = sphere[4] + args.ionrad
        screening = -0.5 * epkt * q * q * kappa / (args.exdi * (1.0 + kappa * b))
        if args.nonit:
            # Newton (the program's default) solves the exact sinh equation, DelPhi's scheme and
            # newton-polynomial DelPhi's polynomial.
            density = "exact" if (args.nonlinear or "newton") == "newton" else "delphi"
            parts = analytic.radial_pb_sphere(q, sphere[4], b, args.indi, args.exdi, kappa, epkt,
                                              ion_density=density)
            screening = parts["charge_term"] - reaction
            ionic_terms = parts["ionic_term"]
    self_energy = sum(c * c for c, _ in charges) * 0.5 * epkt * args.scale * 1.2
    error = float(os.environ.get("FAKE_DG_ENERGY_ERROR", "0"))
    grid = self_energy + (reaction + screening) * (1.0 + error)
    if ionic_terms is not None:
        ionic_terms *= 1.0 + error
    return grid, reaction * (1.0 + error), ionic_terms, charges, epkt


def _record(f, data):
    f.write(struct.pack("<I", len(data)) + data + struct.pack("<I", len(data)))


def write_phimap(path, args, charges, epkt, skew):
    """A Coulomb potential on the grid, in DelPhi's binary phimap layout (x fastest)."""
    n, h = args.gsize, 1.0 / args.scale
    half = (n - 1) / 2.0
    values = array.array("f")
    for k in range(n):
        for j in range(n):
            for i in range(n):
                x, y, z = (i - half) * h, (j - half) * h, (k - half) * h
                phi = 0.0
                for q, (cx, cy, cz) in charges:
                    r = math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2)
                    phi += q * epkt / (args.indi * max(r, 0.5 * h))
                values.append(phi * (1.0 + skew))
    if sys.byteorder != "little":
        values.byteswap()
    with open(path, "wb") as f:
        _record(f, b"now starting phimap ")
        _record(f, b"potential " + b"fake".ljust(60))
        _record(f, values.tobytes())
        _record(f, b" end of phimap  ")
        _record(f, struct.pack("<ffffi", args.scale, 0.0, 0.0, 0.0, n))


def main(argv):
    args = parse(argv)
    skew = float(os.environ.get("FAKE_DG_CUDA_SKEW", "0")) if args.backend == "cuda" else 0.0
    multigrid = args.solver == "mg"
    if multigrid:
        skew += float(os.environ.get("FAKE_DG_MG_SKEW", "0"))
    grid, reaction, ionic, charges, epkt = energies(args)
    iterations = args.linit if args.linit else (100 if args.precision == "double" else 110)
    if multigrid and not args.linit:
        iterations = 10
    summary = {
        "grid": {"size": [args.gsize] * 3, "scale": args.scale, "center": [0.0, 0.0, 0.0],
                 "boundary_points": 1000, "charged_points": 8 * len(charges)},
        "solver": {"backend": args.backend, "precision": args.precision,
                   "equation": "nonlinear_pb" if args.nonit else
                   ("linear_pb" if args.salt > 0 else "poisson"),
                   "method": "multigrid" if multigrid else "sor",
                   "iterations": iterations, "converged": args.linit is None,
                   "outcome": "completed" if args.linit else "converged",
                   "max_change": 9e-5, "omega": None if multigrid else 1.9,
                   "spectral_radius": None if multigrid else 0.99},
        "energies_kT": {"grid": grid * (1.0 + skew), "coulombic": None,
                        "reaction_field_corrected": reaction * (1.0 + skew),
                        "ionic": (ionic or 0.0) * (1.0 + skew) if args.nonit else None},
        "timing_s": {"setup": 0.01, "solve": 0.02, "energies": 0.001, "total": 0.031},
    }
    drop = os.environ.get("FAKE_DG_DROP_KEY")
    if drop:
        node = summary
        parts = drop.split(".")
        for p in parts[:-1]:
            node = node[p]
        node.pop(parts[-1], None)
    with open(args.json, "w") as f:
        json.dump(summary, f)
    with open(args.log, "w") as f:
        f.write("  rms-change     max change    at iteration\n")
        for it in range(10, iterations + 1, 10):
            f.write("  %.4e     %.4e    %d\n" % (0.1 * 0.9 ** it, 0.5 * 0.93 ** it, it))
        f.write("outcome              : converged after %d iterations\n" % iterations)
    if args.phi:
        write_phimap(args.phi, args, charges, epkt, skew)
    return int(os.environ.get("FAKE_DG_EXIT", "0"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
