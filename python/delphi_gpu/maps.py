"""DelPhi phimap, OpenDX and MRC2014/CCP4 potential maps, in pure NumPy.

A map is a ``GridMap``: ``values`` an (nx, ny, nz) array indexed [x, y, z] (Fortran-ordered,
x fastest in memory, like DelPhi's phimap), ``scale`` grid points per Angstrom and ``center``
the grid's middle point in Angstrom.  Point (i, j, k), 0-based, lies at
``center + (index - (n - 1) / 2) / scale`` on each axis.

Formats, as the delphi-gpu program writes them (host/io/phimap_io.c, host/io/dx_io.c,
host/io/mrc_io.c):

* phimap: a Fortran unformatted sequential file of five records, each framed by 4-byte length
  markers: a 20-character label; a 10-character kind ("potential") and a 60-character title;
  igrid^3 real*4 values, x fastest; a 16-character label; real*4 scale, real*4 centre x, y, z
  and integer*4 igrid.  Written little-endian; read in either byte order, with real*8 accepted
  in records 3 and 5.
* OpenDX (the layout APBS writes): gridpositions counts / origin / three deltas,
  gridconnections, then the values 3 per line with z fastest.  Reading needs an axis-aligned
  grid with one spacing on all three axes.
* MRC2014 / CCP4 (what Chimera, ChimeraX, PyMOL and VMD read): a 1024-byte header of 4-byte
  words, then real*4 values with columns fastest.  Written little-endian, columns along x, one
  volume (ISPG 1), the first point's position in ORIGIN (words 50-52) and, rounded to whole
  spacings, in the starts (words 5-7, for readers that ignore ORIGIN).  Read in
  either byte order, with an extended header and any axis order; the position from ORIGIN, or
  from the starts when ORIGIN is zero; mode 2, right angles and one spacing on all axes needed.
"""
import math
import re
import struct
from dataclasses import dataclass

import numpy as np


@dataclass
class GridMap:
    values: np.ndarray
    scale: float
    center: tuple
    title: str = ""
    kind: str = "potential"

    def __post_init__(self):
        self.values = np.asfortranarray(self.values)
        if self.values.ndim != 3:
            raise ValueError(f"values: expected a 3-D array, got shape {self.values.shape}")
        self.center = tuple(float(c) for c in self.center)
        self.scale = float(self.scale)
        if len(self.center) != 3 or not all(math.isfinite(c) for c in self.center):
            raise ValueError(f"center {self.center}: expected three finite numbers")
        if not (math.isfinite(self.scale) and self.scale > 0.0):
            raise ValueError(f"scale {self.scale}: expected a finite number > 0")

    @property
    def shape(self):
        return self.values.shape

    @property
    def origin(self):
        """Position (Angstrom) of point (0, 0, 0)."""
        return tuple(c - (n - 1) / 2.0 / self.scale for c, n in zip(self.center, self.shape))

    def coordinates(self, axis):
        return self.origin[axis] + np.arange(self.shape[axis]) / self.scale


def _read_map(path, *fields):
    """A GridMap read from path; its checks name the file."""
    try:
        return GridMap(*fields)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def _markers(data, offset, byte_order):
    (n,) = struct.unpack_from(byte_order + "I", data, offset)
    return n


def _read_records(data, path):
    # The first marker is 20 (the label) in the file's byte order.
    for order in ("<", ">"):
        if len(data) >= 4 and struct.unpack_from(order + "I", data, 0)[0] == 20:
            break
    else:
        raise ValueError(f"{path}: not a DelPhi phimap (no Fortran record marker at the start)")
    records, pos = [], 0
    for number in range(1, 6):
        if pos + 4 > len(data):
            raise ValueError(f"{path}: truncated phimap: record {number} is missing")
        n = _markers(data, pos, order)
        end = pos + 4 + n
        if end + 4 > len(data):
            raise ValueError(f"{path}: truncated phimap: record {number} ends early")
        if _markers(data, end, order) != n:
            raise ValueError(f"{path}: corrupt phimap: record {number} markers disagree")
        records.append(data[pos + 4:end])
        pos = end + 4
    return records, order


