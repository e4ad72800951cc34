"""Periodic axes (periodic='z', DelPhi's pbz=True): an ion in a box periodic along z stands for a
row of ions one period apart, so moving it along z by whole grid spacings (the grid held in place,
the other faces at zero) moves its potential with it; the faces along z repeat the interior; bad
choices are refused by name."""
import json
import os
import sys

import numpy as np
import pytest

import delphi_gpu as dg

OPTIONS = dict(scale=2.0, gsize=41, indi=2, exdi=80, salt=0.1, bndcon=1, maxc=1e-8,
               energies="g", acenter=(0.0, 0.0, 0.0))


def run(z, backend, charge=1.0, **extra):
    pos, q, r = np.array([[0.3, -0.2, z]]), np.array([charge]), np.array([2.0])
    with dg.Calculation(pos, q, r, backend=backend, **dict(OPTIONS, **extra)) as calc:
        res = calc.run()
        assert res.converged, res.outcome
        return res, calc.potential(), calc.potentials_at(pos)[0]


def test_periodic_row_of_ions(backend):
    # one period is n - 2 = 39 spacings; move the ion by 7 of them (3.5 A)
    a, phi_a, at_a = run(-4.0, backend, periodic="z")
    b, phi_b, at_b = run(-0.5, backend, periodic="z")
    assert b.energies["grid"] == pytest.approx(a.energies["grid"], rel=1e-8)
    assert at_b == pytest.approx(at_a, rel=1e-8)
    interior = np.arange(1, 40)
    np.testing.assert_allclose(phi_b[:, :, interior], np.roll(phi_a[:, :, interior], 7, axis=2),
                               rtol=0, atol=1e-7 * np.abs(phi_a).max())
    # the faces along z repeat their images (away from the x and y faces)
    np.testing.assert_array_equal(phi_a[1:-1, 1:-1, 0], phi_a[1:-1, 1:-1, 39])
    np.testing.assert_array_equal(phi_a[1:-1, 1:-1, 40], phi_a[1:-1, 1:-1, 1])
    # with fixed faces the same move changes the energy (the check above can fail)
    c, _, _ = run(-4.0, backend)
    d, _, _ = run(-0.5, backend)
    assert abs(d.energies["grid"] - c.energies["grid"]) > 1e-4 * abs(c.energies["grid"])
    # DelPhi's statement names give the same run
    e, phi_e, _ = run(-4.0, backend, pbz=True)
    np.testing.assert_array_equal(phi_e, phi_a)
    # mixed precision (float sweeps on a double iterate) gives double's answer, faces included
    m, phi_m, _ = run(-4.0, backend, periodic="z", precision="mixed")
    assert m.energies["grid"] == pytest.approx(a.energies["grid"], rel=1e-9)
    np.testing.assert_allclose(phi_m, phi_a, rtol=0, atol=1e-8 * np.abs(phi_a).max())
    np.testing.assert_array_equal(phi_m[1:-1, 1:-1, 0], phi_m[1:-1, 1:-1, 39])


def test_periodic_nonlinear(backend):
    """Nonlinear PB along a periodic axis: Newton's method by default (its steps by the SOR),
    for a row of -8 e ions whose potential in the salt is several kT/e; moving the ion moves
    the potential; DelPhi's scheme, asked for, reaches the same potential on the same
    polynomial ionic term."""
    nonlinear = dict(periodic="z", salt=0.15, nonit=50, bndcon=1)
    a, phi_a, at_a = run(-4.0, backend, charge=-8.0, **nonlinear)
    b, phi_b, at_b = run(-0.5, backend, charge=-8.0, **nonlinear)
    assert a.solve["equation"] == "nonlinear" and a.solve["linear_iterations"] == 0  # Newton
    assert a.solve["nonlinear_blocks"] >= 3  # Newton steps: the equation is nonlinear here
    assert b.energies["grid"] == pytest.approx(a.energies["grid"], rel=1e-8)
    interior = np.arange(1, 40)
    np.testing.assert_allclose(phi_b[:, :, interior], np.roll(phi_a[:, :, interior], 7, axis=2),
                               rtol=0, atol=1e-7 * np.abs(phi_a).max())
    np.testing.assert_array_equal(phi_a[1:-1, 1:-1, 0], phi_a[1:-1, 1:-1, 39])
    # the potential 4 A from the ion's row is well beyond the linear regime
    assert phi_a[20 + 8, 20, 12] < -2.0
    # DelPhi's polynomial term: Newton and DelPhi's scheme reach one potential
    p, phi_p, _ = run(-4.0, backend, charge=-8.0, nonlinear="newton-polynomial", **nonlinear)
    d, phi_d, _ = run(-4.0, backend, charge=-8.0, nonlinear="delphi", relpar=1.5,
                      **dict(nonlinear, nonit=400))
    assert d.solve["linear_iterations"] > 0
    np.testing.assert_allclose(phi_p, phi_d, rtol=0, atol=1e-6 * np.abs(phi_d).max())
    assert np.abs(phi_p - phi_a).max() > 1e-3  # sinh and its polynomial differ here


