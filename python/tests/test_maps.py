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
    """The program writes the Born example's potential as phimap, OpenDX and MRC; the readers
    give the same grid and values (phimap and MRC hold real*4)."""
    prm = os.path.join(root, "examples", "born", "run.prm")
    run = subprocess.run([program, prm, "--dx", "born.dx", "--mrc", "born.mrc"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    phi = dg.read_phimap(tmp_path / "born.phi")
    dx = dg.read_dx(tmp_path / "born.dx")
    assert phi.shape == dx.shape == (81, 81, 81)
    assert phi.scale == pytest.approx(dx.scale, rel=1e-6)
    np.testing.assert_allclose(phi.center, dx.center, atol=1e-5)
    np.testing.assert_allclose(phi.values, dx.values, rtol=1e-5, atol=1e-5)
    # The MRC map holds the phimap's reals on the same grid.
    mrc = dg.read_mrc(tmp_path / "born.mrc")
    np.testing.assert_array_equal(mrc.values, phi.values)
    assert mrc.scale == pytest.approx(phi.scale, rel=1e-6)
    np.testing.assert_allclose(mrc.center, phi.center, atol=1e-5)
    # The ion sits at the grid centre: the potential peaks there and is symmetric.
    c = 40
    assert np.argmax(phi.values) == np.ravel_multi_index((c, c, c), phi.shape, order="F")
    np.testing.assert_allclose(phi.values[c + 5, c, c], phi.values[c, c - 5, c], rtol=1e-4)


def test_mrc_round_trip_and_header(tmp_path):
    m = _map((5, 7, 9))
    path = tmp_path / "a.mrc"
    dg.write_mrc(path, m)
    data = path.read_bytes()
    assert len(data) == 1024 + 4 * 5 * 7 * 9
    assert struct.unpack_from("<4i", data, 0) == (5, 7, 9, 2)
    assert struct.unpack_from("<3i", data, 64) == (1, 2, 3) and data[208:212] == b"MAP "
    # the starts: the first point (0.2, -3.2, 1.9) A in whole spacings of 0.4 A
    starts = struct.unpack_from("<3i", data, 16)
    assert starts[1] == -8 and starts[2] == 5 and starts[0] in (0, 1)
    np.testing.assert_allclose(struct.unpack_from("<3f", data, 196), m.origin, rtol=1e-6)
    assert struct.unpack_from("<f", data, 40)[0] == pytest.approx(5 / 2.5)
    back = dg.read_mrc(path)
    assert back.shape == m.shape and back.title == "t"
    np.testing.assert_array_equal(back.values, m.values.astype(np.float32))
    assert back.scale == pytest.approx(2.5) and back.center == pytest.approx(m.center, abs=1e-5)
    bad = bytearray(data)
    struct.pack_into("<i", bad, 12, 0)
    (tmp_path / "mode0.mrc").write_bytes(bytes(bad))
    with pytest.raises(ValueError, match="mode 0"):
        dg.read_mrc(tmp_path / "mode0.mrc")
    (tmp_path / "cut.mrc").write_bytes(data[:-4])
    with pytest.raises(ValueError, match="truncated"):
        dg.read_mrc(tmp_path / "cut.mrc")


def test_mrc_with_mrcfile(tmp_path):
    """Another implementation of the format (Debian's python3-mrcfile) reads our file and
    writes one, axes permuted and big-endian, that our reader places the same way."""
    mrcfile = pytest.importorskip("mrcfile")
    m = _map((5, 7, 9))
    dg.write_mrc(tmp_path / "a.mrc", m)
    with open(os.devnull, "w") as quiet:
        assert mrcfile.validate(str(tmp_path / "a.mrc"), print_file=quiet)
    with mrcfile.open(tmp_path / "a.mrc") as f:
        # mrcfile's array is [section, row, column] = [z, y, x].
        np.testing.assert_array_equal(f.data.transpose(2, 1, 0), m.values.astype(np.float32))
        np.testing.assert_allclose(f.voxel_size.tolist(), [0.4] * 3, rtol=1e-6)
        np.testing.assert_allclose([f.header.origin.x, f.header.origin.y, f.header.origin.z],
                                   m.origin, rtol=1e-6)
    # Columns along z, rows along x, sections along y: the file's array is [y, x, z].
    with mrcfile.new(tmp_path / "p.mrc") as f:
        f.set_data(np.ascontiguousarray(m.values.astype(">f4").transpose(1, 0, 2)))
        f.header.mapc, f.header.mapr, f.header.maps = 3, 1, 2
        f.header.mx, f.header.my, f.header.mz = 5, 7, 9
        f.header.cella = (2.0, 2.8, 3.6)
        f.header.origin = tuple(m.origin)
    back = dg.read_mrc(tmp_path / "p.mrc")
    assert back.shape == m.shape
    np.testing.assert_array_equal(back.values, m.values.astype(np.float32))
    assert back.center == pytest.approx(m.center, abs=1e-5)

