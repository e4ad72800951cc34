"""The suite's cases: which problems are solved, against which reference, with which tolerance.

A case is one problem (molecule, grid, medium) and its reference energies:
  analytic  Born ion, Kirkwood sphere, Debye-Hueckel sphere (closed forms), and the nonlinear
            sphere in salt (a converged 1-D radial solution), all in dgreg/analytic.py;
  apbs      APBS on the same grid (dgreg/apbs.py), for the proteins.
Quantities compared (names used in results and report):
  solvation         E(solv) - E(ref): grid energies of two runs on one grid (eps_out with ions
                    minus eps_in everywhere without ions), plus the nonlinear ionic energy terms
                    when the equation is nonlinear.  The same definition as APBS's difference.
  reaction_field    DelPhi's corrected reaction-field energy of the solv run (no-salt cases).
  salt_effect       E(solv) - E(nosalt): what the ions add (salt cases).
  nonlinear_effect  E(nonlinear) - E(linear) on one grid (nonlinear cases).
Tolerances are stated next to their reasons in tolerances.py.

Sphere grids are shifted by a fixed fraction of a cell (GRID_SHIFT) so that the sphere's centre is
not a grid point: a centre on a grid point makes the staircase surface symmetric and its error
oscillates with the spacing instead of falling; the shifted placement shows the first-order
decrease.  The `_ongrid` cases keep the classic DelPhi placement (charge on one grid point).
"""

import dataclasses
import os

from . import analytic, constants, program, tolerances
from .molecules import box_centre, read_pqr, sphere_from_pqr, stored_molecule, write_sphere_pqr
from .problem import Problem, fit_gsize

GRID_SHIFT = (0.31, 0.17, 0.43)  # grid centre offset, in cells
SALT = 0.15  # mol/L
SALT_BOX = 48.0  # Angstrom: spheres in salt need ~2.5 Debye lengths of solvent around them,
# or the Debye-Hueckel boundary values (linear, point-charge) distort the nonlinear terms


@dataclasses.dataclass
class Case:
    name: str
    group: str  # born | kirkwood | debye_huckel | protein
    problem: Problem
    reference_kind: str  # analytic | apbs
    analytic: dict  # quantity -> reference value (kT); empty for APBS cases
    tolerance: dict  # quantity -> tolerances.Tolerance
    quantities: tuple
    float_too: bool = False  # also run in float when the precision policy is 'auto'
    length_scale: float = 0.0  # L of the h/L error plots (sphere radius, charge-surface gap)
    series: str = ""  # spacing study the case belongs to
    apbs_context: bool = True  # analytic cases: also run APBS, as a check of the reference
    apbs_analytic: dict = dataclasses.field(default_factory=dict)  # what APBS should give
    apbs_tolerance: dict = dataclasses.field(default_factory=dict)


KIRKWOOD_CONFIGS = {
    # name: (radius, centre charge, [(q, (x, y, z))]) ; positions relative to the centre, A.
    "k4": (6.0, 0.0, [(1.0, (2.5, 0.0, 0.0)), (-1.0, (0.0, 3.0, 0.0)),
                      (0.5, (-1.5, -1.5, 2.0)), (-0.5, (0.0, 0.0, -3.5))]),
    "k3": (5.0, 0.0, [(1.0, (0.0, 0.0, 3.0)), (0.5, (2.1, -0.7, 0.0)),
                      (-0.5, (-1.2, 1.6, -1.9))]),
}

DH_SPHERES = {
    # name: (charge e, radius A); the +5 e sphere has a surface potential of ~4 kT/e at the
    # ion-exclusion radius, where the nonlinear equation differs clearly from the linear one.
    "dh_q1": (1.0, 2.0),
    "dh_q5": (5.0, 3.0),
}


def _grid_centre(scale, shifted):
    return tuple(s / scale for s in GRID_SHIFT) if shifted else (0.0, 0.0, 0.0)