def test_periodic_refusals(backend):
    pos, q, r = np.zeros((1, 3)), np.array([1.0]), np.array([2.0])
    with pytest.raises(ValueError, match="periodic"):
        dg.Calculation(pos, q, r, backend=backend, periodic="w")
    with pytest.raises(ValueError, match="periodic"):
        dg.Calculation(pos, q, r, backend=backend, periodic="zz")


def test_periodic_multigrid(backend):
    """Multigrid with a periodic axis (its coarse levels wrap the seam): the SOR's energy and
    potential, the moved ion's potential moved, the faces their images."""
    a, phi_a, _ = run(-4.0, backend, periodic="z")
    m, phi_m, _ = run(-4.0, backend, periodic="z", solver="multigrid", maxc=1e-10)
    b, phi_b, _ = run(-0.5, backend, periodic="z", solver="multigrid", maxc=1e-10)
    assert m.solve["solver"] == 1 and a.solve["solver"] == 0  # dg_solver_method: MULTIGRID, SOR
    assert m.energies["grid"] == pytest.approx(a.energies["grid"], rel=1e-8)
    np.testing.assert_allclose(phi_m, phi_a, rtol=0, atol=1e-7 * np.abs(phi_a).max())
    interior = np.arange(1, 40)
    np.testing.assert_allclose(phi_b[:, :, interior], np.roll(phi_m[:, :, interior], 7, axis=2),
                               rtol=0, atol=1e-8 * np.abs(phi_m).max())
    np.testing.assert_array_equal(phi_m[1:-1, 1:-1, 0], phi_m[1:-1, 1:-1, 39])
    np.testing.assert_array_equal(phi_m[1:-1, 1:-1, 40], phi_m[1:-1, 1:-1, 1])



def test_dna_example(tmp_path, root, backend):
    """python/examples/dna_periodic.py: a duplex made infinite by a periodic z (one and two
    helical turns per period), and a periodic array of them.  Newton's method converges at
    each salt; near the duplex the nonlinear potential is weaker than the linear one, most at
    low salt, where the linear equation's Donnan potential in the array is an order of
    magnitude too large; the nonlinear effect is negative and shrinks as salt screens."""
    sys.path.insert(0, os.path.join(root, "python", "examples"))
    import dna_periodic as example
    assert example.periodic_grid(1, 1.0) == (37, pytest.approx(35 / 33.8))
    array, gsize, _ = example.run_salts([0.01, 0.1], turns=1, scale=1.0, array=True,
                                        options={"backend": backend}, log=lambda *a: None)
    assert gsize == 37
    for r in array:
        assert abs(r["nonlinear"]["potential_12A"]) < abs(r["linear"]["potential_12A"])
        assert r["nonlinear_effect_per_bp"] < 0
        assert r["nonlinear"]["steps"] > 2
    assert abs(array[0]["nonlinear"]["potential_12A"]) < 0.2 * abs(
        array[0]["linear"]["potential_12A"])
    assert array[0]["nonlinear_effect_per_bp"] < array[1]["nonlinear_effect_per_bp"]
    out = tmp_path / "dna.json"
    assert example.main(["--salt", "0.1", "1.0", "--turns", "2", "--backend", backend,
                         "--json", str(out)]) == 0
    single = json.load(open(out))
    assert [r["salt"] for r in single] == [0.1, 1.0]
    assert single[0]["nonlinear_effect_per_bp"] < single[1]["nonlinear_effect_per_bp"] < 0
