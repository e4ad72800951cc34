"""Running the program under test, `delphi-gpu`, exactly as host/app/CLI.md describes it."""

import json
import math
import os
import re
import subprocess
import time

from . import constants
from .molecules import read_pqr

# Stopping criterion of every converged run: max change per iteration (kT/e).  In double, 1e-4
# leaves a potential error far below the tolerances of the comparisons.  In float the change of
# one iteration cannot fall below the rounding of the largest potential: it stalls at a few units
# in the last place of max|phi| (measured: 2e-4 to 5e-4 for phi ~ 3000 kT/e), so a float run stops
# at MAX_CHANGE or 4 ulp of its estimated max|phi|, whichever is larger (float_max_change).
MAX_CHANGE = 1e-4
FLOAT_ULPS = 4
# The finite-difference potential of a grid charge q at its own point is about
# 3.2 epkt q / (eps_in h) (the lattice Green's function at the origin, 0.2527 / h, times 4 pi);
# the highest potential of a molecule is of that order for its largest atomic charge.
SELF_POTENTIAL_FACTOR = 3.2
CHECK_INTERVAL = 10  # DelPhi's conint default, stated explicitly
NONLINEAR_BLOCKS = 50  # nonit; DelPhi raises values <= 20 to 30
FIXED_ITERATIONS = 60  # iterations of the fixed-count runs of the backend comparison

EXIT_MEANING = {0: "success", 1: "bad input or usage", 2: "solver or device failure",
                3: "diverged or not converged"}


class RunFailure(Exception):
    pass


def float_max_change(problem, max_abs_charge):
    """The float stopping criterion: MAX_CHANGE or FLOAT_ULPS ulps of the estimated max|phi|."""
    phi = (SELF_POTENTIAL_FACTOR * constants.delphi_epkt(problem.temperature) * max_abs_charge
           / (problem.eps_in * problem.spacing))
    if phi <= 0.0:
        return MAX_CHANGE
    ulp = 2.0 ** (math.floor(math.log2(phi)) - 23)
    return max(MAX_CHANGE, FLOAT_ULPS * ulp)


def stopping_max_change(problem, precision):
    if precision != "float":
        return MAX_CHANGE
    atoms = read_pqr(problem.pqr)
    return float_max_change(problem, max(abs(a[3]) for a in atoms))


def build_argv(exe, problem, backend, precision, json_path, log_path, map_path=None,
               fixed_iterations=None, threads=None, solver="auto"):
    """The command line for one run of `problem`."""
    argv = [
        exe,
        "--pqr", problem.pqr,
        "--gsize", str(problem.gsize),
        "--scale", repr(float(problem.scale)),
        "--set", "acenter(%.6f,%.6f,%.6f)" % tuple(problem.centre),
        "--indi", repr(float(problem.eps_in)),
        "--exdi", repr(float(problem.eps_out)),
        "--prbrad", repr(float(problem.probe)),
        "--ionrad", repr(float(problem.ion_radius)),
        "--salt", repr(float(problem.salt)),
        "--bndcon", str(problem.bndcon),
        "--temper", "%.6f" % constants.celsius(problem.temperature),
        "--conint", str(CHECK_INTERVAL),
        "--surface", "molecular",
        "--backend", backend,
        "--precision", precision,
        "--solver", solver,
        "--energy", "g,s,ion" if problem.equation == "nonlinear" else "g,s",
        "--json", json_path,
        "--log", log_path,
        "--quiet",
    ]
    if problem.equation == "nonlinear":
        argv += ["--nonit", str(NONLINEAR_BLOCKS), "--nonlinear", problem.nonlinear_method]
    if fixed_iterations is not None:
        argv += ["--linit", str(fixed_iterations)]
    else:
        argv += ["--maxc", "%.3g" % stopping_max_change(problem, precision)]
    if threads:
        argv += ["--threads", str(threads)]
    if map_path is not None:
        argv += ["--phi", map_path]  # DelPhi binary phimap: real*4, exact to 2^-24, fast to read
    return argv


def lookup(summary, dotted):
    """summary['a']['b'] for 'a.b'; None when absent."""
    node = summary
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


REQUIRED_KEYS = ("grid.size", "grid.scale", "solver.backend", "solver.precision",
                 "solver.iterations", "solver.converged", "solver.outcome", "solver.max_change",
                 "energies_kT.grid", "timing_s.total")


SOLVER_METHOD = {"sor": "sor", "mg": "multigrid"}  # --solver -> JSON solver.method


def check_summary(summary, problem, backend, precision, solver="auto"):
    """Problems with a JSON summary (missing keys, a run other than the one asked for)."""
    problems = ["missing key %s" % k for k in REQUIRED_KEYS if lookup(summary, k) is None]
    if problems:
        return problems
    if list(lookup(summary, "grid.size")) != [problem.gsize] * 3:
        problems.append("grid.size %r, asked for %d^3" % (lookup(summary, "grid.size"),
                                                          problem.gsize))
    if abs(float(lookup(summary, "grid.scale")) - problem.scale) > 1e-9 * problem.scale:
        problems.append("grid.scale %r, asked for %r" % (lookup(summary, "grid.scale"),
                                                         problem.scale))
    if lookup(summary, "solver.backend") != backend:
        problems.append("solver.backend %r, asked for %r" % (lookup(summary, "solver.backend"),
                                                             backend))
    if lookup(summary, "solver.precision") != precision:
        problems.append("solver.precision %r, asked for %r"
                        % (lookup(summary, "solver.precision"), precision))
    if solver in SOLVER_METHOD and lookup(summary, "solver.method") != SOLVER_METHOD[solver]:
        problems.append("solver.method %r, asked for --solver %s"
                        % (lookup(summary, "solver.method"), solver))
    return problems


