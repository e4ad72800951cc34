"""Calculation.binding: the HIV-1 protease dimer (regression/data/1hpv.pqr) split by chain, against
the delphi-gpu program's --binding on the same atoms, and the checks of its argument."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import delphi_gpu as dg


def test_dimer_matches_program(tmp_path, program, root, backend):
    pqr = os.path.join(root, "regression", "data", "1hpv.pqr")
    run = subprocess.run([program, "--pqr", pqr, "--scale", "1", "--salt", "0.1", "--maxc",
                          "1e-6", "--energy", "g,s,c", "--binding", "A:B", "--backend", backend,
                          "--precision", "double", "--json", "out.json", "--quiet"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    expected = json.loads((tmp_path / "out.json").read_text())["binding"]

    atoms = dg.read_pqr(pqr)
    chains = atoms.chains
    assert set(chains) == {"A", "B"}
    with dg.Calculation(atoms.positions, atoms.charges, atoms.radii, backend=backend, scale=1,
                        salt=0.1, maxc=1e-6, energies="g,s,c") as calc:
        b = calc.binding(chains == "B", atom_energies=True)  # partner 0: A, partner 1: B
        assert isinstance(b, dg.Binding)
        assert b.atom_energies.shape == (len(atoms),)
        assert b.atom_energies.sum() == pytest.approx(b.energy, rel=1e-9)
        # the catalytic Asp25 of each chain pays most for the dimer (charged, buried together)
        names = np.array([n[1] + n[3] + n[2] for n in atoms.names])
        by_residue = {r: b.atom_energies[names == r].sum() for r in set(names)}
        assert max(by_residue, key=by_residue.get) in ("ASP25A", "ASP25B")
        assert b.energy == pytest.approx(expected["energy_kT"], rel=1e-9, abs=1e-9)
        assert b.salt == pytest.approx(expected["salt_kT"], rel=1e-9, abs=1e-9)
        assert b.grid_energy == pytest.approx(expected["grid_energy_kT"], rel=1e-9, abs=1e-9)
        assert b.energy == pytest.approx(b.difference["coulombic"] +
                                         b.difference["reaction_field"] + b.salt, abs=1e-9)
        for k in range(2):
            want = expected["partners"][k]
            got = b.partners[k]
            assert got["atoms"] == want["atoms"] == 1564
            assert got["converged"] and want["converged"]
            assert got["energies"]["grid"] == pytest.approx(want["energies_kT"]["grid"],
                                                            rel=1e-12)
        # the handle holds the complex: its potential and a plain run agree
        phi = calc.potential()
        again = calc.run()
        assert again.energies["grid"] == b.complex.energies["grid"]
        np.testing.assert_array_equal(calc.potential(), phi)


def test_binding_arguments(backend):
    pos = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]])
    with dg.Calculation(pos, [1.0, -1.0], [1.5, 1.5], backend=backend, scale=2) as calc:
        with pytest.raises(ValueError):
            calc.binding([0, 1, 1])                  # one entry per atom
        with pytest.raises(ValueError):
            calc.binding([0.0, 1.0])                 # integers or bools
        with pytest.raises(dg.InvalidInputError, match="partner\\[1\\] = 2"):
            calc.binding([0, 2])
        with pytest.raises(dg.InvalidInputError, match="partner 1 has no atoms"):
            calc.binding([False, False])
        b = calc.binding([True, False])
        assert b.atom_energies is None
        assert b.partners[0]["net_charge"] == -1.0 and b.partners[1]["net_charge"] == 1.0
        # opposite charges attract in eps_in; the ion pair pays for its desolvation
        assert b.difference["coulombic"] < 0 < b.difference["reaction_field"]
        assert b.energy == b.difference["coulombic"] + b.difference["reaction_field"]
        assert b.salt == 0.0


def test_binding_example(tmp_path, root, backend):
    """python/examples/binding.py over two models of the dimer (the second moved 0.2 A as a
    whole): the same binding energy within the grid's sampling, and "A" as "A:B" here."""
    sys.path.insert(0, os.path.join(root, "python", "examples"))
    import binding as example
    atoms = dg.read_pqr(os.path.join(root, "regression", "data", "1hpv.pqr"))
    moved = dg.Atoms(atoms.positions + 0.2, atoms.charges, atoms.radii, atoms.names)
    path = tmp_path / "two.pqr"
    dg.write_pqr_models(path, [atoms, moved])
    models = dg.read_pqr_models(path)
    assert (example.partner_of(models[0], "A") == example.partner_of(models[0], "A:B")).all()
    with pytest.raises(ValueError, match="neither partner"):
        example.partner_of(models[0], "A:C")
    lines = []
    records = example.run_binding(models, "A:B", dict(scale=1, maxc=1e-5, backend=backend),
                                  log=lines.append)
    assert len(records) == 2 and len(lines) == 2
    assert all(r["converged"] for r in records)
    assert records[1]["energy"] == pytest.approx(records[0]["energy"], abs=2.0)
    assert records[0]["energy"] == pytest.approx(
        records[0]["coulombic"] + records[0]["reaction_field"], abs=1e-9)
    # focused from a coarse grid (each state's own coarse solve), through the command line
    out = tmp_path / "focused.json"
    assert example.main([str(path), "--scale", "1", "--maxc", "1e-5", "--coarse-perfil", "20",
                         "--backend", backend, "--json", str(out)]) == 0
    focused = json.load(open(out))
    assert len(focused) == 2 and all(r["converged"] for r in focused)
    assert focused[0]["energy"] == pytest.approx(records[0]["energy"], abs=0.5)
