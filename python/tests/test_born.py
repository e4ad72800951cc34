"""Born ion: one +1 e charge in a sphere of radius 2 A, eps 1 inside, 80 outside, no salt.
Analytic solvation energy -(epkt/2) q^2/a (1/eps_in - 1/eps_out), epkt = 166804.4928/T."""
import numpy as np
import pytest

import delphi_gpu as dg

T = 297.3342
EPKT = 166804.4928 / T
BORN = -(EPKT / 2.0) * 1.0 / 2.0 * (1.0 - 1.0 / 80.0)  # -138.4969 kT

OPTIONS = dict(scale=4.0, perfil=20, indi=1, exdi=80, bndcon=4, maxc=1e-5, energies="g,s")


def test_born_energy_matches_analytic(backend):
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS) as calc:
        res = calc.run()
        assert res.converged, res.outcome
        assert res.grid.n == 81 and res.grid.scale == pytest.approx(4.0)
        # The corrected reaction field is fixed by Gauss's law: within 0.5 % of Born.
        assert res.energies["reaction_field"] == pytest.approx(BORN, rel=5e-3)
        assert res.induced_charge == pytest.approx(res.expected_induced_charge, abs=1e-3)
        assert "coulombic" not in res.energies  # not requested
        phi = calc.potential()
        assert phi.shape == (81, 81, 81) and phi.flags.f_contiguous
        # Outside the sphere, far from the faces: q / (eps_out r) in kT/e (within 3 %).
        rr = 6.0
        got = calc.potentials_at([[rr, 0, 0], [0, -rr, 0], [0, 0, rr]])
        np.testing.assert_allclose(got, EPKT / (80.0 * rr), rtol=0.03)
        # The interpolation hits grid values at grid points; NaN outside the grid.
        g = calc.grid
        i, j, k = 40 + 8, 40 - 3, 40 + 1
        point = [g.origin[0] + i / g.scale, g.origin[1] + j / g.scale, g.origin[2] + k / g.scale]
        assert calc.potentials_at([point])[0] == pytest.approx(phi[i, j, k], rel=1e-12)
        assert np.isnan(calc.potentials_at([[1000.0, 0.0, 0.0]])[0])
        f32 = calc.potential(np.float32)
        np.testing.assert_allclose(f32, phi, rtol=1e-6, atol=1e-6)


def test_born_two_run(backend):
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    res = dg.Calculation(pos, q, r, backend=backend, solvation_two_run=True, **OPTIONS).run()
    # The two-run difference carries the grid sphere's discretisation error (about 1.5 %).
    assert res.energies["solvation_two_run"] == pytest.approx(BORN, rel=0.03)
    assert res.reference_solve is not None and res.reference_solve["iterations"] > 0


def test_focusing_from_a_coarse_map(backend):
    """bndcon=3: a fine grid (10 A box) takes its boundary values from a coarse run's map
    (60 A box).  Its grid energy is the one of the fine grid with Coulombic boundary values, and
    its potential outside the ion-exclusion sphere follows the analytic Debye-Hueckel solution
    q exp(-kappa (r - a)) / (eps_out r (1 + kappa a)), a = 2 + 2 A (sphere plus ion radius)."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    common = dict(indi=1, exdi=80, salt=0.1, maxc=1e-5, energies="g,s", backend=backend)
    with dg.Calculation(pos, q, r, scale=1.0, gsize=61, bndcon=4, **common) as coarse:
        g = coarse.run().grid
        phi_coarse = coarse.potential()
    fine = dg.Calculation(scale=4.0, gsize=41, bndcon="focusing", acenter=(0.3, 0, 0), **common)
    fine.set_atoms(pos, q, r)
    fine.set_focus_map(phi_coarse, g.scale, g.center)
    focused = fine.run()
    direct = dg.Calculation(pos, q, r, scale=4.0, gsize=41, bndcon=4, acenter=(0.3, 0, 0),
                            **common)
    ref = direct.run()
    assert focused.energies["grid"] == pytest.approx(ref.energies["grid"], rel=1e-4)
    assert focused.energies["reaction_field"] == pytest.approx(BORN, rel=5e-3)
    # Debye length at 0.1 M: kappa^2 = 8 pi l_B I N_A, l_B = EPKT / eps_out (Angstrom).
    kappa = np.sqrt(8 * np.pi * (EPKT / 80.0) * 0.1 * 6.02214076e-4)
    a = 4.0
    points = np.array([[4.5, 0.0, 0.0], [0.0, 4.5, 0.0], [0.0, 0.0, -4.5]])
    rr = np.linalg.norm(points, axis=1)
    analytic = EPKT * np.exp(-kappa * (rr - a)) / (80.0 * rr * (1 + kappa * a))
    np.testing.assert_allclose(fine.potentials_at(points), analytic, rtol=0.02)
    with pytest.raises(ValueError, match="cubic"):
        fine.set_focus_map(np.zeros((5, 5, 7)), 1.0, (0, 0, 0))
