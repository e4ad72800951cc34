"""Turning runs and references into comparisons: each one a row with the reference, our value,
the difference, the allowed difference and why, and pass or fail.  A missing or non-finite value
is a failure, never a skip."""

import math

from . import maps, program, tolerances
from .molecules import charge_sums, read_pqr
from .suite import case_roles, run_solver, variant_label


def _timing(record):
    s = record.get("summary") or {}
    return {k: program.lookup(s, "timing_s." + k) for k in ("setup", "solve", "energies", "total")}


def _row(case, kind, quantity, variant, reference, ours, limit, tol_text, reason, record=None,
         note=""):
    ok = (reference is not None and ours is not None and limit is not None
          and math.isfinite(reference) and math.isfinite(ours) and abs(ours - reference) <= limit)
    row = {
        "case": case.name, "group": case.group, "kind": kind, "quantity": quantity,
        "variant": variant, "reference": reference, "ours": ours,
        "difference": (ours - reference) if (ours is not None and reference is not None) else None,
        "limit": limit, "tolerance": tol_text, "reason": reason, "passed": bool(ok), "note": note,
        "spacing": case.problem.spacing, "length_scale": case.length_scale,
    }
    if record is not None:
        s = record.get("summary") or {}
        row["iterations"] = program.lookup(s, "solver.iterations")
        row["timing_s"] = _timing(record)
    return row


def our_values(case, runs):
    """Our energies for one variant: {quantity: value or None}, and notes on missing pieces."""
    solv, ref = runs.get("solv"), runs.get("ref")
    notes = []
    total = program.total_energy(solv) if solv else None
    if solv and case.problem.equation == "nonlinear" and not solv.get("error"):
        if program.energy(solv, "energies_kT.ionic") is None:
            total = None
            notes.append("nonlinear run without energies_kT.ionic")
    ref_grid = program.energy(ref, "energies_kT.grid") if ref else None
    values = {"solvation": None if total is None or ref_grid is None else total - ref_grid,
              "reaction_field": program.energy(solv, "energies_kT.reaction_field_corrected")
              if solv else None}
    nosalt = runs.get("nosalt")
    if nosalt is not None:
        g = program.energy(nosalt, "energies_kT.grid")
        values["salt_effect"] = None if total is None or g is None else total - g
    linear = runs.get("linear")
    if linear is not None:
        g = program.energy(linear, "energies_kT.grid")
        values["nonlinear_effect"] = None if total is None or g is None else total - g
    return values, notes


def reference_values(case, apbs_record):
    """{quantity: value}, label, and an error message (APBS unavailable) or ''."""
    if case.reference_kind == "analytic":
        return dict(case.analytic), "analytic", ""
    if apbs_record is None or "error" in apbs_record:
        return {}, "APBS", (apbs_record or {}).get("error", "no APBS result")
    return ({"solvation": apbs_record.get("solvation_kT"),
             "salt_effect": apbs_record.get("salt_effect_kT")}, "APBS", "")


def reference_rows(case, plan, results, apbs_record):
    rows = []
    refs, label, ref_error = reference_values(case, apbs_record)
    for backend, precision, solver in plan.variants(case):
        variant = variant_label(backend, precision, solver)
        runs = {role: results.get((case.name, backend, precision, solver, role))
                for role in case_roles(case, plan.cross_backend)}
        for role, rec in runs.items():
            if rec is not None and rec.get("error"):
                rows.append(_row(case, "run", role, variant, None, None, None, "-",
                                 "every run must succeed and converge", rec, note=rec["error"]))
        values, notes = our_values(case, runs)
        for q in case.quantities:
            tol = case.tolerance[q]
            ref = refs.get(q)
            rows.append(_row(case, label, q, variant, ref, values.get(q),
                             tol.limit(ref) if ref is not None else None, tol.describe(),
                             tol.reason, runs.get("solv"),
                             note="; ".join(notes + ([ref_error] if ref_error else []))))
    # APBS against the analytic formula: checks the reference itself.  APBS solves the exact
    # (sinh) equation, so nonlinear cases hold their exact-sinh values in case.apbs_analytic.
    if case.reference_kind == "analytic" and apbs_record is not None:
        apbs_values = {"solvation": apbs_record.get("solvation_kT"),
                       "salt_effect": apbs_record.get("salt_effect_kT")}
        expected = case.apbs_analytic or case.analytic
        for q in ("solvation", "salt_effect"):
            if q not in case.quantities:
                continue
            tol = case.apbs_tolerance.get(q, case.tolerance[q])
            rows.append(_row(case, "APBS vs analytic", q, "apbs", expected[q],
                             apbs_values.get(q), tol.limit(expected[q]), tol.describe(),
                             "checks the analytic formula with an independent code: " + tol.reason,
                             note=apbs_record.get("error", "")))
    return rows


