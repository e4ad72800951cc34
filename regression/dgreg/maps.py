"""Potential maps: reading DelPhi binary phimaps and OpenDX files; comparing two maps."""

import array
import math
import os
import re
import struct
import sys


class MapError(Exception):
    pass


_COUNTS_RE = re.compile(r"gridpositions\s+counts\s+(\d+)\s+(\d+)\s+(\d+)")
_ITEMS_RE = re.compile(r"class\s+array.*items\s+(\d+)\s+data\s+follows")


def read_dx(path):
    """(counts (nx, ny, nz), values as array('d'), significant digits of the text) of an OpenDX
    scalar map.  Values are in the file's order; both maps of a comparison come from the same
    writer, so the order is the same."""
    counts = None
    items = None
    values = array.array("d")
    digits = 17
    with open(path) as f:
        for line in f:
            if items is None:
                m = _COUNTS_RE.search(line)
                if m:
                    counts = tuple(int(g) for g in m.groups())
                m = _ITEMS_RE.search(line)
                if m:
                    items = int(m.group(1))
                continue
            if len(values) >= items:
                break
            fields = line.split()
            if not fields:
                continue
            if fields[0][0].isalpha():
                break
            try:
                values.extend(float(v) for v in fields)
            except ValueError:
                raise MapError("%s: non-numeric data line %r" % (path, line[:60]))
            if len(values) <= len(fields):  # first data line: how many digits were written
                digits = min(_significant_digits(v) for v in fields)
    if counts is None or items is None:
        raise MapError("%s: not an OpenDX scalar map (no counts or data header)" % path)
    if items != counts[0] * counts[1] * counts[2] or len(values) != items:
        raise MapError("%s: %d values for a %dx%dx%d grid" % (path, len(values), *counts))
    return counts, values, digits


def _record(f, path, what):
    head = f.read(4)
    if len(head) != 4:
        raise MapError("%s: phimap ends before its %s record" % (path, what))
    (length,) = struct.unpack("<I", head)
    data = f.read(length)
    tail = f.read(4)
    if len(data) != length or tail != head:
        raise MapError("%s: broken %s record (length %d)" % (path, what, length))
    return data


def read_phimap(path):
    """(counts, values as array('f'), 24-bit mantissa) of a DelPhi binary phimap: five Fortran
    records (start label, kind + title, igrid^3 real*4 values x fastest, end label, scale +
    centre + igrid), each framed by 4-byte little-endian length markers."""
    with open(path, "rb") as f:
        _record(f, path, "start label")
        _record(f, path, "title")
        data = _record(f, path, "potential")
        _record(f, path, "end label")
        tail = _record(f, path, "grid")
    if len(tail) < 20:
        raise MapError("%s: grid record of %d bytes" % (path, len(tail)))
    (igrid,) = struct.unpack("<i", tail[16:20])
    if igrid <= 0 or len(data) != 4 * igrid ** 3:
        raise MapError("%s: %d bytes of potentials for igrid %d" % (path, len(data), igrid))
    values = array.array("f")
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return (igrid,) * 3, values, FLOAT32_DIGITS


# A real*4 value carries 24 significant bits: each value is rounded by at most 2^-24 relative, a
# difference of two by 2^-23 of the larger; compare() takes that as 10^(1 - digits).
FLOAT32_DIGITS = 1.0 - math.log10(2.0 ** -23)


def read_map(path):
    return read_dx(path) if path.endswith(".dx") else read_phimap(path)


def _significant_digits(text):
    mantissa = re.split(r"[eE]", text)[0].lstrip("+-")
    return max(1, len(mantissa.replace(".", "").lstrip("0")) or 1)


def _extremes(a, b):
    """(max|a - b|, max|a|); inf when anything is not finite."""
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        x = numpy.frombuffer(a, dtype=numpy.float32 if a.typecode == "f" else numpy.float64)
        y = numpy.frombuffer(b, dtype=numpy.float32 if b.typecode == "f" else numpy.float64)
        x, y = x.astype(numpy.float64), y.astype(numpy.float64)
        if not (numpy.isfinite(x).all() and numpy.isfinite(y).all()):
            return math.inf, math.inf
        return float(numpy.abs(x - y).max()), float(numpy.abs(x).max())
    max_diff = max_abs = 0.0
    for u, v in zip(a, b):
        if not (math.isfinite(u) and math.isfinite(v)):
            return math.inf, math.inf
        max_diff = max(max_diff, abs(u - v))
        max_abs = max(max_abs, abs(u))
    return max_diff, max_abs


_CACHE = {}


def compare(path_a, path_b):
    """max|a - b|, max|a|, and the relative resolution of the files' number format."""
    key = (path_a, path_b, os.path.getmtime(path_a), os.path.getmtime(path_b))
    if key in _CACHE:
        return _CACHE[key]
    counts_a, a, digits_a = read_map(path_a)
    counts_b, b, digits_b = read_map(path_b)
    if counts_a != counts_b:
        raise MapError("maps of different grids: %r and %r" % (counts_a, counts_b))
    max_diff, max_abs = _extremes(a, b)
    # Rounding to `digits` significant digits moves each value by at most half a unit of its last
    # place, 0.5 * 10^(1 - digits) relative; a difference of two rounded values by twice that,
    # relative to the larger magnitude, hence to max|phi|.
    digits = min(digits_a, digits_b)
    resolution = 10.0 ** (1 - digits)
    result = {"max_abs_diff": max_diff, "max_abs": max_abs, "resolution": resolution,
              "digits": round(digits, 2), "points": len(a)}
    _CACHE[key] = result
    return result
