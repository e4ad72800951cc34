#!/usr/bin/env python3
"""Trajectory throughput: frames per second of one warm calculation (set_positions + run,
energies included) against a cold calculation per frame (create + set_atoms + run), on a
generated trajectory (perturbed copies of a structure).  Writes a JSON record.

    python3 python/bench/bench_trajectory.py --source examples/1ubq/1ubq.pqr --gsize 141 \
        --frames 30 --backend cuda --json build/bench_trajectory.json
"""
import argparse
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
import trajectory  # noqa: E402  (also puts the source checkout's package on the path)

dg = trajectory.dg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default=os.path.join(ROOT, "examples", "1ubq", "1ubq.pqr"))
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--cold-frames", type=int, default=3)
    ap.add_argument("--gsize", type=int, default=141)
    ap.add_argument("--scale", type=float, default=2.0)
    ap.add_argument("--maxc", type=float, default=1e-4)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--precision", default="double")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench_trajectory"))
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    os.makedirs(args.work, exist_ok=True)
    path = os.path.join(args.work, os.path.basename(args.source).replace(".pqr", "_traj.pqr"))
    trajectory.make_trajectory(args.source, path, args.frames, 0.25)
    models = dg.read_pqr_models(path)
    options = dict(scale=args.scale, gsize=args.gsize, indi=2.0, exdi=80.0, prbrad=1.4,
                   ionrad=2.0, salt=0.15, bndcon=2, maxc=args.maxc, energies="g,c,s",
                   backend=args.backend, precision=args.precision)

    warm = trajectory.run_trajectory(models, options, log=lambda s: None)
    cold = []
    for model in models[1:1 + args.cold_frames]:
        t = time.perf_counter()
        with dg.Calculation(model.positions, model.charges, model.radii, **options) as calc:
            calc.run()
        cold.append(time.perf_counter() - t)
    record = dict(
        source=os.path.relpath(args.source, ROOT), atoms=warm["atoms"], frames=len(models),
        grid_n=warm["grid_n"], scale=warm["grid_scale"], backend=warm["backend"],
        precision=args.precision, maxc=args.maxc,
        warm_frames_per_second=warm["warm_frames_per_second"],
        warm_frame_ms=1e3 / warm["warm_frames_per_second"],
        first_frame_seconds=warm["first_frame_seconds"], create_seconds=warm["create_seconds"],
        cold_frame_ms=1e3 * sum(cold) / len(cold) if cold else None,
        mean_iterations=sum(r["iterations"] for r in warm["records"]) / len(models),
        mean_solve_ms=1e3 * sum(r["solve_seconds"] for r in warm["records"][1:]) /
        max(1, len(models) - 1),
        mean_stage_ms={key: 1e3 * sum(r["timing"][key] for r in warm["records"][1:]) /
                       max(1, len(models) - 1) for key in warm["records"][0]["timing"]},
        library=dg.library_version(), host=platform.node())
    print(json.dumps(record, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dict(record, frames_detail=warm["records"]), fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