def _sphere_problem(name, pqr, scale, eps_in, eps_out, box, shifted=True, salt=0.0,
                    equation="linear", nonlinear_method="delphi"):
    gsize = fit_gsize(box, scale, 1.0)
    return Problem(name=name, pqr=pqr, gsize=gsize, scale=float(scale),
                   centre=_grid_centre(scale, shifted), eps_in=eps_in, eps_out=eps_out,
                   salt=salt, equation=equation, nonlinear_method=nonlinear_method)


def _born_cases(moldir, radii, eps_ins, scales, float_scales=(), ongrid=False):
    cases = []
    for a in radii:
        if a == 2.0:
            pqr = stored_molecule("born_ion.pqr")
        else:
            pqr = os.path.join(moldir, "born_r%g.pqr" % a)
            write_sphere_pqr(pqr, a, 1.0, [], "Born ion, +1 e, radius %g A" % a)
        for eps_in in eps_ins:
            for scale in scales:
                name = "born_r%g_e%g_s%g%s" % (a, eps_in, scale, "_ongrid" if ongrid else "")
                p = _sphere_problem(name, pqr, scale, eps_in, 80.0, 4.0 * a + 8.0,
                                    shifted=not ongrid)
                e = analytic.born_energy(1.0, a, eps_in, 80.0,
                                         constants.delphi_epkt(p.temperature))
                tol = tolerances.analytic_surface(p.spacing, a)
                cases.append(Case(name, "born", p, "analytic",
                                  {"solvation": e, "reaction_field": e},
                                  {"solvation": tol, "reaction_field": tol},
                                  ("solvation", "reaction_field"),
                                  float_too=scale in float_scales, length_scale=a,
                                  series="" if ongrid else "born_r%g_e%g" % (a, eps_in)))
    return cases


def _kirkwood_cases(moldir, configs, eps_ins, scales, float_scales=()):
    cases = []
    for config in configs:
        radius, q0, charges = KIRKWOOD_CONFIGS[config]
        pqr = os.path.join(moldir, "kirkwood_%s.pqr" % config)
        write_sphere_pqr(pqr, radius, q0, charges, "Kirkwood sphere %s" % config)
        a, stored = sphere_from_pqr(pqr)  # the numbers exactly as both codes read them
        gap = a - max(sum(c * c for c in pos) ** 0.5 for _, pos in stored)
        for eps_in in eps_ins:
            for scale in scales:
                name = "kirkwood_%s_e%g_s%g" % (config, eps_in, scale)
                p = _sphere_problem(name, pqr, scale, eps_in, 80.0, 4.0 * a + 8.0)
                e = analytic.kirkwood_energy(stored, a, eps_in, 80.0,
                                             constants.delphi_epkt(p.temperature))
                tol = tolerances.analytic_surface(p.spacing, gap)
                cases.append(Case(name, "kirkwood", p, "analytic",
                                  {"solvation": e, "reaction_field": e},
                                  {"solvation": tol, "reaction_field": tol},
                                  ("solvation", "reaction_field"),
                                  float_too=scale in float_scales, length_scale=gap,
                                  series="kirkwood_%s_e%g" % (config, eps_in)))
    return cases


def _radial(p, q, a, ion_density, nonlinear=True, b_shift=0.0):
    return analytic.radial_pb_sphere_energy(
        q, a, a + p.ion_radius + b_shift, p.eps_in, p.eps_out, p.kappa(),
        constants.delphi_epkt(p.temperature), nonlinear=nonlinear, ion_density=ion_density)


