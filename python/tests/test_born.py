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


def test_born_reaction_and_coulombic_potentials(backend):
    """DelPhi's site(r) and site(c): the induced charges' potential and the charges' own in
    eps_in, at the ion and outside the sphere."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    options = dict(OPTIONS, energies="g,s,c")
    with dg.Calculation(pos, q, r, backend=backend, **options) as calc:
        res = calc.run()
        points = [[0.0, 0.0, 0.0], [6.0, 0.0, 0.0], [0.0, 0.0, -7.5], [0.5, -0.25, 0.0]]
        rp = calc.reaction_potentials_at(points)
        # At the ion, q rp / 2 is the corrected energy (the same sums in the other order) and
        # Born's q (1/eps_out - 1/eps_in) / a within the 0.5 % above.
        assert 0.5 * rp[0] == pytest.approx(res.energies["reaction_field"], rel=1e-12)
        assert rp[0] == pytest.approx(2.0 * BORN, rel=5e-3)
        # Outside the sphere the shell of induced charge acts as one charge at the centre, and
        # inside it the potential is nearly that at the centre.
        shell = EPKT * (1.0 / 80.0 - 1.0)
        np.testing.assert_allclose(rp[1:3], shell / np.array([6.0, 7.5]), rtol=0.01)
        assert rp[3] == pytest.approx(rp[0], rel=0.01)
        cp = calc.coulombic_potentials_at(points)
        assert cp[0] == 0.0  # the ion's own charge at its centre is left out
        np.testing.assert_allclose(cp[1:], EPKT / np.array([6.0, 7.5, np.hypot(0.5, 0.25)]),
                                   rtol=1e-14)
        # Outside, the two add up to the solved potential (q / (eps_out r)).
        np.testing.assert_allclose(rp[1:3] + cp[1:3], calc.potentials_at(points[1:3]), rtol=0.03)
        # The induced charges themselves: on the sphere, summing to the induced charge, and
        # their Coulomb potential in vacuum the reaction potential.
        where, sigma = calc.induced_charges()
        assert sigma.shape == (res.boundary_points,) and where.shape == (res.boundary_points, 3)
        np.testing.assert_allclose(np.linalg.norm(where, axis=1), 2.0, rtol=1e-9)
        assert sigma.sum() == pytest.approx(res.induced_charge, rel=1e-12)
        direct = EPKT * (sigma / np.linalg.norm(where - np.array(points[1]), axis=1)).sum()
        assert rp[1] == pytest.approx(direct, rel=1e-12)
        with pytest.raises(dg.InvalidInputError, match="point 2: coordinate y"):
            calc.reaction_potentials_at([[0.0, 0.0, 0.0], [1.0, np.nan, 0.0]])
    # Without the reaction-field energy the induced charges are not there to sum.
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS | dict(energies="g")) as calc:
        calc.run()
        with pytest.raises(dg.DelphiGpuError, match="did not compute the reaction field"):
            calc.reaction_potentials_at([[0.0, 0.0, 0.0]])
        with pytest.raises(dg.DelphiGpuError, match="did not compute the reaction field"):
            calc.induced_charges()
        assert calc.coulombic_potentials_at([[0.0, 3.0, 4.0]])[0] == pytest.approx(EPKT / 5.0)
        with pytest.raises(dg.DelphiGpuError, match="did not compute the reaction field"):
            calc.reaction_forces()


def test_born_site_forces(backend):
    """DelPhi's site(cf) and site(rf): the Coulombic field of the charges (q r / r^3 in eps_in)
    and the reaction-field force on each atom.  A lone ion owns all its surface charges, so
    its reaction-field force is zero; of two ions the forces are equal and opposite."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS) as calc:
        calc.run()
        field = calc.coulombic_fields_at([[0.0, 3.0, 4.0], [0.0, 0.0, 0.0]])
        np.testing.assert_allclose(field[0], EPKT * np.array([0.0, 3.0, 4.0]) / 125.0,
                                   rtol=1e-14)
        assert (field[1] == 0.0).all()  # the ion's own charge at its centre is left out
        lone = calc.reaction_forces()
        assert lone.shape == (1, 3)
        # against the size of either part: the induced charges' field at the ion times q
        where, sigma = calc.induced_charges()
        part = EPKT * np.abs(sigma / np.linalg.norm(where, axis=1) ** 2).sum()
        assert np.abs(lone).max() <= 1e-10 * part
    pos = np.array([[-2.5, 0.0, 0.0], [2.5, 0.0, 0.0]])
    with dg.Calculation(pos, np.array([1.0, -1.0]), np.array([2.0, 2.0]), backend=backend,
                        **OPTIONS) as calc:
        calc.run()
        f = calc.reaction_forces()
        np.testing.assert_allclose(f[0], -f[1], rtol=1e-9, atol=1e-9 * np.abs(f).max())
        # Each ion is drawn towards the solvent, away from the other (its image charges in the
        # boundary pull it out); the Coulombic pull between them is along the same line.
        assert f[0, 0] < 0.0 < f[1, 0]
        cf = np.array([1.0, -1.0])[:, None] * calc.coulombic_fields_at(pos)
        np.testing.assert_allclose(cf[0], [EPKT / 25.0, 0.0, 0.0], rtol=1e-14)
        with pytest.raises(ValueError, match="points"):
            calc.coulombic_fields_at(np.zeros((2, 2)))


