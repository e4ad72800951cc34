#!/usr/bin/python3
"""Self-test of the regression suite: the checker must be able to fail.

Unit checks of the analytic references, the APBS input/output handling, the map reader and the
tolerance logic, then the whole runner end to end with fake_delphi_gpu.py standing in for the
program: correct results must pass, and deliberately wrong ones (energies off, a failed run, a
missing JSON key, NaN, CUDA potentials that disagree with the CPU) must make it exit non-zero.
Needs only Python's standard library (no APBS, no matplotlib needed).  Exit 0 when all pass.
"""

import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from dgreg import analytic, apbs, compare, constants, maps, tolerances  # noqa: E402
from dgreg.problem import Problem  # noqa: E402

EPKT = constants.delphi_epkt(298.15)


class AnalyticReferences(unittest.TestCase):
    def test_born_limits_agree(self):
        born = analytic.born_energy(1.0, 2.0, 2.0, 80.0, EPKT)
        self.assertAlmostEqual(born, -EPKT / 4.0 * (0.5 - 1 / 80.0), places=10)
        self.assertAlmostEqual(analytic.kirkwood_energy([(1.0, (0, 0, 0))], 2.0, 2.0, 80.0, EPKT),
                               born, places=10)
        self.assertAlmostEqual(
            analytic.debye_huckel_sphere_energy(1.0, 2.0, 4.0, 2.0, 80.0, 0.0, EPKT), born,
            places=10)

    def test_born_textbook_value(self):
        # data/README.md: -332.0636 kcal A/mol q^2/(2a)(1/eps_in - 1/eps_out); a = 2, eps 1/80,
        # in kcal/mol, against our kT at DelPhi's default T times kT in kcal/mol there.
        kt_kcal = 332.0636 / constants.delphi_epkt(constants.DELPHI_DEFAULT_T)
        ours = analytic.born_energy(1.0, 2.0, 1.0, 80.0,
                                    constants.delphi_epkt(constants.DELPHI_DEFAULT_T)) * kt_kcal
        self.assertAlmostEqual(ours, -332.0636 / 4.0 * (1 - 1 / 80.0), places=6)

    def test_kirkwood_conductor_limit(self):
        # eps_out -> infinity: the image charge gives the reaction potential in closed form.
        for s in (0.5, 2.0, 3.5, 3.9):
            series = analytic.kirkwood_reaction_potential([(1.0, (0, s, 0))], (0, s, 0), 4.0, 2.0,
                                                          1e15)
            image = analytic.conductor_limit_reaction_potential(1.0, s, 4.0, 2.0)
            self.assertAlmostEqual(series / image, 1.0, places=9)

    def test_kirkwood_symmetric_and_rotation_invariant(self):
        a = [(1.0, (1.0, 0.5, 0.0)), (-0.5, (-2.0, 1.0, 1.5))]
        rotated = [(q, (-y, x, z)) for q, (x, y, z) in a]
        e1 = analytic.kirkwood_energy(a, 4.0, 2.0, 80.0, EPKT)
        self.assertAlmostEqual(e1, analytic.kirkwood_energy(a[::-1], 4.0, 2.0, 80.0, EPKT), 10)
        self.assertAlmostEqual(e1, analytic.kirkwood_energy(rotated, 4.0, 2.0, 80.0, EPKT), 10)
        self.assertEqual(analytic.kirkwood_energy(a, 4.0, 2.0, 2.0, EPKT), 0.0)

    def test_debye_huckel_screening_limit(self):
        # b = a and kappa -> infinity: the surface is grounded, W -> -epkt q^2 / (2 a eps_in).
        w = analytic.debye_huckel_sphere_energy(2.0, 3.0, 3.0, 4.0, 80.0, 1e9, EPKT)
        self.assertAlmostEqual(w / (-EPKT * 4.0 / (2 * 3.0 * 4.0)), 1.0, places=6)

    def test_radial_solver_matches_closed_form(self):
        kappa = 1.0 / constants.delphi_debye_length(298.15, 80.0, 0.15)
        for q, a in ((1.0, 2.0), (5.0, 3.0)):
            lin = analytic.radial_pb_sphere_energy(q, a, a + 2.0, 2.0, 80.0, kappa, EPKT,
                                                   nonlinear=False)
            dh = analytic.debye_huckel_sphere_energy(q, a, a + 2.0, 2.0, 80.0, kappa, EPKT)
            self.assertAlmostEqual(lin / dh, 1.0, places=7)

    def test_radial_nonlinear_effect(self):
        # Small potentials: nonlinear = linear; large: more screening (energy lower), and the
        # quintic polynomial screens less than sinh.
        kappa = 1.0 / constants.delphi_debye_length(298.15, 80.0, 0.15)

        def nl(q, a, model):
            return (analytic.radial_pb_sphere_energy(q, a, a + 2, 2.0, 80.0, kappa, EPKT,
                                                     ion_density=model)
                    - analytic.radial_pb_sphere_energy(q, a, a + 2, 2.0, 80.0, kappa, EPKT,
                                                       nonlinear=False))

        self.assertLess(abs(nl(0.01, 2.0, "exact")), 1e-8)
        exact, quintic = nl(5.0, 3.0, "exact"), nl(5.0, 3.0, "delphi")
        self.assertLess(exact, quintic)
        self.assertLess(quintic, -0.5)
        self.assertAlmostEqual(nl(0.3, 2.0, "exact") / nl(0.3, 2.0, "delphi"), 1.0, places=3)

    def test_outside_charge_rejected(self):
        with self.assertRaises(ValueError):
            analytic.kirkwood_energy([(1.0, (0, 0, 5.0))], 4.0, 2.0, 80.0, EPKT)


