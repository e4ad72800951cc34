#!/usr/bin/env python3
"""Electrostatic binding energy of two partners, for one structure or every model of a
trajectory, with one warm calculation.

The partners are chains of a PQR file: "A:B" (chain A against chain B) or "A" (chain A against
all other atoms).  For each model the calculation runs each partner alone and then the complex,
all on the complex's grid (placed from the first model; later models move the atoms with
set_positions), and prints the binding energy (Coulombic + corrected reaction field + salt
parts, complex minus partners), its salt part and the grid energies' difference.

    python3 python/examples/binding.py regression/data/1hpv.pqr --partners A:B --scale 2
    python3 python/examples/binding.py traj.pqr --partners A --salt 0.15 --backend cuda
    python3 python/examples/binding.py big.pqr --scale 2 --coarse-perfil 20   # focused
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
try:
    import delphi_gpu as dg
except ImportError:  # running from a source checkout
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import delphi_gpu as dg


def partner_of(atoms, partners):
    """0/1 per atom from "A:B" or "A" (chain identifiers; "_" for a blank chain)."""
    sides = [{"" if c == "_" else c for c in side.replace(",", "")}
             for side in partners.split(":")]
    if len(sides) > 2 or not all(sides):
        raise ValueError(f'partners {partners!r}: "A:B" or "A"')
    chains = atoms.chains
    first = np.isin(chains, list(sides[0]))
    if len(sides) == 1:
        return (~first).astype(np.intc)
    second = np.isin(chains, list(sides[1]))
    neither = ~(first | second)
    if neither.any():
        k = int(np.argmax(neither))
        raise ValueError(f"atom {k + 1} ({atoms.names[k]}) is in neither partner of {partners}")
    return second.astype(np.intc)


def run_binding(models, partners, options, log=print):
    """The binding energy of every model; returns per-model records."""
    partner = partner_of(models[0], partners)
    first = models[0]
    records = []
    with dg.Calculation(first.positions, first.charges, first.radii, **options) as calc:
        for number, model in enumerate(models):
            t = time.perf_counter()
            if number:
                calc.set_positions(model.positions)
            b = calc.binding(partner)
            dt = time.perf_counter() - t
            coarse = b.complex.coarse_solve
            converged = (b.complex.converged and all(p["converged"] for p in b.partners)
                         and (coarse is None or coarse["outcome"] == "converged"))
            records.append(dict(model=number + 1, energy=b.energy, salt=b.salt,
                                grid_energy=b.grid_energy, coulombic=b.difference["coulombic"],
                                reaction_field=b.difference["reaction_field"],
                                converged=converged, seconds=dt, grid_n=b.complex.grid.n,
                                backend=b.complex.backend))
            log(f"model {number + 1:4d}  binding {b.energy:12.4f} kT  (salt {b.salt:9.4f}; "
                f"grid energies {b.grid_energy:12.4f})  {'' if converged else 'NOT CONVERGED '}"
                f"{dt:7.3f} s")
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pqr", help="PQR file (one model, or MODEL/ENDMDL blocks)")
    ap.add_argument("--partners", default="A:B", help='chains: "A:B" or "A" (default A:B)')
    ap.add_argument("--scale", type=float, default=2.0)
    ap.add_argument("--indi", type=float, default=2.0)
    ap.add_argument("--exdi", type=float, default=80.0)
    ap.add_argument("--salt", type=float, default=0.0)
    ap.add_argument("--maxc", type=float, default=1e-5)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--coarse-perfil", type=float, default=0.0,
                    help="focus each state from a coarse solve that the molecule fills this "
                         "percent of (e.g. 20; default: no focusing)")
    ap.add_argument("--json", help="write the per-model records here")
    args = ap.parse_args(argv)
    models = dg.read_pqr_models(args.pqr)
    print(f"{len(models)} model(s) of {len(models[0])} atoms from {args.pqr}; partners "
          f"{args.partners}")
    options = dict(scale=args.scale, indi=args.indi, exdi=args.exdi, salt=args.salt,
                   maxc=args.maxc, bndcon=2, energies="g,c,s", backend=args.backend)
    if args.coarse_perfil > 0:
        options["coarse_perfil"] = args.coarse_perfil
    records = run_binding(models, args.partners, options)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(records, fh, indent=1)
    return 0 if all(r["converged"] for r in records) else 3


if __name__ == "__main__":
    sys.exit(main())
