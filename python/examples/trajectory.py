#!/usr/bin/env python3
"""Electrostatic energies along a trajectory with one warm calculation.

Reads a multi-model PQR file (MODEL/ENDMDL blocks, the same atoms in every model), creates one
delphi_gpu.Calculation on the first model and, for each frame, only sends the new coordinates
(set_positions) and runs: the grid, the device buffers and the solver stay in place.  Prints
the grid, Coulombic and corrected reaction-field energies per frame and the frame rate.

    python3 python/examples/trajectory.py --make-trajectory build/traj.pqr --frames 20
    python3 python/examples/trajectory.py build/traj.pqr --gsize 141 --backend cuda

--make-trajectory writes a test trajectory: perturbed copies of a structure's coordinates
(default examples/1ubq/1ubq.pqr; Gaussian displacements of --sigma Angstrom per atom).
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


def make_trajectory(source, path, frames, sigma, seed=1):
    """Write `frames` perturbed copies of `source`'s first model to `path`."""
    atoms = dg.read_pqr(source)
    rng = np.random.default_rng(seed)
    models = []
    for _ in range(frames):
        moved = atoms.positions + rng.normal(scale=sigma, size=atoms.positions.shape)
        models.append(dg.Atoms(moved, atoms.charges, atoms.radii, atoms.names))
    if os.path.dirname(str(path)):
        os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    dg.write_pqr_models(path, models)
    return models


def run_trajectory(models, options, log=print):
    """Solve every model with one calculation; returns per-frame records and timings."""
    first = models[0]
    t0 = time.perf_counter()
    calc = dg.Calculation(first.positions, first.charges, first.radii, **options)
    t_create = time.perf_counter() - t0
    records = []
    t_frames = time.perf_counter()
    for number, model in enumerate(models):
        t = time.perf_counter()
        if number:
            calc.set_positions(model.positions)
        res = calc.run()
        dt = time.perf_counter() - t
        if not res.converged:
            raise RuntimeError(f"frame {number + 1}: the solve ended {res.outcome}")
        e = res.energies
        records.append(dict(frame=number + 1, seconds=dt, iterations=res.iterations,
                            solve_seconds=res.timing["solve"], timing=res.timing, **e))
        log(f"frame {number + 1:4d}  grid {e.get('grid', float('nan')):14.4f}  "
            f"coulombic {e.get('coulombic', float('nan')):14.4f}  "
            f"reaction field {e.get('reaction_field', float('nan')):12.4f} kT  "
            f"{res.iterations:4d} it  {dt * 1e3:8.1f} ms")
    total = time.perf_counter() - t_frames
    grid = res.grid
    calc.close()
    warm = [r["seconds"] for r in records[1:]] or [records[0]["seconds"]]
    return dict(records=records, create_seconds=t_create, frames_seconds=total,
                first_frame_seconds=records[0]["seconds"],
                warm_frames_per_second=len(warm) / sum(warm), grid_n=grid.n,
                grid_scale=grid.scale, grid_center=list(grid.center), backend=res.backend, atoms=len(first))


def options_from_args(args):
    opts = dict(scale=args.scale, indi=args.indi, exdi=args.exdi, prbrad=1.4, ionrad=2.0,
                salt=args.salt, bndcon=2, maxc=args.maxc, energies="g,c,s",
                backend=args.backend, precision=args.precision)
    if args.gsize:
        opts["gsize"] = args.gsize
    return opts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trajectory", nargs="?", help="multi-model PQR file")
    ap.add_argument("--make-trajectory", metavar="PATH", help="write a test trajectory")
    ap.add_argument("--source", default=os.path.join(ROOT, "examples", "1ubq", "1ubq.pqr"))
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--sigma", type=float, default=0.25)
    ap.add_argument("--gsize", type=int, default=0, help="points per axis (0: from perfil)")
    ap.add_argument("--scale", type=float, default=2.0)
    ap.add_argument("--indi", type=float, default=2.0)
    ap.add_argument("--exdi", type=float, default=80.0)
    ap.add_argument("--salt", type=float, default=0.15)
    ap.add_argument("--maxc", type=float, default=1e-4)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--precision", default="double")
    ap.add_argument("--json", help="write per-frame energies and timings here")
    args = ap.parse_args(argv)

    if args.make_trajectory:
        make_trajectory(args.source, args.make_trajectory, args.frames, args.sigma)
        print(f"wrote {args.frames} frames to {args.make_trajectory}")
        if not args.trajectory:
            return 0
    if not args.trajectory:
        ap.error("give a trajectory (or --make-trajectory PATH)")
    models = dg.read_pqr_models(args.trajectory)
    print(f"{len(models)} frames of {len(models[0])} atoms from {args.trajectory}")
    out = run_trajectory(models, options_from_args(args))
    print(f"grid {out['grid_n']}^3 at scale {out['grid_scale']}, backend {out['backend']}; "
          f"create {out['create_seconds']:.3f} s, first frame {out['first_frame_seconds']:.3f} s, "
          f"then {out['warm_frames_per_second']:.2f} frames/s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