SYNTHETIC_APBS = """
CALCULATION #1 (solv): MULTIGRID
  Total electrostatic energy = 1.250000000000E+03 kJ/mol
CALCULATION #2 (ref): MULTIGRID
  Total electrostatic energy = 1.500000000000E+03 kJ/mol
print energy 1 (solv) - 2 (ref) end
  Global net ELEC energy = %s kJ/mol
"""


class ApbsHandling(unittest.TestCase):
    def problem(self, **kw):
        args = dict(name="t", pqr="x.pqr", gsize=65, scale=2.0, centre=(1.0, 2.0, 3.0),
                    eps_in=2.0, eps_out=80.0)
        args.update(kw)
        return Problem(**args)

    def test_parse(self):
        e = apbs.parse_output(SYNTHETIC_APBS % "-2.500000000000E+02")
        self.assertEqual(e["difference"], -250.0)
        self.assertEqual(e["solv"], 1250.0)

    def test_parse_rejects_inconsistent_difference(self):
        with self.assertRaises(apbs.ApbsError):
            apbs.parse_output(SYNTHETIC_APBS % "-2.400000000000E+02")

    def test_parse_rejects_missing_calculation(self):
        with self.assertRaises(apbs.ApbsError):
            apbs.parse_output(SYNTHETIC_APBS % "-2.5E+02", expected=("solv", "ref", "nosalt"))

    def test_input_matches_problem(self):
        text = apbs.make_input(self.problem(salt=0.15), "m.pqr")
        for needle in ("dime 65 65 65", "grid 0.5 0.5 0.5", "gcent 1.000000 2.000000 3.000000",
                       "chgm spl0", "srfm mol", "bcfl sdh", "pdie 2", "sdie 80", "temp 298.15",
                       "ion charge 1 conc 0.15 radius 2", "ion charge -1 conc 0.15 radius 2",
                       "elec name nosalt", "calcenergy total", "srad 1.4"):
            self.assertIn(needle, text)
        self.assertEqual(text.count("elec name"), 3)
        self.assertNotIn("elec name nosalt", apbs.make_input(self.problem(), "m.pqr"))

    def test_grid_must_suit_multigrid(self):
        with self.assertRaises(apbs.ApbsError):
            apbs.make_input(self.problem(gsize=63), "m.pqr")