def _error_bound(summary):
    """tolerances.solver_error_bound of one run's JSON summary."""
    def number(key):
        v = program.lookup(summary, key)
        return None if v is None else float(v)
    return tolerances.solver_error_bound(program.lookup(summary, "solver.method"),
                                         program.lookup(summary, "solver.equation"),
                                         number("solver.max_change") or 0.0,
                                         number("solver.omega"),
                                         number("solver.spectral_radius"))


def _pair_rows(case, kind, variant, role, rec_a, rec_b, potential_rel, check_iterations,
               sum_abs_q, solver_allowance=False):
    """Potentials, grid energy and iterations of two runs of one problem (a: reference side).
    solver_allowance: the runs are by different solvers (SOR and multigrid), each within its own
    error bound of the converged answer (tolerances.solver_error_bound), not paths of one
    iteration that stopped at different counts."""
    rows = []
    if rec_a is None or rec_b is None or rec_a.get("error") or rec_b.get("error"):
        why = "a run failed" if (rec_a and rec_b) else "a run is missing"
        rows.append(_row(case, kind, role + " potentials", variant, None, None, None, "-",
                         "both runs needed", note=why))
        return rows
    sa, sb = rec_a["summary"], rec_b["summary"]
    n_a = program.lookup(sa, "solver.iterations")
    n_b = program.lookup(sb, "solver.iterations")
    gap = abs(n_b - n_a)
    change = max(float(program.lookup(sa, "solver.max_change") or 0.0),
                 float(program.lookup(sb, "solver.max_change") or 0.0))
    interval = program.CHECK_INTERVAL
    if check_iterations:
        rows.append(_row(case, kind, role + " iterations", variant, float(n_a), float(n_b),
                         0.0 if rec_a.get("fixed_iterations") else float(interval),
                         "equal" if rec_a.get("fixed_iterations") else "%d" % interval,
                         "same count for a fixed-count run; within one check interval when "
                         "converging (backend agreement rule)", rec_b))
    # Convergence allowance when the runs may have taken different paths: different iteration
    # counts, or the nonlinear scheme, whose adaptive relaxation branches on comparisons of
    # changes that rounding can tip (docs/SOLVER.md, "Nonlinear PB") even when the counts agree.
    path_may_differ = gap != 0 or (role in ("solv", "fixed")
                                   and case.problem.equation == "nonlinear")
    conv = (gap + interval) * change if path_may_differ else 0.0
    if solver_allowance:
        conv = _error_bound(sa) + _error_bound(sb)
    max_phi = None
    if rec_a.get("map") and rec_b.get("map"):
        try:
            m = maps.compare(rec_a["map"], rec_b["map"])
            max_phi = m["max_abs"]
            rel_limit = max(potential_rel, m["resolution"]) + (conv / max_phi if max_phi else 0.0)
            rows.append(_row(case, kind, role + " potentials", variant, 0.0,
                             m["max_abs_diff"] / max_phi if max_phi else math.inf, rel_limit,
                             "%.1e rel" % rel_limit,
                             "max|dphi|/max|phi| <= %.0e (backend agreement rule), or the map format's "
                             "resolution %.1e if coarser%s"
                             % (potential_rel, m["resolution"],
                                "; + each solver's error bound" if solver_allowance else
                                "; + convergence allowance" if conv else ""),
                             rec_b))
        except maps.MapError as e:
            rows.append(_row(case, kind, role + " potentials", variant, None, None, None, "-",
                             "maps must be readable", note=str(e)))
    else:
        rows.append(_row(case, kind, role + " potentials", variant, None, None, None, "-",
                         "both runs must write a map", note="map missing"))
    # The grid energy, 1/2 sum q phi, is what the potential bound covers exactly; the nonlinear
    # runs' ionic terms are judged in the reference rows of each backend.
    e_a = program.energy(rec_a, "energies_kT.grid")
    e_b = program.energy(rec_b, "energies_kT.grid")
    if max_phi is not None:
        if solver_allowance:
            extra, why = 0.5 * sum_abs_q * conv, " + both solvers' error bounds"
        elif path_may_differ:
            extra = tolerances.convergence_bound(change, gap, interval, sum_abs_q)
            why = " + (|dN| + conint) max change"
        else:
            extra, why = 0.0, ""
        limit = tolerances.energy_bound(potential_rel, max_phi, sum_abs_q) + extra
        rows.append(_row(case, kind, role + " grid energy", variant, e_a, e_b, limit,
                         "%.2g kT" % limit, "1/2 sum|q| (%.0e max|phi|%s)" % (potential_rel, why),
                         rec_b))
    return rows


