#!/usr/bin/python3
"""delphi-gpu regression suite: one command, independent references, a report with figures.

  regression/run_suite.py --quick --program build/host/app/delphi-gpu
  regression/run_suite.py --full --backend both --program ... --out DIR
  regression/run_suite.py --full --solver both --program ...   (multigrid against the SOR)

--quick  CI subset (CPU, small grids, a few minutes on 2 cores, APBS run live)
--full   everything (spacing studies, salt, nonlinear PB, both proteins); APBS from the cache
         in regression/reference/ when valid, else run live.

Exit status: 0 every comparison passed; 1 some comparison failed; 2 the suite could not run
(missing program, APBS, bad arguments).  Results: OUT/results.json and OUT/report/REPORT.md
(OUT defaults to ./build-regression-quick or ./build-regression-full).
Run regression/setup.sh first (APBS, pdb2pqr, numpy, matplotlib from Debian).
"""

import argparse
import json
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from dgreg import apbs, cases, compare, environment, suite  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--quick", action="store_true", help="CI subset")
    size.add_argument("--full", action="store_true", help="the whole suite")
    p.add_argument("--program", help="the delphi-gpu executable (default: delphi-gpu on PATH)")
    p.add_argument("--backend", choices=("cpu", "cuda", "both"), default="cpu")
    p.add_argument("--precision", choices=("auto", "double", "float", "both"), default="auto",
                   help="auto: double, plus float where a case asks for it")
    p.add_argument("--solver", choices=("auto", "sor", "mg", "both"), default="auto",
                   help="linear solver of the runs: auto (the program's choice), sor, mg, or both "
                   "(every case by each, and multigrid compared with the SOR)")
    p.add_argument("--out", help="work and results folder (default ./build-regression-quick or "
                   "./build-regression-full: the repository ignores /build*/)")
    p.add_argument("--apbs", choices=("live", "cache", "auto", "off"),
                   help="APBS references: run live, cached only, cache else live, or off "
                   "(APBS cases then fail); default live for --quick, auto for --full")
    p.add_argument("--update-references", action="store_true",
                   help="write live APBS results into regression/reference/")
    p.add_argument("--only", help="regular expression: run only the cases whose name matches")
    p.add_argument("--resume", action="store_true",
                   help="reuse runs of an earlier invocation in OUT with identical commands")
    p.add_argument("--publish", action="store_true",
                   help="also write the report into regression/report/ (the kept report)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds per program run")
    p.add_argument("--threads", type=int, help="CPU threads per run (--threads of delphi-gpu)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    return p.parse_args(argv)


def find_program(arg):
    path = arg or shutil.which("delphi-gpu")
    if not path:
        return None, "no delphi-gpu: give --program PATH (build it with cmake first)"
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, "%s is not an executable file" % path
    return os.path.abspath(path), ""


def main(argv):
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    out = os.path.abspath(args.out or "build-regression-%s" % mode)
    apbs_mode = args.apbs or ("live" if args.quick else "auto")
    os.makedirs(out, exist_ok=True)

    make_cases = cases.quick_cases if args.quick else cases.full_cases
    selected = make_cases(os.path.join(out, "molecules"))
    if args.only:
        selected = [c for c in selected if re.search(args.only, c.name)]
        if not selected:
            print("run_suite: no case matches --only %r" % args.only, file=sys.stderr)
            return 2
    if args.list:
        for c in selected:
            print("%-32s %-13s %-8s %s" % (c.name, c.group, c.reference_kind, c.problem.describe()))
        return 0

    program, why = find_program(args.program)
    if program is None:
        print("run_suite: " + why, file=sys.stderr)
        return 2
    apbs_version = None
    if apbs_mode in ("live", "auto"):
        exe = apbs.apbs_executable()
        if exe is None and apbs_mode == "live":
            print("run_suite: apbs is not installed; run regression/setup.sh (installs Debian's "
                  "apbs, pdb2pqr, python3-numpy and python3-matplotlib)", file=sys.stderr)
            return 2
        if exe is not None:
            apbs_version = apbs.apbs_version(exe)

    backends = ["cpu", "cuda"] if args.backend == "both" else [args.backend]
    plan = suite.make_plan(selected, backends, args.precision, args.solver)
    started = time.monotonic()

    if apbs_mode == "off":
        refs = {c.name: {"error": "APBS switched off (--apbs off)"}
                for c in selected if c.reference_kind == "apbs"}
    else:
        refs = suite.apbs_references(plan, apbs_mode, out, args.update_references, args.quiet)
        versions = {r.get("apbs_version") for r in refs.values() if "apbs_version" in r}
        apbs_version = apbs_version or ", ".join(sorted(versions)) or None

    executor = suite.Executor(program, out, reuse=args.resume, quiet=args.quiet,
                              timeout=args.timeout, threads=args.threads)
    results = suite.execute(plan, executor)
    rows = compare.evaluate(plan, results, refs)
    seconds = time.monotonic() - started

    meta = environment.describe(program, apbs_version)
    sources = {}
    for r in refs.values():
        key = r.get("source", "unavailable")
        sources[key] = sources.get(key, 0) + 1
    meta.update({"apbs_sources": sources, "mode": mode, "backends": backends,
                 "precision_policy": args.precision, "solver_policy": args.solver,
                 "apbs_mode": apbs_mode, "only": args.only,
                 "wall_s": round(seconds, 1),
                 "runs": executor.count, "reused_runs": executor.reused,
                 "reused_run_s": round(executor.reused_seconds, 1)})
    document = {
        "meta": meta,
        "cases": [{"name": c.name, "group": c.group, "reference": c.reference_kind,
                   "problem": c.problem.describe(), "spacing": c.problem.spacing,
                   "length_scale": c.length_scale, "series": c.series,
                   "analytic": c.analytic,
                   "tolerances": {q: {"rel": t.rel, "abs": t.abs, "reason": t.reason}
                                  for q, t in c.tolerance.items()}} for c in selected],
        "apbs": {k: {kk: vv for kk, vv in v.items() if kk != "input"} for k, v in refs.items()},
        "runs": [{"case": k[0], "backend": k[1], "precision": k[2], "solver": k[3],
                  "role": k[4], "error": r.get("error"), "history": r.get("history"),
                  "summary": r.get("summary")} for k, r in results.items()],
        "rows": rows,
    }
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(document, f, indent=1)

    from dgreg import report  # matplotlib is imported lazily inside
    report_dir = os.path.join(out, "report")
    report.write(document, report_dir)
    if args.publish:
        report.write(document, os.path.join(HERE, "report"))
        with open(os.path.join(HERE, "report", "results.json"), "w") as f:
            json.dump(document, f, indent=1)

    if not rows:
        print("run_suite: no comparisons were made", file=sys.stderr)
        return 1
    failed = [r for r in rows if not r["passed"]]
    print("regression %s: %d comparisons, %d failed, %d runs, %.0f s; report %s"
          % (mode, len(rows), len(failed), executor.count, seconds,
             os.path.join(report_dir, "REPORT.md")))
    for r in failed[:40]:
        print("  FAIL %-30s %-16s %-22s %-18s ours %s ref %s limit %s %s"
              % (r["case"], r["kind"], r["quantity"], r["variant"], _fmt(r["ours"]),
                 _fmt(r["reference"]), _fmt(r["limit"]), r["note"]))
    if len(failed) > 40:
        print("  ... and %d more (see the report)" % (len(failed) - 40))
    return 1 if failed else 0


def _fmt(v):
    return "-" if v is None else "%.6g" % v


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