def test_born_medium_maps(backend):
    """DelPhi's out(eps) maps of a lone sphere: a cell-face midpoint is solute exactly when it
    lies inside the 2 A sphere (no midpoint is at exactly 2 A at 4 points/A), and a grid point
    is ion-accessible at more than 2 + ionrad A from the centre, not within it; built for the
    call without salt, taken from the run with salt."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    for salt in (0.0, 0.15):
        with dg.Calculation(pos, q, r, backend=backend, salt=salt, ionrad=2.0,
                            **OPTIONS) as calc:
            with pytest.raises(dg.DelphiGpuError, match="no completed run"):
                calc.medium_maps()
            calc.run()
            solute, ions = calc.medium_maps()
            g = calc.grid
            n = g.n
            assert solute.shape == (n, n, n, 3) and ions.shape == (n, n, n)
            x = (np.arange(n) - (n - 1) / 2) / g.scale + g.center[0]
            X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
            h = 0.5 / g.scale
            for a, (dx, dy, dz) in enumerate(((h, 0, 0), (0, h, 0), (0, 0, h))):
                inside = (X + dx) ** 2 + (Y + dy) ** 2 + (Z + dz) ** 2 < 4.0
                assert inside.sum() > 2000  # about (4/3) pi 8^3 = 2145 midpoints
                assert np.array_equal(solute[..., a], inside)
            r2 = X ** 2 + Y ** 2 + Z ** 2
            assert not ions[r2 < 16.0 - 1e-9].any()
            assert ions[r2 > 16.0 + 1e-9].all()


def test_born_two_run(backend):
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    res = dg.Calculation(pos, q, r, backend=backend, solvation_two_run=True, **OPTIONS).run()
    # The two-run difference carries the grid sphere's discretisation error (about 1.5 %).
    assert res.energies["solvation_two_run"] == pytest.approx(BORN, rel=0.03)
    assert res.reference_solve is not None and res.reference_solve["iterations"] > 0


def test_focusing_from_a_coarse_map(backend, tmp_path):
    """bndcon=3: a fine grid (10 A box) takes its boundary values from a coarse run's map
    (60 A box).  Its grid energy is the one of the fine grid with Coulombic boundary values, and
    its potential outside the ion-exclusion sphere follows the analytic Debye-Hueckel solution
    q exp(-kappa (r - a)) / (eps_out r (1 + kappa a)), a = 2 + 2 A (sphere plus ion radius)."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    common = dict(indi=1, exdi=80, salt=0.1, maxc=1e-5, energies="g,s", backend=backend)
    with dg.Calculation(pos, q, r, scale=1.0, gsize=61, bndcon=4, **common) as coarse:
        g = coarse.run().grid
        phi_coarse = coarse.potential()
        coarse_map = coarse.potential_map(title="coarse")
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
    # The coarse run's map as a GridMap, directly and through an MRC file (real*4 values).
    assert coarse_map.scale == g.scale and coarse_map.center == pytest.approx(g.center)
    np.testing.assert_array_equal(coarse_map.values, phi_coarse)
    fine.set_focus_map(coarse_map)
    assert fine.run().energies["grid"] == focused.energies["grid"]
    dg.write_mrc(tmp_path / "coarse.mrc", coarse_map)
    fine.set_focus_map(dg.read_mrc(tmp_path / "coarse.mrc"))
    assert fine.run().energies["grid"] == pytest.approx(focused.energies["grid"], rel=1e-6)
    with pytest.raises(TypeError, match="own scale"):
        fine.set_focus_map(coarse_map, 1.0, (0, 0, 0))
    with pytest.raises(TypeError, match="scale and center"):
        fine.set_focus_map(phi_coarse)


def test_focusing_in_one_run(backend):
    """coarse_scale: the coarse solve (80 A box) and the focused one (10 A) in one run, equal to
    the two runs (a coarse calculation's potential given to a focused one) bit for bit, and the
    potential outside the ion-exclusion sphere the analytic Debye-Hueckel one (2 %; measured
    1.2 and 0.5 %)."""
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    common = dict(indi=1, exdi=80, salt=0.1, maxc=1e-5, energies="g,s", backend=backend,
                  gsize=41, acenter=(0.3, 0, 0))
    with dg.Calculation(pos, q, r, scale=4.0, bndcon=4, coarse_scale=0.5, **common) as one:
        res = one.run()
        at = one.potentials_at([[4.5, 0.0, 0.0], [0.0, 4.5, 0.0], [0.0, 0.0, -4.5]])
    assert res.coarse_grid.n == 41 and res.coarse_grid.scale == 0.5
    assert res.coarse_grid.center == pytest.approx(res.grid.center)
    assert res.coarse_solve["outcome"] == "converged" and res.timing["coarse"] > 0
    with dg.Calculation(pos, q, r, scale=0.5, bndcon=4, **common) as coarse:
        coarse.run()
        coarse_map = coarse.potential_map()
    with dg.Calculation(pos, q, r, scale=4.0, bndcon="focusing", **common) as fine:
        fine.set_focus_map(coarse_map)
        two = fine.run()
    assert two.coarse_grid is None and two.coarse_solve is None
    assert two.energies == res.energies and two.iterations == res.iterations
    kappa = np.sqrt(8 * np.pi * (EPKT / 80.0) * 0.1 * 6.02214076e-4)
    analytic = EPKT * np.exp(-kappa * (4.5 - 4.0)) / (80.0 * 4.5 * (1 + kappa * 4.0))
    np.testing.assert_allclose(at, analytic, rtol=0.02)
    with pytest.raises(dg.DelphiGpuError, match="coarse_perfil"):
        dg.Calculation(pos, q, r, bndcon="focusing", coarse_perfil=20, backend=backend)