_PROGRESS_RE = re.compile(r"iteration\s+(\d+),?\s+max change\s+([-+0-9.eE]+)", re.I)
_TABLE_HEAD_RE = re.compile(r"rms-change\s+max change\s+at iteration", re.I)
_TABLE_ROW_RE = re.compile(r"^\s*([-+0-9.eE]+)\s+([-+0-9.eE]+)\s+(\d+)(\s+\(nonlinear\))?\s*$")


def convergence_history(summary, log_text):
    """[(iteration, max change)] from the summary's solver.history if present, else from the
    log: the convergence table ('rms-change  max change  at iteration', then rows
    'rms max iteration'), or failing that the progress lines ('iteration N, max change X')."""
    hist = lookup(summary, "solver.history") if summary else None
    points = []
    if isinstance(hist, list):
        for h in hist:
            if isinstance(h, dict) and "iteration" in h and "max_change" in h:
                points.append((int(h["iteration"]), float(h["max_change"])))
        if points:
            return points
    in_table = False
    progress = []
    for line in log_text.splitlines():
        if _TABLE_HEAD_RE.search(line):
            in_table, points = True, []  # the last table is the final solve's
            continue
        if in_table:
            m = _TABLE_ROW_RE.match(line)
            if m:
                points.append((int(m.group(3)), float(m.group(2))))
                continue
            in_table = False
        m = _PROGRESS_RE.search(line)
        if m:
            progress.append((int(m.group(1)), float(m.group(2))))
    return points or progress


def run(exe, problem, backend, precision, rundir, map_path=False, fixed_iterations=None,
        timeout=3600, reuse=False, threads=None, solver="auto"):
    """Runs delphi-gpu once in `rundir` and returns a record (dict).  Never raises for a failed
    run: the record's 'error' says what went wrong, and the suite turns it into a failed check."""
    os.makedirs(rundir, exist_ok=True)
    json_path = os.path.join(rundir, "summary.json")
    log_path = os.path.join(rundir, "run.log")
    phi_path = os.path.join(rundir, "potential.phi") if map_path else None
    argv = build_argv(exe, problem, backend, precision, json_path, log_path, phi_path,
                      fixed_iterations, threads, solver)
    record_path = os.path.join(rundir, "record.json")
    if reuse and os.path.isfile(record_path):
        with open(record_path) as f:
            old = json.load(f)
        if old.get("argv") == argv and old.get("error") is None:
            old["reused"] = True
            return old
    for stale in (json_path, log_path, phi_path, record_path):
        if stale and os.path.exists(stale):
            os.remove(stale)

    record = {"argv": argv, "rundir": rundir, "backend": backend, "precision": precision,
              "solver": solver, "problem": problem.name, "fixed_iterations": fixed_iterations,
              "error": None}
    start = time.monotonic()
    try:
        env = dict(os.environ)
        # Sequential runs on a shared machine: OpenMP threads that spin while waiting slow a
        # loaded machine down by 10x; passive waiting costs little here.  The user's setting wins.
        env.setdefault("OMP_WAIT_POLICY", "passive")
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        rc = proc.returncode
        output = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        rc, output = None, ""
        record["error"] = "ran over %d s" % timeout
    except OSError as e:
        rc, output = None, ""
        record["error"] = "cannot start %s: %s" % (exe, e)
    record["wall_s"] = round(time.monotonic() - start, 3)
    record["exit_status"] = rc
    with open(os.path.join(rundir, "output.txt"), "w") as f:
        f.write(" ".join(argv) + "\n" + output)

    summary = None
    if rc is not None and rc != 0:
        tail = output.strip().splitlines()[-3:]
        record["error"] = "exit status %d (%s): %s" % (rc, EXIT_MEANING.get(rc, "unknown"),
                                                       " | ".join(tail))
    if record["error"] is None or rc == 3:
        try:
            with open(json_path) as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            record["error"] = record["error"] or "no readable JSON summary: %s" % e
    if summary is not None:
        bad = check_summary(summary, problem, backend, precision, solver)
        if bad and record["error"] is None:
            record["error"] = "JSON summary: " + "; ".join(bad)
        record["summary"] = summary
        if (record["error"] is None and fixed_iterations is None
                and lookup(summary, "solver.converged") is not True):
            record["error"] = "did not converge (outcome %r)" % lookup(summary, "solver.outcome")
    log_text = ""
    if os.path.isfile(log_path):
        with open(log_path, errors="replace") as f:
            log_text = f.read()
    record["history"] = convergence_history(summary, log_text or output)
    record["map"] = phi_path if phi_path and os.path.isfile(phi_path) else None
    with open(record_path, "w") as f:
        json.dump(record, f, indent=1)
    return record


def energy(record, quantity):
    """Energies of one run record (kT); None when absent or the run failed."""
    s = record.get("summary")
    if s is None or record.get("error"):
        return None
    value = lookup(s, quantity)
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else value


def total_energy(record):
    """Grid energy plus the nonlinear ionic terms when the run computed them."""
    grid = energy(record, "energies_kT.grid")
    if grid is None:
        return None
    ionic = energy(record, "energies_kT.ionic")
    return grid + (ionic or 0.0)