def read_phimap(path):
    """Read a DelPhi binary phimap into a GridMap."""
    with open(path, "rb") as fh:
        data = fh.read()
    rec, order = _read_records(data, path)
    if len(rec[4]) == 20:
        scale, cx, cy, cz = struct.unpack_from(order + "4f", rec[4], 0)
        (igrid,) = struct.unpack_from(order + "i", rec[4], 16)
    elif len(rec[4]) == 36:
        scale, cx, cy, cz = struct.unpack_from(order + "4d", rec[4], 0)
        (igrid,) = struct.unpack_from(order + "i", rec[4], 32)
    else:
        raise ValueError(f"{path}: record 5 has {len(rec[4])} bytes (expected 20 or 36)")
    if igrid < 1 or not scale > 0:
        raise ValueError(f"{path}: bad grid in record 5 (igrid {igrid}, scale {scale})")
    points = igrid ** 3
    if len(rec[2]) == 4 * points:
        dtype = np.dtype(order + "f4")
    elif len(rec[2]) == 8 * points:
        dtype = np.dtype(order + "f8")
    else:
        raise ValueError(f"{path}: record 3 has {len(rec[2])} bytes, which is not "
                         f"igrid^3 = {points} reals")
    values = np.frombuffer(rec[2], dtype=dtype).astype(np.float64)
    kind = rec[1][:10].decode("ascii", "replace").strip()
    title = rec[1][10:].decode("ascii", "replace").strip()
    return _read_map(path, values.reshape((igrid,) * 3, order="F"), scale, (cx, cy, cz), title,
                     kind)


def _record(payload):
    marker = struct.pack("<I", len(payload))
    return marker + payload + marker


def _padded(text, width):
    raw = text.encode("ascii", "replace")[:width]
    return raw + b" " * (width - len(raw))


def write_phimap(path, grid_map):
    """Write a cubic GridMap as a DelPhi binary phimap (little-endian real*4)."""
    m = grid_map
    n = m.shape[0]
    if m.shape != (n, n, n):
        raise ValueError(f"the phimap format holds only cubic grids; this one is {m.shape}")
    if 4 * n ** 3 > 0x7FFFFFFF:
        raise ValueError(f"a {n}^3 grid is too large for one phimap record")
    values = np.asarray(m.values, dtype="<f4").ravel(order="F")
    with open(path, "wb") as fh:
        fh.write(_record(_padded("delphi-gpu potential", 20)))
        fh.write(_record(_padded(m.kind or "potential", 10) + _padded(m.title, 60)))
        fh.write(_record(values.tobytes()))
        fh.write(_record(_padded("delphi-gpu end", 16)))
        fh.write(_record(struct.pack("<4fi", m.scale, *m.center, n)))


def write_dx(path, grid_map):
    """Write a GridMap as an OpenDX scalar field (z fastest, 3 values per line)."""
    m = grid_map
    nx, ny, nz = m.shape
    h = 1.0 / m.scale
    ox, oy, oz = m.origin
    # z fastest: C order of the [x, y, z] array.
    flat = np.ascontiguousarray(m.values).ravel(order="C")
    with open(path, "w") as fh:
        fh.write(f"# {m.title or 'electrostatic potential'}\n")
        fh.write("# Written by delphi-gpu (Python). Values in kT/e; coordinates in Angstrom.\n")
        fh.write(f"object 1 class gridpositions counts {nx} {ny} {nz}\n")
        fh.write(f"origin {ox:.10e} {oy:.10e} {oz:.10e}\n")
        fh.write(f"delta {h:.10e} 0.000000e+00 0.000000e+00\n")
        fh.write(f"delta 0.000000e+00 {h:.10e} 0.000000e+00\n")
        fh.write(f"delta 0.000000e+00 0.000000e+00 {h:.10e}\n")
        fh.write(f"object 2 class gridconnections counts {nx} {ny} {nz}\n")
        fh.write(f"object 3 class array type double rank 0 items {flat.size} data follows\n")
        full = flat.size - flat.size % 3
        if full:
            np.savetxt(fh, flat[:full].reshape(-1, 3), fmt="%.6e")
        if flat.size % 3:
            fh.write(" ".join(f"{v:.6e}" for v in flat[full:]) + "\n")
        fh.write('attribute "dep" string "positions"\n')
        fh.write('object "regular positions regular connections" class field\n')
        fh.write('component "positions" value 1\n')
        fh.write('component "connections" value 2\n')
        fh.write('component "data" value 3\n')