def _debye_huckel_cases(moldir, spheres, scales, equations, float_scales=()):
    cases = []
    for sphere in spheres:
        q, a = DH_SPHERES[sphere]
        pqr = os.path.join(moldir, "%s.pqr" % sphere)
        write_sphere_pqr(pqr, a, q, [], "Debye-Hueckel sphere, %+g e, radius %g A" % (q, a))
        for equation in equations:
            tag = "npbe" if equation == "nonlinear" else "lpbe"
            for scale in scales:
                name = "%s_%s_s%g" % (sphere, tag, scale)
                p = _sphere_problem(name, pqr, scale, 2.0, 80.0, SALT_BOX, salt=SALT,
                                    equation=equation)
                epkt = constants.delphi_epkt(p.temperature)
                born = analytic.born_energy(q, a, p.eps_in, p.eps_out, epkt)
                tol = tolerances.analytic_surface(p.spacing, a)
                salt_tol = tolerances.salt_effect(p.spacing, a)
                common = dict(float_too=scale in float_scales, length_scale=a,
                              series="%s_%s" % (sphere, tag),
                              apbs_tolerance={"salt_effect": tolerances.apbs_salt_effect(
                                  p.spacing, a)})
                if equation == "linear":
                    e = analytic.debye_huckel_sphere_energy(q, a, a + p.ion_radius, p.eps_in,
                                                            p.eps_out, p.kappa(), epkt)
                    cases.append(Case(name, "debye_huckel", p, "analytic",
                                      {"solvation": e, "salt_effect": e - born},
                                      {"solvation": tol, "salt_effect": salt_tol},
                                      ("solvation", "salt_effect"), **common))
                    continue
                # Nonlinear: the 1-D radial solution of DelPhi's equation (quintic sinh) is our
                # reference; APBS solves the exact sinh equation, checked against its own 1-D.
                e = _radial(p, q, a, "delphi")
                e_lin = _radial(p, q, a, "delphi", nonlinear=False)
                exact = _radial(p, q, a, "exact")
                h = p.spacing
                one_cell = ((_radial(p, q, a, "delphi", b_shift=-h / 2)
                             - _radial(p, q, a, "delphi", nonlinear=False, b_shift=-h / 2))
                            - (_radial(p, q, a, "delphi", b_shift=h / 2)
                               - _radial(p, q, a, "delphi", nonlinear=False, b_shift=h / 2)))
                nl_tol = tolerances.nonlinear_effect(one_cell, e - e_lin, abs(q),
                                                     program.MAX_CHANGE)
                cases.append(Case(name, "debye_huckel", p, "analytic",
                                  {"solvation": e, "salt_effect": e - born,
                                   "nonlinear_effect": e - e_lin},
                                  {"solvation": tol, "salt_effect": salt_tol,
                                   "nonlinear_effect": nl_tol},
                                  ("solvation", "salt_effect", "nonlinear_effect"),
                                  apbs_analytic={"solvation": exact, "salt_effect": exact - born},
                                  **common))
    return cases


# A highly charged sphere (the program takes |q| <= 10 e per atom: -10 e in 3 A, a linear-PB
# potential of ~ -9 kT/e at the ion-exclusion radius at 0.15 M), where DelPhi's polynomial and
# the exact sinh differ several-fold: delphi-gpu's Newton solver (exact term) against the 1-D
# radial solution of the exact equation.
CHARGED_SPHERE = ("dh_qm10", -10.0, 3.0)  # name, charge e, radius A
CHARGED_SPHERE_BOX = SALT_BOX


def _charged_sphere_cases(moldir, scales, salts):
    cases = []
    sphere, q, a = CHARGED_SPHERE
    pqr = os.path.join(moldir, "%s.pqr" % sphere)
    write_sphere_pqr(pqr, a, q, [], "highly charged sphere, %+g e, radius %g A" % (q, a))
    for salt in salts:
        for scale in scales:
            name = "%s_newton_%gM_s%g" % (sphere, salt, scale)
            p = _sphere_problem(name, pqr, scale, 2.0, 80.0, CHARGED_SPHERE_BOX, salt=salt,
                                equation="nonlinear", nonlinear_method="newton")
            born = analytic.born_energy(q, a, p.eps_in, p.eps_out,
                                        constants.delphi_epkt(p.temperature))
            e = _radial(p, q, a, "exact")
            e_lin = _radial(p, q, a, "exact", nonlinear=False)
            h = p.spacing
            one_cell = ((_radial(p, q, a, "exact", b_shift=-h / 2)
                         - _radial(p, q, a, "exact", nonlinear=False, b_shift=-h / 2))
                        - (_radial(p, q, a, "exact", b_shift=h / 2)
                           - _radial(p, q, a, "exact", nonlinear=False, b_shift=h / 2)))
            cases.append(Case(name, "debye_huckel", p, "analytic",
                              {"solvation": e, "salt_effect": e - born,
                               "nonlinear_effect": e - e_lin},
                              {"solvation": tolerances.analytic_surface(h, a),
                               "salt_effect": tolerances.salt_effect(h, a),
                               "nonlinear_effect": tolerances.nonlinear_effect(
                                   one_cell, e - e_lin, abs(q), program.MAX_CHANGE)},
                              ("solvation", "salt_effect", "nonlinear_effect"),
                              length_scale=a, series="%s_newton_%gM" % (sphere, salt),
                              apbs_context=False))
    return cases


