#!/usr/bin/env python3
"""Inputs of the end-to-end benchmark (scripts/bench_e2e.sh): PQR files built from the bundled
proteins (regression/data) -- a lattice of copies, the first N atoms, or several models
(frames) with small deterministic displacements.

  bench_inputs.py lattice SRC.pqr NX NY NZ OUT.pqr     copies on a grid, 4 A apart
  bench_inputs.py first SRC.pqr N OUT.pqr              the first N atoms
  bench_inputs.py frames SRC.pqr MODELS OUT.pqr        MODEL/ENDMDL blocks, atoms moved <= 0.2 A
"""
import math
import sys


def read_atoms(path):
    atoms = []
    with open(path) as f:
        for line in f:
            if not line.startswith(("ATOM", "HETATM")):
                continue
            fields = line.split()
            x, y, z, q, r = (float(v) for v in fields[-5:])
            atoms.append((fields[2], fields[3], x, y, z, q, r))
    return atoms


def write_atoms(out, atoms, serial=1):
    for name, res, x, y, z, q, r in atoms:
        out.write("ATOM %6d %-4s %-4s %5d %10.3f %10.3f %10.3f %8.4f %7.4f\n"
                  % (serial, name, res, 1 + (serial - 1) // 10, x, y, z, q, r))
        serial += 1
    return serial


def lattice(src, nx, ny, nz, dst):
    atoms = read_atoms(src)
    lo = [min(a[2 + k] - a[6] for a in atoms) for k in range(3)]
    hi = [max(a[2 + k] + a[6] for a in atoms) for k in range(3)]
    pitch = [hi[k] - lo[k] + 4.0 for k in range(3)]
    serial = 1
    with open(dst, "w") as out:
        for i in range(nx):
            for j in range(ny):
                for k in range(nz):
                    shift = (i * pitch[0], j * pitch[1], k * pitch[2])
                    moved = [(a[0], a[1], a[2] + shift[0], a[3] + shift[1], a[4] + shift[2],
                              a[5], a[6]) for a in atoms]
                    serial = write_atoms(out, moved, serial)
    return serial - 1


def first(src, n, dst):
    atoms = read_atoms(src)[:n]
    with open(dst, "w") as out:
        write_atoms(out, atoms)
    return len(atoms)


def frames(src, models, dst):
    atoms = read_atoms(src)
    with open(dst, "w") as out:
        for m in range(models):
            out.write("MODEL %8d\n" % (m + 1))
            moved = [(a[0], a[1], a[2] + 0.2 * math.sin(1.7 * i + m),
                      a[3] + 0.2 * math.cos(0.9 * i + 2 * m), a[4] + 0.2 * math.sin(0.4 * i - m),
                      a[5], a[6]) for i, a in enumerate(atoms)]
            write_atoms(out, moved)
            out.write("ENDMDL\n")
    return len(atoms)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    kind, args = argv[1], argv[2:]
    if kind == "lattice" and len(args) == 5:
        n = lattice(args[0], int(args[1]), int(args[2]), int(args[3]), args[4])
    elif kind == "first" and len(args) == 3:
        n = first(args[0], int(args[1]), args[2])
    elif kind == "frames" and len(args) == 3:
        n = frames(args[0], int(args[1]), args[2])
    else:
        sys.exit(__doc__)
    print(n)


if __name__ == "__main__":
    main(sys.argv)
