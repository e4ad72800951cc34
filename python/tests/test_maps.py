"""phimap and OpenDX readers/writers: round trips, and the delphi-gpu program's own files."""
import os
import struct
import subprocess

import numpy as np
import pytest

import delphi_gpu as dg


def _map(shape=(7, 7, 7)):
    rng = np.random.default_rng(3)
    return dg.GridMap(rng.normal(size=shape), scale=2.5, center=(1.0, -2.0, 3.5), title="t")


def test_phimap_round_trip(tmp_path):
    m = _map()
    path = tmp_path / "a.phi"
    dg.write_phimap(path, m)
    back = dg.read_phimap(path)
    assert back.shape == m.shape
    np.testing.assert_array_equal(back.values, m.values.astype(np.float32))
    assert back.scale == pytest.approx(2.5) and back.center == pytest.approx(m.center)
    assert back.kind == "potential" and back.title == "t"


def test_phimap_big_endian_and_errors(tmp_path):
    m = _map((5, 5, 5))
    path = tmp_path / "le.phi"
    dg.write_phimap(path, m)
    data = path.read_bytes()

    def rec(payload):
        return struct.pack(">I", len(payload)) + payload + struct.pack(">I", len(payload))

    # The same map written big-endian with real*8 values (another Fortran compiler's file).
    be = (rec(b"x" * 20) + rec(b"potential " + b" " * 60)
          + rec(m.values.ravel(order="F").astype(">f8").tobytes()) + rec(b"y" * 16)
          + rec(struct.pack(">4fi", m.scale, *m.center, 5)))
    (tmp_path / "be.phi").write_bytes(be)
    back = dg.read_phimap(tmp_path / "be.phi")
    np.testing.assert_array_equal(back.values, m.values)
    assert back.center == pytest.approx(m.center)
    (tmp_path / "cut.phi").write_bytes(bytes(data[:100]))
    with pytest.raises(ValueError, match="truncated"):
        dg.read_phimap(tmp_path / "cut.phi")
    with pytest.raises(ValueError, match="cubic"):
        dg.write_phimap(tmp_path / "x.phi", _map((5, 7, 9)))


def test_dx_round_trip(tmp_path):
    m = _map((5, 7, 9))
    dg.write_dx(tmp_path / "a.dx", m)
    back = dg.read_dx(tmp_path / "a.dx")
    assert back.shape == (5, 7, 9)
    np.testing.assert_allclose(back.values, m.values, rtol=1e-6, atol=1e-12)
    assert back.scale == pytest.approx(2.5) and back.center == pytest.approx(m.center)
    np.testing.assert_allclose(back.origin, m.origin)


def test_reads_the_programs_maps(tmp_path, program, root):
    """The program writes the Born example's potential as phimap and as OpenDX; both readers
    give the same grid and values (phimap holds real*4)."""
    prm = os.path.join(root, "examples", "born", "run.prm")
    run = subprocess.run([program, prm, "--dx", "born.dx"], cwd=tmp_path, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    phi = dg.read_phimap(tmp_path / "born.phi")
    dx = dg.read_dx(tmp_path / "born.dx")
    assert phi.shape == dx.shape == (81, 81, 81)
    assert phi.scale == pytest.approx(dx.scale, rel=1e-6)
    np.testing.assert_allclose(phi.center, dx.center, atol=1e-5)
    np.testing.assert_allclose(phi.values, dx.values, rtol=1e-5, atol=1e-5)
    # The ion sits at the grid centre: the potential peaks there and is symmetric.
    c = 40
    assert np.argmax(phi.values) == np.ravel_multi_index((c, c, c), phi.shape, order="F")
    np.testing.assert_allclose(phi.values[c + 5, c, c], phi.values[c, c - 5, c], rtol=1e-4)