_NUMBER = r"[-+0-9.eEdD]+"


def read_dx(path):
    """Read an OpenDX scalar field on an axis-aligned grid with one spacing into a GridMap."""
    counts = origin = None
    deltas = []
    items = None
    title = ""
    with open(path) as fh:
        lineno = 0
        for line in fh:
            lineno += 1
            s = line.strip()
            if not s:
                continue
            if s.startswith("#"):
                if not title:
                    title = s[1:].strip()
                continue
            if s.startswith("origin"):
                origin = [float(v) for v in s.split()[1:4]]
            elif s.startswith("delta"):
                deltas.append([float(v) for v in s.split()[1:4]])
            elif s.startswith("object"):
                m = re.search(r"counts\s+(\d+)\s+(\d+)\s+(\d+)", s)
                if "gridpositions" in s:
                    if not m:
                        raise ValueError(f"{path}:{lineno}: gridpositions without counts")
                    counts = tuple(int(v) for v in m.groups())
                if "data follows" in s:
                    m = re.search(r"items\s+(\d+)", s)
                    if not m:
                        raise ValueError(f"{path}:{lineno}: data array without items")
                    items = int(m.group(1))
                    break
        else:
            raise ValueError(f"{path}: no 'data follows' line")
        if counts is None or origin is None or len(deltas) != 3:
            raise ValueError(f"{path}: header needs counts, origin and three deltas")
        h = [deltas[k][k] for k in range(3)]
        off = [deltas[i][j] for i in range(3) for j in range(3) if i != j]
        if any(abs(v) > 1e-9 * max(abs(x) for x in h) for v in off):
            raise ValueError(f"{path}: the grid is not axis-aligned")
        if max(h) - min(h) > 1e-6 * max(h) or min(h) <= 0:
            raise ValueError(f"{path}: spacings {h} differ (one spacing on all axes needed)")
        total = counts[0] * counts[1] * counts[2]
        if items != total:
            raise ValueError(f"{path}: {items} items for a {counts} grid")
        values = []
        for line in fh:
            if len(values) >= total:
                break
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            if s[0].isalpha():
                break
            values.extend(float(v) for v in s.split())
    if len(values) < total:
        raise ValueError(f"{path}: {len(values)} values for {total} grid points")
    data = np.array(values[:total], dtype=np.float64).reshape(counts, order="C")
    scale = 1.0 / h[0]
    center = tuple(o + (n - 1) / 2.0 * h[0] for o, n in zip(origin, counts))
    return _read_map(path, data, scale, center, title)


_MRC_STAMP = "delphi-gpu: electrostatic potential in kT/e"


def write_mrc(path, grid_map):
    """Write a GridMap as an MRC2014 / CCP4 map (little-endian real*4, x fastest)."""
    m = grid_map
    n = m.shape
    h = 1.0 / m.scale
    values = np.asarray(m.values, dtype=np.float64)
    header = bytearray(1024)
    # The starts: the first point in whole spacings (for readers that ignore ORIGIN).
    starts = [int(round(o * m.scale)) for o in m.origin]
    struct.pack_into("<3ii3i3i", header, 0, *n, 2, *starts, *n)
    struct.pack_into("<3f3f3i", header, 40, *(k * h for k in n), 90.0, 90.0, 90.0, 1, 2, 3)
    struct.pack_into("<3fii", header, 76, values.min(), values.max(), values.mean(), 1, 0)
    struct.pack_into("<i", header, 108, 20140)
    struct.pack_into("<3f", header, 196, *m.origin)
    header[208:212] = b"MAP "
    header[212:216] = b"\x44\x44\x00\x00"
    labels = [_MRC_STAMP] + ([m.title] if m.title else [])
    struct.pack_into("<fi", header, 216, values.std(), len(labels))
    for i, text in enumerate(labels):
        header[224 + 80 * i:224 + 80 * (i + 1)] = _padded(text, 80)
    with open(path, "wb") as fh:
        fh.write(bytes(header))
        fh.write(np.asarray(values, dtype="<f4").ravel(order="F").tobytes())


