"""Ubiquitin (examples/1ubq) from Python against the delphi-gpu program's JSON summary."""
import json
import os
import subprocess

import numpy as np
import pytest

import delphi_gpu as dg


def test_1ubq_matches_program(tmp_path, program, root, backend):
    prm = os.path.join(root, "examples", "1ubq", "run.prm")
    run = subprocess.run([program, prm, "--json", "out.json", "--backend", backend],
                         cwd=tmp_path, capture_output=True, text=True)
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
