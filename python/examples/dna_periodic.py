#!/usr/bin/env python3
"""Nonlinear Poisson-Boltzmann of DNA along a periodic axis.

Builds a B-DNA-like duplex (per base pair two phosphates of -1 e, radius 1.9 A, on helices of
radius 8.9 A, rise 3.38 A, twist 36 degrees, minor groove 155 degrees; neutral atoms filling the
core; the model of scripts/make_charged_inputs.py dna) and makes the grid's period along z a
whole number of helical turns (10 base pairs, 33.8 A each): the duplex then stands for an
infinite one.  With --array x and y are periodic too: a square array of parallel duplexes one
period apart.  For each salt concentration it solves linear PB and nonlinear PB (Newton's
method, the library's default for nonlinear runs) and prints the mean potential on the
cylinder 12 A from the axis (just outside the phosphates, where the ions begin) and the
nonlinear effect per base pair, (grid energy + ionic terms) of the nonlinear run minus the
grid energy of the linear one.  At low salt the linear equation overstates the potential near
the duplex (counterions condense on it).

    python3 python/examples/dna_periodic.py --salt 0.01 0.1 1.0
    python3 python/examples/dna_periodic.py --turns 1 --array --scale 2 --backend cuda

Without --array the faces along x and y take the library's boundary values of one period's
charges (bndcon 2): keep them several Debye lengths from the duplex (--turns widens the box).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
try:
    import delphi_gpu as dg
except ImportError:  # running from a source checkout
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import delphi_gpu as dg

RISE, TWIST, HELIX_RADIUS, BP_PER_TURN = 3.38, 36.0, 8.9, 10


def duplex(base_pairs):
    """Positions, charges and radii of a duplex of base_pairs, centred on the origin, its axis
    along z."""
    positions, charges = [], []
    for k in range(base_pairs):
        z = (k - (base_pairs - 1) / 2.0) * RISE
        angle = math.radians(TWIST * k)
        for offset in (0.0, math.radians(155.0)):
            positions.append((HELIX_RADIUS * math.cos(angle + offset),
                              HELIX_RADIUS * math.sin(angle + offset), z))
            charges.append(-1.0)
        for radius, turn in ((0.0, 0.0), (3.5, 0.8), (6.0, 2.4), (6.0, 4.0)):
            positions.append((radius * math.cos(angle + turn), radius * math.sin(angle + turn), z))
            charges.append(0.0)
    return np.array(positions), np.array(charges), np.full(len(positions), 1.9)


def cylinder(radius, base_pairs, per_turn=36):
    """Points on the cylinder of that radius around the axis: per_turn angles at each base
    pair's height."""
    points = []
    for k in range(base_pairs):
        z = (k - (base_pairs - 1) / 2.0) * RISE
        for j in range(per_turn):
            a = 2.0 * math.pi * j / per_turn
            points.append((radius * math.cos(a), radius * math.sin(a), z))
    return np.array(points)


def periodic_grid(turns, scale):
    """gsize and scale whose period, gsize - 2 spacings (an odd number), is `turns` helical
    turns, at the scale nearest the one asked for."""
    period = turns * BP_PER_TURN * RISE
    spacings = max(3, int(round(period * scale)))
    if spacings % 2 == 0:
        spacings += 1
    return spacings + 2, spacings / period


def run_salts(salts, turns=2, scale=1.0, array=False, options=None, log=print):
    """Linear and nonlinear PB of the periodic duplex at each salt; one record per salt."""
    positions, charges, radii = duplex(turns * BP_PER_TURN)
    probes = cylinder(12.0, turns * BP_PER_TURN)
    gsize, exact_scale = periodic_grid(turns, scale)
    base = dict(gsize=gsize, scale=exact_scale, acenter=(0.0, 0.0, 0.0), indi=2.0, exdi=80.0,
                periodic="xyz" if array else "z", energies="g,ion", maxc=1e-5)
    base.update(options or {})
    records = []
    for salt in salts:
        record = {"salt": salt}
        for kind, extra in (("linear", {}), ("nonlinear", {"nonit": 50})):
            with dg.Calculation(positions, charges, radii, salt=salt, **dict(base, **extra)) as c:
                res = c.run()
                if not res.converged:
                    raise RuntimeError("%s PB at %g M: %s" % (kind, salt, res.outcome))
                at = c.potentials_at(probes)
            ionic = res.energies.get("ionic_total") if kind == "nonlinear" else 0.0
            record[kind] = {"potential_12A": float(np.mean(at)),
                            "energy": res.energies["grid"] + (ionic or 0.0),
                            "iterations": res.iterations,
                            "steps": res.solve["nonlinear_blocks"]}
        record["nonlinear_effect_per_bp"] = (record["nonlinear"]["energy"]
                                             - record["linear"]["energy"]) / (turns * BP_PER_TURN)
        log("%6g M: potential 12 A from the axis %7.3f kT/e (linear %7.3f), nonlinear effect "
            "%9.4f kT per base pair; Newton %d steps, %d sweeps" % (
                salt, record["nonlinear"]["potential_12A"], record["linear"]["potential_12A"],
                record["nonlinear_effect_per_bp"],
                record["nonlinear"]["steps"], record["nonlinear"]["iterations"]))
        records.append(record)
    return records, gsize, exact_scale


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--salt", type=float, nargs="+", default=[0.01, 0.1, 1.0],
                    help="1:1 salt concentrations, mol/L (default 0.01 0.1 1.0)")
    ap.add_argument("--turns", type=int, default=2, help="helical turns per period (default 2)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="grid points per A, adjusted to fit the period (default 1)")
    ap.add_argument("--array", action="store_true", help="x and y periodic too")
    ap.add_argument("--backend", default="auto", help="auto, cpu or cuda")
    ap.add_argument("--json", help="write the records to this file")
    args = ap.parse_args(argv)
    if any(s <= 0 for s in args.salt) or args.turns < 1 or args.scale <= 0:
        ap.error("salt, turns and scale must be positive")
    records, gsize, scale = run_salts(args.salt, args.turns, args.scale, args.array,
                                      {"backend": args.backend})
    print("grid %d^3 at scale %.5f (period %.1f A), %s periodic" % (
        gsize, scale, args.turns * BP_PER_TURN * RISE, "x, y and z" if args.array else "z"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