def read_mrc(path):
    """Read an MRC2014 / CCP4 map on an orthogonal grid with one spacing into a GridMap."""
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 1024:
        raise ValueError(f"{path}: truncated MRC/CCP4 map: the header needs 1024 bytes")
    if data[208:212] != b"MAP ":
        raise ValueError(f"{path}: not an MRC/CCP4 map (no 'MAP ' stamp in header word 53)")
    if data[212] in (0x44, 0x11):
        order = "<" if data[212] == 0x44 else ">"
    else:
        order = "<" if struct.unpack_from("<i", data, 12)[0] <= 16 else ">"
    counts = struct.unpack_from(order + "3i", data, 0)
    (mode,) = struct.unpack_from(order + "i", data, 12)
    starts = struct.unpack_from(order + "3i", data, 16)
    intervals = struct.unpack_from(order + "3i", data, 28)
    cell = struct.unpack_from(order + "3f", data, 40)
    angles = struct.unpack_from(order + "3f", data, 52)
    axes = [a - 1 for a in struct.unpack_from(order + "3i", data, 64)]
    (extended,) = struct.unpack_from(order + "i", data, 92)
    origin = struct.unpack_from(order + "3f", data, 196)
    (labels,) = struct.unpack_from(order + "i", data, 220)
    if mode != 2:
        raise ValueError(f"{path}: mode {mode} is not supported (only mode 2, 32-bit reals)")
    if sorted(axes) != [0, 1, 2]:
        raise ValueError(f"{path}: MAPC/MAPR/MAPS {[a + 1 for a in axes]} are not a "
                         "permutation of 1, 2, 3")
    if any(abs(a - 90.0) >= 1e-3 for a in angles):
        raise ValueError(f"{path}: cell angles {angles}: only orthogonal grids are supported")
    if min(counts) < 1 or min(intervals) < 1 or extended < 0:
        raise ValueError(f"{path}: bad header (counts {counts}, intervals {intervals}, "
                         f"extended header {extended})")
    h = [c / m for c, m in zip(cell, intervals)]
    if min(h) <= 0 or max(h) - min(h) > 1e-5 * h[0]:
        raise ValueError(f"{path}: voxel sizes {h} differ (one spacing on all axes is needed)")
    total = counts[0] * counts[1] * counts[2]
    start = 1024 + extended
    if len(data) < start + 4 * total:
        raise ValueError(f"{path}: truncated MRC/CCP4 map: {start + 4 * total} bytes needed, "
                         f"{len(data)} present")
    raw = np.frombuffer(data, dtype=order + "f4", count=total, offset=start).astype(np.float64)
    if not np.all(np.isfinite(raw)):
        raise ValueError(f"{path}: the map holds values that are not finite")
    # File order: columns fastest, i.e. an array [section, row, column] in C order.
    block = raw.reshape(counts[2], counts[1], counts[0])
    # Axis k of block is the file's axis 2 - k (section, row, column); put x, y, z first.
    file_axis_of = {axes[a]: 2 - a for a in range(3)}
    values = np.transpose(block, [file_axis_of[0], file_axis_of[1], file_axis_of[2]])
    if any(origin):
        first = list(origin)
    else:
        first = [0.0] * 3
        for a in range(3):
            first[axes[a]] = starts[a] * h[0]
    center = tuple(f + (n - 1) / 2.0 * h[0] for f, n in zip(first, values.shape))
    label = [data[224 + 80 * i:304 + 80 * i].decode("ascii", "replace").strip()
             for i in range(min(max(labels, 0), 10))]
    if label and label[0] == _MRC_STAMP:
        title = label[1] if len(label) > 1 else ""
    else:
        title = label[0] if label else ""
    return _read_map(path, values, 1.0 / h[0], center, title)
