#!/usr/bin/env python3
"""Generate highly charged test inputs for nonlinear PB (docs/NONLINEAR.md).

  dna_bundle.pqr   a square bundle of parallel B-DNA-like duplexes: per base pair two
                   phosphates (-1 e, radius 1.9 A) on helices of radius 8.9 A (rise 3.38 A,
                   twist 36 deg, minor-groove offset 155 deg) and neutral atoms filling the core
                   (radius 1.9 A at 0, 3.5 and 6 A from the axis).  Default 4 x 4 duplexes of
                   32 bp, 25 A apart: 1024 phosphates, net charge -1024 e.
  protein_charged.pqr  a PQR protein with -1 e added to its outermost oxygen atoms (default
                   40 of them): a protein with a large net negative charge (AChE-like).

Usage: make_charged_inputs.py dna OUT.pqr [--side 4] [--bp 32] [--spacing 25]
       make_charged_inputs.py protein IN.pqr OUT.pqr [--extra 40]
"""
import argparse
import math


def atom_line(serial, name, res, resnum, x, y, z, q, r):
    return "ATOM  %5d %-4s %3s A%4d    %8.3f%8.3f%8.3f %7.4f %6.4f\n" % (
        serial % 100000, name, res, resnum % 10000, x, y, z, q, r)


def dna(args):
    lines, serial = [], 0
    half = (args.side - 1) / 2.0
    for i in range(args.side):
        for j in range(args.side):
            cx, cy = (i - half) * args.spacing, (j - half) * args.spacing
            for k in range(args.bp):
                z = (k - (args.bp - 1) / 2.0) * 3.38
                angle = math.radians(36.0 * k + 13.0 * (i + args.side * j))
                for strand, offset in enumerate((0.0, math.radians(155.0))):
                    a = angle + offset
                    serial += 1
                    lines.append(atom_line(serial, "P", "DNA", k + 1, cx + 8.9 * math.cos(a),
                                           cy + 8.9 * math.sin(a), z, -1.0, 1.9))
                for radius, turn in ((0.0, 0.0), (3.5, 0.8), (6.0, 2.4), (6.0, 4.0)):
                    serial += 1
                    lines.append(atom_line(serial, "C", "DNA", k + 1,
                                           cx + radius * math.cos(angle + turn),
                                           cy + radius * math.sin(angle + turn), z, 0.0, 1.9))
    with open(args.out, "w") as f:
        f.write("REMARK generated B-DNA-like bundle: %d x %d duplexes of %d bp, net %d e\n" % (
            args.side, args.side, args.bp, -2 * args.side * args.side * args.bp))
        f.writelines(lines)


def protein(args):
    atoms = []
    with open(args.input) as f:
        for line in f:
            if line.startswith(("ATOM", "HETATM")):
                parts = line[30:].split()
                atoms.append([line, [float(v) for v in parts[:3]], float(parts[3]),
                              float(parts[4])])
    centre = [sum(a[1][i] for a in atoms) / len(atoms) for i in range(3)]
    oxygens = [a for a in atoms if a[0][12:16].strip().startswith("O")]
    oxygens.sort(key=lambda a: -sum((a[1][i] - centre[i]) ** 2 for i in range(3)))
    for a in oxygens[:args.extra]:
        a[2] -= 1.0
    net = sum(a[2] for a in atoms)
    with open(args.output, "w") as f:
        f.write("REMARK %s with -1 e on its %d outermost oxygens: net %.2f e\n" % (
            args.input, args.extra, net))
        for line, xyz, q, r in atoms:
            f.write(line[:30] + "%8.3f%8.3f%8.3f %7.4f %6.4f\n" % (xyz[0], xyz[1], xyz[2], q, r))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="kind", required=True)
    d = sub.add_parser("dna")
    d.add_argument("out")
    d.add_argument("--side", type=int, default=4)
    d.add_argument("--bp", type=int, default=32)
    d.add_argument("--spacing", type=float, default=25.0)
    p = sub.add_parser("protein")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--extra", type=int, default=40)
    args = parser.parse_args()
    dna(args) if args.kind == "dna" else protein(args)


if __name__ == "__main__":
    main()
