#!/usr/bin/env python3
"""Compare two DelPhi potential maps (default "DelPhi" format, gfortran unformatted records).

Usage:  compare_phimap.py STOCK.phi OTHER.phi [--tolerance REL]
        compare_phimap.py --self-test

Checks that both maps have the same grid size, scale and centre, then prints the largest and
rms difference of the potentials relative to the largest |phi| of the first map, and phi(1,1,1)
of both (DelPhi's linear solver marks it: 5th decimal set to 8).  Exit status 0 when the grid
agrees and the largest relative difference is <= REL (default 1e-4), 1 otherwise, 2 on bad
input.  Standard library only.
"""
import math
import os
import struct
import sys
import tempfile


def read_records(path):
    """The records of a Fortran sequential unformatted file with 4-byte length markers."""
    with open(path, "rb") as f:
        data = f.read()
    records, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise ValueError(f"{path}: truncated record marker at byte {pos}")
        (length,) = struct.unpack_from("<i", data, pos)
        end = pos + 4 + length
        if length < 0 or end + 4 > len(data):
            raise ValueError(f"{path}: record {len(records) + 1} at byte {pos} is truncated")
        (trailer,) = struct.unpack_from("<i", data, end)
        if trailer != length:
            raise ValueError(f"{path}: record {len(records) + 1} markers disagree")
        records.append(data[pos + 4:end])
        pos = end + 4
    return records


def read_phimap(path):
    """(igrid, scale, centre, potentials) of a DelPhi-format phimap."""
    records = read_records(path)
    if len(records) != 5:
        raise ValueError(f"{path}: {len(records)} records, a DelPhi phimap has 5")
    tail = records[4]
    if len(tail) != 20:
        raise ValueError(f"{path}: last record has {len(tail)} bytes, expected 20")
    scale, cx, cy, cz, igrid = struct.unpack("<ffffi", tail)
    values = records[2]
    if igrid < 1 or len(values) != 4 * igrid ** 3:
        raise ValueError(f"{path}: {len(values)} bytes of potentials for igrid = {igrid}")
    phi = struct.unpack(f"<{igrid ** 3}f", values)
    return igrid, scale, (cx, cy, cz), phi


def compare(first, second, tolerance, out=sys.stdout):
    g1, s1, c1, p1 = read_phimap(first)
    g2, s2, c2, p2 = read_phimap(second)
    if (g1, s1, c1) != (g2, s2, c2):
        print(f"grids differ: igrid {g1} / {g2}, scale {s1} / {s2}, centre {c1} / {c2}", file=out)
        return 1
    largest = max(abs(v) for v in p1) or 1.0
    diffs = [abs(a - b) for a, b in zip(p1[1:], p2[1:])]  # phi(1,1,1) carries the signature
    worst = max(diffs) if diffs else 0.0
    rms = math.sqrt(sum(d * d for d in diffs) / max(1, len(diffs)))
    print(f"igrid {g1}, scale {s1}, centre {c1}", file=out)
    print(f"largest |phi| {largest:.6g} kT/e", file=out)
    print(f"largest difference {worst:.6g} kT/e ({worst / largest:.3g} relative)", file=out)
    print(f"rms difference {rms:.6g} kT/e ({rms / largest:.3g} relative)", file=out)
    print(f"phi(1,1,1): {p1[0]:.6f} / {p2[0]:.6f}", file=out)
    return 0 if worst / largest <= tolerance else 1


def write_phimap(path, igrid, phi, scale=2.0, centre=(1.0, 2.0, 3.0)):
    def record(payload):
        return struct.pack("<i", len(payload)) + payload + struct.pack("<i", len(payload))

    with open(path, "wb") as f:
        f.write(record(b"now starting phimap "))
        f.write(record(b"potential " + b"self-test".ljust(60)))
        f.write(record(struct.pack(f"<{len(phi)}f", *phi)))
        f.write(record(b" end of phimap  "))
        f.write(record(struct.pack("<ffffi", scale, *centre, igrid)))


def self_test():
    igrid = 5
    phi = [math.sin(0.1 * i) for i in range(igrid ** 3)]
    near = [v + 1e-6 for v in phi]
    far = list(phi)
    far[7] += 0.5
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, n) for n in ("a.phi", "b.phi", "c.phi", "d.phi")]
        write_phimap(paths[0], igrid, phi)
        write_phimap(paths[1], igrid, near)
        write_phimap(paths[2], igrid, far)
        write_phimap(paths[3], igrid, phi, scale=3.0)
        sink = open(os.devnull, "w")
        results = [compare(paths[0], paths[1], 1e-4, sink), compare(paths[0], paths[2], 1e-4, sink),
                   compare(paths[0], paths[3], 1e-4, sink)]
        with open(paths[1], "r+b") as f:
            f.truncate(100)
        try:
            read_phimap(paths[1])
            truncated_detected = False
        except ValueError:
            truncated_detected = True
    ok = results == [0, 1, 1] and truncated_detected
    print("compare_phimap self-test:", "passed" if ok else f"FAILED {results} {truncated_detected}")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args, tolerance = argv[1:], 1e-4
    if "--tolerance" in args:
        i = args.index("--tolerance")
        try:
            tolerance = float(args[i + 1])
        except (IndexError, ValueError):
            print("compare_phimap: --tolerance needs a number", file=sys.stderr)
            return 2
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return compare(args[0], args[1], tolerance)
    except (OSError, ValueError) as error:
        print(f"compare_phimap: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