def _solver_tag(solver):
    return "" if solver == "auto" else " " + solver


def cross_rows(case, plan, results):
    """Backend agreement (CPU side is the reference), float against double, and multigrid
    against the SOR."""
    rows = []
    sum_abs_q = charge_sums(read_pqr(case.problem.pqr))[1]
    roles = case_roles(case, plan.cross_backend)
    if plan.cross_backend and "cpu" in plan.backends:
        for solver in plan.solvers:
            for precision in plan.precisions[case.name]:
                for other in plan.backends:
                    if other == "cpu":
                        continue
                    for role in roles:
                        rows += _pair_rows(
                            case, "backend", "%s vs cpu/%s%s" % (other, precision,
                                                                 _solver_tag(solver)), role,
                            results.get((case.name, "cpu", precision, solver, role)),
                            results.get((case.name, other, precision, solver, role)),
                            tolerances.POTENTIAL_REL[precision], True, sum_abs_q)
    if plan.cross_precision(case):
        for solver in plan.solvers:
            for backend in plan.backends:
                for role in roles:
                    if role == "fixed":
                        continue
                    rows += _pair_rows(
                        case, "precision", "%s float vs double%s" % (backend,
                                                                     _solver_tag(solver)), role,
                        results.get((case.name, backend, "double", solver, role)),
                        results.get((case.name, backend, "float", solver, role)),
                        tolerances.POTENTIAL_REL["float"], False, sum_abs_q)
    if plan.cross_solver:
        for precision in plan.precisions[case.name]:
            for backend in plan.backends:
                for role in roles:
                    if run_solver(case.problem, role, "mg") == "sor":
                        continue  # the same run in both variants
                    rows += _pair_rows(
                        case, "solver", "%s/%s mg vs sor" % (backend, precision), role,
                        results.get((case.name, backend, precision, "sor", role)),
                        results.get((case.name, backend, precision, "mg", role)),
                        tolerances.POTENTIAL_REL[precision], False, sum_abs_q,
                        solver_allowance=True)
    return rows


def _slope(points):
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


# Spacing studies that are judged.  Not the Born reaction field: with one central charge and the
# induced charge projected onto the sphere it equals the exact energy at any spacing (Gauss's law
# fixes the total), so its error is rounding, with no trend.  Not the salt and nonlinear effects:
# their errors come from the ion-exclusion surface and the box, not from the spacing alone.
ORDER_CHECKS = {("born", "solvation"), ("kirkwood", "solvation"), ("kirkwood", "reaction_field"),
                ("debye_huckel", "solvation")}


def order_rows(cases, rows):
    """Spacing studies: the fitted log-log slope of |relative error| against h/L, pooled over a
    group's cases, must reach tolerances.MIN_CONVERGENCE_SLOPE."""
    by_case = {c.name: c for c in cases}
    pools = {}
    for r in rows:
        c = by_case[r["case"]]
        if r["kind"] != "analytic" or not c.series:  # APBS's own errors are plotted, not judged
            continue
        if (c.group, r["quantity"]) not in ORDER_CHECKS:
            continue
        if r["ours"] is None or r["reference"] in (None, 0.0):
            continue
        err = abs(r["ours"] / r["reference"] - 1.0)
        pools.setdefault((c.group, r["variant"], r["quantity"]), []).append(
            (c.problem.spacing / c.length_scale, max(err, 1e-12), c.problem.spacing))
    out = []
    for (group, variant, quantity), pts in sorted(pools.items()):
        if len(set(round(h, 9) for _, _, h in pts)) < 3:  # a study needs three spacings
            continue
        pts = [(x, e) for x, e, _ in pts]
        slope = _slope(pts)
        row = {"case": "%s (%d cases)" % (group, len(pts)), "group": group, "kind": "order",
               "quantity": quantity, "variant": variant, "reference": 1.0, "ours": slope,
               "difference": None if slope is None else slope - 1.0,
               "limit": None, "tolerance": ">= %g" % tolerances.MIN_CONVERGENCE_SLOPE,
               "reason": "error must fall with h: fitted slope of log|err| vs log(h/L), "
                         "expected 1 (staircase surface)",
               "passed": slope is not None and slope >= tolerances.MIN_CONVERGENCE_SLOPE,
               "note": "", "points": pts}
        out.append(row)
    return out


def evaluate(plan, results, apbs_refs):
    rows = []
    for case in plan.cases:
        rows += reference_rows(case, plan, results, apbs_refs.get(case.name))
        rows += cross_rows(case, plan, results)
    rows += order_rows(plan.cases, rows)
    return rows