class Checks(unittest.TestCase):
    def test_non_finite_and_missing_fail(self):
        t = tolerances.Tolerance(0.1, 0.0, "")
        self.assertTrue(tolerances.passes(1.05, 1.0, t))
        self.assertFalse(tolerances.passes(1.2, 1.0, t))
        self.assertFalse(tolerances.passes(float("nan"), 1.0, t))
        self.assertFalse(tolerances.passes(None, 1.0, t))
        self.assertFalse(tolerances.passes(math.inf, 1.0, t))

    def test_map_compare(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for k, vals in enumerate(([1.0, -4.0, 2.0], [1.0, -4.0, 2.001])):
                p = os.path.join(d, "m%d.dx" % k)
                with open(p, "w") as f:
                    f.write("object 1 class gridpositions counts 1 1 3\n"
                            "object 3 class array type double rank 0 items 3 data follows\n")
                    f.write(" ".join("%.6e" % v for v in vals) + "\nattribute \"dep\"\n")
                paths.append(p)
            m = maps.compare(*paths)
            self.assertAlmostEqual(m["max_abs_diff"], 0.001, places=9)
            self.assertEqual(m["max_abs"], 4.0)
            self.assertEqual(m["digits"], 7)

    def test_spacing_order(self):
        class C:  # minimal case stand-in
            def __init__(self, name, h):
                self.name, self.group, self.series, self.length_scale = name, "born", "s", 2.0
                self.problem = type("P", (), {"spacing": h})()

        for errors, ok in (((0.08, 0.04, 0.02), True), ((0.03, 0.03, 0.031), False)):
            cs = [C("c%d" % i, h) for i, h in enumerate((1.0, 0.5, 0.25))]
            rows = [{"case": c.name, "kind": "analytic", "variant": "cpu/double",
                     "quantity": "solvation", "reference": -10.0, "ours": -10.0 * (1 + e)}
                    for c, e in zip(cs, errors)]
            (row,) = compare.order_rows(cs, rows)
            self.assertEqual(row["passed"], ok, row)


class EndToEnd(unittest.TestCase):
    """The runner with the fake program: right results pass, wrong ones fail."""

    fake = os.path.join(HERE, "fake_delphi_gpu.py")
    runner = os.path.join(HERE, "run_suite.py")

    def run_suite(self, env_extra, *extra):
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("FAKE_DG_"):
                del env[k]
        env.update(env_extra)
        with tempfile.TemporaryDirectory() as out:
            argv = [sys.executable, self.runner, "--quick", "--program", self.fake, "--apbs",
                    "off", "--quiet", "--out", out] + list(extra)
            p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
            report = os.path.join(out, "report", "REPORT.md")
            self.assertTrue(os.path.isfile(report), p.stdout + p.stderr)
        return p.returncode, p.stdout + p.stderr

    ANALYTIC = ("--only", "born|kirkwood|dh")

    def test_right_results_pass(self):
        rc, out = self.run_suite({}, *self.ANALYTIC)
        self.assertEqual(rc, 0, out)

    def test_small_error_within_tolerance_passes(self):
        rc, out = self.run_suite({"FAKE_DG_ENERGY_ERROR": "0.005"}, *self.ANALYTIC)
        self.assertEqual(rc, 0, out)

    def test_wrong_energies_fail(self):
        rc, out = self.run_suite({"FAKE_DG_ENERGY_ERROR": "0.3"}, *self.ANALYTIC)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL", out)
        self.assertIn("analytic", out)

    def test_nan_fails(self):
        rc, out = self.run_suite({"FAKE_DG_ENERGY_ERROR": "nan"}, "--only", "born_r2_e2")
        self.assertEqual(rc, 1, out)

    def test_failed_run_fails(self):
        rc, out = self.run_suite({"FAKE_DG_EXIT": "3"}, "--only", "born_r2_e2")
        self.assertEqual(rc, 1, out)
        self.assertIn("exit status 3", out)

    def test_missing_key_fails(self):
        rc, out = self.run_suite({"FAKE_DG_DROP_KEY": "energies_kT.grid"}, "--only", "born_r2_e2")
        self.assertEqual(rc, 1, out)
        self.assertIn("missing key energies_kT.grid", out)

    def test_nonlinear_without_ionic_terms_fails(self):
        rc, out = self.run_suite({"FAKE_DG_DROP_KEY": "energies_kT.ionic"}, "--only", "npbe")
        self.assertEqual(rc, 1, out)
        self.assertIn("without energies_kT.ionic", out)

    def test_missing_reference_fails(self):
        rc, out = self.run_suite({}, "--only", "1ubq_lpbe_0M")
        self.assertEqual(rc, 1, out)
        self.assertIn("APBS switched off", out)

    def test_backends_agree(self):
        rc, out = self.run_suite({}, "--only", "born_r2_e2", "--backend", "both")
        self.assertEqual(rc, 0, out)

    def test_backend_disagreement_fails(self):
        rc, out = self.run_suite({"FAKE_DG_CUDA_SKEW": "1e-4"}, "--only", "born_r2_e2",
                                 "--backend", "both")
        self.assertEqual(rc, 1, out)
        self.assertIn("backend", out)
        self.assertIn("potentials", out)

    def test_solvers_agree(self):
        rc, out = self.run_suite({}, "--only", "born_r2_e2|dh_q5", "--solver", "both")
        self.assertEqual(rc, 0, out)

    def test_resumed_runs_are_reported(self):
        with tempfile.TemporaryDirectory() as out:
            argv = [sys.executable, self.runner, "--quick", "--program", self.fake, "--apbs",
                    "off", "--quiet", "--out", out, "--only", "born_r2_e2"]
            reports = []
            for extra in ([], ["--resume"]):
                p = subprocess.run(argv + extra, capture_output=True, text=True, timeout=600)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                with open(os.path.join(out, "report", "REPORT.md")) as f:
                    reports.append(next(l for l in f if l.startswith("| runs |")))
        self.assertNotIn("reused", reports[0])
        self.assertRegex(reports[1], r"\| runs \| (\d+) delphi-gpu runs, .* \(\1 of them reused "
                         r"from an earlier invocation by --resume")

    def test_solver_disagreement_fails(self):
        rc, out = self.run_suite({"FAKE_DG_MG_SKEW": "1e-3"}, "--only", "born_r2_e2",
                                 "--solver", "both")
        self.assertEqual(rc, 1, out)
        self.assertIn("mg vs sor", out)
        self.assertIn("potentials", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