def _protein_cases(molecules, scale, fill, variants, float_too=False):
    cases = []
    for mol in molecules:
        pqr = stored_molecule(mol + ".pqr")
        atoms = read_pqr(pqr)
        centre = tuple(round(c, 3) for c in box_centre(atoms))
        low = [min(at[i] - at[4] for at in atoms) for i in range(3)]
        high = [max(at[i] + at[4] for at in atoms) for i in range(3)]
        extent = max(h - l for l, h in zip(low, high))
        gsize = fit_gsize(extent, scale, fill)
        for salt, equation in variants:
            tag = "%s_%s_%gM_s%g" % (mol, "npbe" if equation == "nonlinear" else "lpbe", salt,
                                     scale)
            p = Problem(name=tag, pqr=pqr, gsize=gsize, scale=float(scale), centre=centre,
                        eps_in=2.0, eps_out=80.0, salt=salt, equation=equation)
            cases.append(Case(tag, "protein", p, "apbs", {},
                              {"solvation": tolerances.apbs_protein(p.spacing)}, ("solvation",),
                              float_too=float_too))
    return cases


ALL_PROTEIN_VARIANTS = ((0.0, "linear"), (SALT, "linear"), (SALT, "nonlinear"))


def quick_cases(moldir):
    """CI subset: small grids, CPU, a few minutes on 2 cores."""
    os.makedirs(moldir, exist_ok=True)
    cases = []
    cases += _born_cases(moldir, [2.0], [1.0], [2], float_scales=[2])
    cases += _born_cases(moldir, [2.0], [2.0], [2], ongrid=True)
    cases += _kirkwood_cases(moldir, ["k4"], [2.0], [2])
    cases += _debye_huckel_cases(moldir, ["dh_q5"], [2], ["linear", "nonlinear"])
    cases += _charged_sphere_cases(moldir, [2], [SALT, 1.0])
    cases += _protein_cases(["1ubq"], 1.0, 0.6, ((0.0, "linear"), (SALT, "linear")))
    return cases


def full_cases(moldir):
    """Everything: spacing studies, salt, nonlinear PB, both proteins."""
    os.makedirs(moldir, exist_ok=True)
    cases = []
    cases += _born_cases(moldir, [1.5, 2.0, 3.0], [1.0, 2.0], [1, 2, 3, 4, 6], float_scales=[2])
    cases += _born_cases(moldir, [2.0], [1.0, 2.0], [2], ongrid=True)
    cases += _kirkwood_cases(moldir, ["k4", "k3"], [1.0, 2.0], [1, 2, 3, 4, 6],
                             float_scales=[2])
    cases += _debye_huckel_cases(moldir, ["dh_q1", "dh_q5"], [2, 3, 4],
                                 ["linear", "nonlinear"], float_scales=[2])
    cases += _charged_sphere_cases(moldir, [2, 3], [SALT, 1.0])
    cases += _protein_cases(["1ubq"], 2.0, 0.6, ALL_PROTEIN_VARIANTS, float_too=True)
    cases += _protein_cases(["1hpv"], 2.0, 0.6, ALL_PROTEIN_VARIANTS, float_too=True)
    return cases
