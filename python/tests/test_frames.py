"""One warm calculation re-run for new coordinates (MD frames) and charges (titration states)
gives what a fresh calculation on the same grid gives."""
import numpy as np
import pytest

import delphi_gpu as dg

OPTIONS = dict(scale=2.0, perfil=60, indi=2, exdi=80, salt=0.1, bndcon=2, maxc=1e-6,
               energies="g,c,s")


def _molecule():
    rng = np.random.default_rng(7)
    pos = rng.uniform(-4.0, 4.0, size=(12, 3))
    q = rng.choice([-0.5, 0.5, 0.25, -0.25], size=12)
    r = rng.uniform(1.4, 2.0, size=12)
    return pos, q, r


def _fresh(pos, q, r, grid, backend):
    """A new calculation on the given grid (gsize + acenter fix it)."""
    calc = dg.Calculation(pos, q, r, backend=backend, gsize=grid.n, acenter=grid.center,
                          **OPTIONS)
    return calc.run(), calc.potential()


def _compare(a, b, phi_a, phi_b):
    for key in ("grid", "coulombic", "reaction_field"):
        assert a.energies[key] == pytest.approx(b.energies[key], rel=1e-6, abs=1e-6), key
    np.testing.assert_allclose(phi_a, phi_b, rtol=1e-5, atol=1e-6)


def test_positions_and_charges_reuse(backend):
    pos, q, r = _molecule()
    rng = np.random.default_rng(11)
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS) as calc:
        first = calc.run()
        grid = first.grid
        for _ in range(2):
            frame = pos + rng.normal(scale=0.3, size=pos.shape)
            calc.set_positions(frame)
            res = calc.run()
            assert res.grid == grid  # the grid stays where it was
            ref, phi_ref = _fresh(frame, q, r, grid, backend)
            _compare(res, ref, calc.potential(), phi_ref)
        previous, phi_previous = res, calc.potential()
        q2 = -q
        calc.set_charges(q2)
        res = calc.run()
        ref, phi_ref = _fresh(frame, q2, r, grid, backend)
        _compare(res, ref, calc.potential(), phi_ref)
        # Negated charges: the same energies (quadratic) and the negated potential.
        assert res.energies["grid"] == pytest.approx(previous.energies["grid"], rel=1e-6)
        np.testing.assert_allclose(calc.potential(), -phi_previous, rtol=1e-5, atol=1e-6)


def test_frame_leaving_the_grid_raises(backend):
    pos, q, r = _molecule()
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS) as calc:
        calc.run()
        moved = pos.copy()
        moved[5] += 500.0
        with pytest.raises(dg.InvalidInputError) as info:
            calc.set_positions(moved)
        assert "atom" in str(info.value)
        assert info.value.status_name == "DG_ERR_INVALID_ARGUMENT"
        with pytest.raises(ValueError, match="12 atoms"):
            calc.set_positions(pos[:5])


def test_set_options_matches_fresh(backend):
    pos, q, r = _molecule()
    with dg.Calculation(pos, q, r, backend=backend, **OPTIONS) as calc:
        calc.run()
        calc.set_options(salt=0.0, indi=4.0)
        res = calc.run()
        assert calc.options["indi"] == 4.0
        fresh = dg.Calculation(pos, q, r, backend=backend, **dict(OPTIONS, salt=0.0, indi=4.0))
        ref = fresh.run()
        _compare(res, ref, calc.potential(), fresh.potential())
        with pytest.raises(dg.InvalidInputError):
            calc.set_options(exdi=-1.0)
