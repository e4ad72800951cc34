"""Ubiquitin (examples/1ubq) from Python against the delphi-gpu program's JSON summary."""
import json
import os
import subprocess

import numpy as np
import pytest

import delphi_gpu as dg


def test_1ubq_matches_program(tmp_path, program, root, backend):
    prm = os.path.join(root, "examples", "1ubq", "run.prm")
    # The program's GPU default is mixed precision; the package's is double: compare double.
    run = subprocess.run([program, prm, "--json", "out.json", "--backend", backend,
                          "--precision", "double"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads((tmp_path / "out.json").read_text())
    expected = summary["energies_kT"]

    atoms = dg.read_pqr(os.path.join(root, "examples", "1ubq", "1ubq.pqr"))
    assert len(atoms) == 1231
    calc = dg.Calculation(atoms.positions, atoms.charges, atoms.radii, backend=backend,
                          scale=2.0, perfil=80, indi=2, exdi=80, prbrad=1.4, ionrad=2.0,
                          salt=0.15, bndcon=2, maxc=1e-4, energies="g,s,c")
    res = calc.run()
    assert res.converged
    assert res.grid.n == summary["grid"]["size"][0]
    np.testing.assert_allclose(res.grid.center, summary["grid"]["center"], atol=1e-9)
    assert res.iterations == summary["solver"]["iterations"]
    for ours, theirs in (("grid", "grid"), ("coulombic", "coulombic"),
                         ("reaction_field", "reaction_field_corrected")):
        assert res.energies[ours] == pytest.approx(expected[theirs], rel=1e-9, abs=1e-6), ours

    # The program's phimap holds the same potential (real*4).
    phi_map = dg.read_phimap(tmp_path / "1ubq.phi")
    np.testing.assert_allclose(phi_map.values, calc.potential(), rtol=1e-6, atol=1e-4)


def test_nonlinear_matches_program(tmp_path, program, backend):
    """Nonlinear PB (nonit with salt) on a small charged molecule: the Python options map to
    the same calculation as the program's statements."""
    rng = np.random.default_rng(2)
    n = 8
    atoms = dg.Atoms(rng.uniform(-3, 3, size=(n, 3)), np.full(n, 0.5), np.full(n, 1.8),
                     [("C%d" % k, "LIG", "A", "1") for k in range(n)])
    dg.write_pqr_models(tmp_path / "mol.pqr", [atoms])
    back = dg.read_pqr(tmp_path / "mol.pqr")  # the file's rounded coordinates
    args = ["--pqr", "mol.pqr", "--scale", "2", "--perfil", "60", "--salt", "0.15", "--nonit",
            "50", "--maxc", "1e-6", "--energy", "g,s,c,ion", "--bndcon", "2", "--json",
            "out.json", "--backend", backend]
    run = subprocess.run([program] + args, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads((tmp_path / "out.json").read_text())
    res = dg.Calculation(back.positions, back.charges, back.radii, backend=backend, scale=2,
                         perfil=60, salt=0.15, nonit=50, maxc=1e-6, energies="g,s,c,ion",
                         bndcon=2).run()
    assert res.solve["equation"] == "nonlinear" and res.converged
    assert summary["solver"]["iterations"] == res.iterations
    e = summary["energies_kT"]
    assert res.energies["grid"] == pytest.approx(e["grid"], rel=1e-9)
    assert res.energies["reaction_field"] == pytest.approx(e["reaction_field_corrected"],
                                                           rel=1e-9)
    assert res.energies["ionic_total"] == pytest.approx(e["ionic"], rel=1e-9, abs=1e-9)
    assert res.energies["ionic_total"] != 0.0
