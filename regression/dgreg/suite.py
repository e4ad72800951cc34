"""Planning and executing the runs of a suite: which delphi-gpu runs and APBS calculations each
case needs, with runs of identical physics shared between cases."""

import dataclasses
import os
import sys
import time

from . import apbs, program

ROLES = ("solv", "ref", "nosalt", "linear", "fixed")


def role_problem(problem, role):
    """The problem a run of the given role solves."""
    if role in ("solv", "fixed"):
        return problem
    if role == "ref":
        return problem.reference_state()
    if role == "nosalt":
        return dataclasses.replace(problem, name=problem.name + "-nosalt", salt=0.0,
                                   equation="linear")
    if role == "linear":  # the linearised equation on the same problem (nonlinear cases)
        return dataclasses.replace(problem, name=problem.name + "-linear", equation="linear")
    raise ValueError(role)


def run_solver(problem, role, solver):
    """The --solver of one run of a variant: the variant's, except where the program offers
    only the SOR (a fixed iteration count counts SOR iterations; DelPhi's nonlinear scheme has
    no multigrid form), so those runs are shared between the variants."""
    p = role_problem(problem, role)
    if solver == "mg" and (role == "fixed" or (p.equation == "nonlinear"
                                                and p.nonlinear_method == "delphi")):
        return "sor"
    return solver


def variant_label(backend, precision, solver):
    """'cpu/double', or 'cpu/double/mg' when the solver was chosen (not the program's auto)."""
    return "%s/%s" % (backend, precision) + ("" if solver == "auto" else "/" + solver)


def case_roles(case, cross_compare):
    """Runs a case needs in one variant (backend, precision)."""
    roles = ["solv", "ref"]
    if case.problem.salt > 0.0:
        roles.append("nosalt")
    if "nonlinear_effect" in case.quantities:
        roles.append("linear")
    if cross_compare and case.problem.equation == "linear":
        roles.append("fixed")
    return roles


@dataclasses.dataclass
class Plan:
    cases: list
    backends: list  # e.g. ["cpu"], ["cpu", "cuda"]
    precisions: dict  # case name -> list of precisions
    cross_backend: bool  # compare backends (both selected)
    solvers: list = dataclasses.field(default_factory=lambda: ["auto"])  # --solver values

    def variants(self, case):
        return [(b, p, sv) for sv in self.solvers for p in self.precisions[case.name]
                for b in self.backends]

    def cross_precision(self, case):
        return len(self.precisions[case.name]) > 1

    @property
    def cross_solver(self):
        return "sor" in self.solvers and "mg" in self.solvers


def make_plan(cases, backends, precision_policy, solver_policy="auto"):
    """precision_policy: 'auto' (double, plus float for cases marked float_too), 'double',
    'float', or 'both' (every case in both).  solver_policy: 'auto' (the program's choice),
    'sor', 'mg', or 'both' (every case by the SOR and by multigrid, compared)."""
    precisions = {}
    for c in cases:
        if precision_policy == "auto":
            precisions[c.name] = ["double", "float"] if c.float_too else ["double"]
        elif precision_policy == "both":
            precisions[c.name] = ["double", "float"]
        else:
            precisions[c.name] = [precision_policy]
    solvers = ["sor", "mg"] if solver_policy == "both" else [solver_policy]
    return Plan(cases, list(backends), precisions, len(backends) > 1, solvers)


class Executor:
    """Runs delphi-gpu, sharing runs whose physics, grid, backend, precision and kind agree."""

    def __init__(self, exe, workdir, reuse=False, quiet=False, timeout=3600, threads=None):
        self.threads = threads
        self.exe = exe
        self.workdir = workdir
        self.reuse = reuse
        self.quiet = quiet
        self.timeout = timeout
        self.records = {}  # run key -> record
        self.count = 0
        self.reused = 0  # runs taken from an earlier invocation (--resume)
        self.reused_seconds = 0.0  # what those runs took when they ran
        self.started = time.monotonic()

    def run(self, problem, role, backend, precision, want_map, solver="auto"):
        p = role_problem(problem, role)
        solver = run_solver(problem, role, solver)
        fixed = program.FIXED_ITERATIONS if role == "fixed" else None
        key = (p.key(), backend, precision, solver, fixed, want_map)
        if key in self.records:
            return self.records[key]
        rundir = os.path.join(self.workdir, "runs", "%s.%s.%s.%s%s" % (
            p.name, role, backend, precision, "" if solver == "auto" else "." + solver))
        self.count += 1
        if not self.quiet:
            print("[%6.1f s] run %d: %s %s %s" % (time.monotonic() - self.started, self.count,
                                                 p.name, role,
                                                 variant_label(backend, precision, solver)),
                  file=sys.stderr, flush=True)
        record = program.run(self.exe, p, backend, precision, rundir, map_path=want_map,
                             fixed_iterations=fixed, timeout=self.timeout, reuse=self.reuse,
                             threads=self.threads, solver=solver)
        record["role"] = role
        if record.get("reused"):
            self.reused += 1
            self.reused_seconds += record.get("wall_s") or 0.0
        self.records[key] = record
        return record


def execute(plan, executor):
    """{(case name, backend, precision, solver, role): record} for every run of the plan."""
    results = {}
    for case in plan.cases:
        want_map = plan.cross_backend or plan.cross_precision(case) or plan.cross_solver
        for backend, precision, solver in plan.variants(case):
            for role in case_roles(case, plan.cross_backend):
                results[(case.name, backend, precision, solver, role)] = executor.run(
                    case.problem, role, backend, precision, want_map, solver)
    return results


def apbs_references(plan, mode, workdir, store, quiet=False):
    """{case name: record or {'error': message}} for the cases that use APBS (as the reference
    or, for analytic cases, as a cross-check of the analytic formula)."""
    refs = {}
    started = time.monotonic()
    for case in plan.cases:
        if case.reference_kind != "apbs" and not case.apbs_context:
            continue
        if not quiet:
            print("[%6.1f s] apbs: %s" % (time.monotonic() - started, case.name),
                  file=sys.stderr, flush=True)
        try:
            refs[case.name] = apbs.reference(case.problem, mode,
                                             os.path.join(workdir, "apbs", case.name),
                                             store=store)
        except apbs.ApbsError as e:
            refs[case.name] = {"error": str(e)}
    return refs
