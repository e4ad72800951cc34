"""Multi-model PQR files and the trajectory example on a small molecule."""
import os
import sys

import numpy as np
import pytest

import delphi_gpu as dg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
import trajectory  # noqa: E402


def _small_pqr(path):
    rng = np.random.default_rng(5)
    n = 10
    atoms = dg.Atoms(rng.uniform(-4, 4, size=(n, 3)), rng.choice([-0.5, 0.5], size=n),
                     rng.uniform(1.5, 2.0, size=n),
                     [("C%d" % k, "LIG", "A", "1") for k in range(n)])
    dg.write_pqr_models(path, [atoms])
    return atoms


def test_pqr_models_round_trip(tmp_path):
    atoms = _small_pqr(tmp_path / "one.pqr")
    models = trajectory.make_trajectory(tmp_path / "one.pqr", tmp_path / "traj.pqr", 4, 0.2)
    back = dg.read_pqr_models(tmp_path / "traj.pqr")
    assert len(back) == 4 and all(len(m) == len(atoms) for m in back)
    for m, b in zip(models, back):
        np.testing.assert_allclose(b.positions, m.positions, atol=6e-4)  # 3 decimals
        np.testing.assert_allclose(b.charges, atoms.charges, atol=1e-4)
    assert back[0].names == atoms.names
    with open(tmp_path / "bad.pqr", "w") as fh:
        fh.write("MODEL 1\nATOM 1 C LIG A 1 0 0 0 1 2\nENDMDL\n"
                 "MODEL 2\nATOM 1 C LIG A 1 0 0 0 1 2\nATOM 2 C LIG A 1 1 0 0 1 2\nENDMDL\n")
    with pytest.raises(ValueError, match="model 2 has 2 atoms"):
        dg.read_pqr_models(tmp_path / "bad.pqr")
    with open(tmp_path / "empty.pqr", "w") as fh:
        fh.write("MODEL 1\nATOM 1 C LIG A 1 0 0 0 1 2\nENDMDL\nMODEL 2\nENDMDL\n")
    with pytest.raises(ValueError, match="model 2 has 0 atoms"):
        dg.read_pqr_models(tmp_path / "empty.pqr")


def test_trajectory_example(tmp_path, backend):
    _small_pqr(tmp_path / "one.pqr")
    trajectory.make_trajectory(tmp_path / "one.pqr", tmp_path / "traj.pqr", 3, 0.2)
    options = dict(scale=2.0, perfil=50, salt=0.15, maxc=1e-5, energies="g,c,s",
                   backend=backend)
    out = trajectory.run_trajectory(dg.read_pqr_models(tmp_path / "traj.pqr"), options,
                                    log=lambda s: None)
    assert len(out["records"]) == 3 and out["warm_frames_per_second"] > 0
    # Frame 3 equals a fresh calculation on the same grid.
    last = dg.read_pqr_models(tmp_path / "traj.pqr")[2]
    res = dg.Calculation(last.positions, last.charges, last.radii, gsize=out["grid_n"],
                         acenter=out["grid_center"], **options).run()
    for key in ("grid", "coulombic", "reaction_field"):
        assert out["records"][2][key] == pytest.approx(res.energies[key], rel=1e-6, abs=1e-6)
