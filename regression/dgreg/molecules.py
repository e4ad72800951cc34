"""PQR files: reading, checking the stored molecules, and writing the generated spheres."""

import hashlib
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_DIR = os.path.normpath(os.path.join(HERE, "..", "data"))

# sha256 of the stored molecules (data/README.md): the cached APBS references depend on them.
STORED_SHA256 = {
    "born_ion.pqr": "c29254a61787b69302b389ddc8f03aea1f9ce6ded43f4fdd14dfe0c02bd150ae",
    "1ubq.pqr": "ad0f0ff4863396863b9ffe271cfa24fcd803e10cbdd24cf74b5906674070defd",
    "1hpv.pqr": "aa7e2000e2c40062faef3832f2cc4eb89d1548094eaa9090bbda71764d552d89",
}


class PqrError(Exception):
    pass


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stored_molecule(name):
    """Path of a stored molecule after checking its checksum."""
    path = os.path.join(DATA_DIR, name)
    if not os.path.isfile(path):
        raise PqrError("%s: stored molecule missing" % path)
    digest = file_sha256(path)
    if digest != STORED_SHA256[name]:
        raise PqrError("%s: sha256 %s differs from data/README.md (%s)"
                       % (path, digest, STORED_SHA256[name]))
    return path


def read_pqr(path):
    """Atoms of a whitespace PQR as a list of (x, y, z, q, r); the last five fields of each line."""
    atoms = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.startswith(("ATOM", "HETATM")):
                continue
            fields = line.split()
            if len(fields) < 6:
                raise PqrError("%s:%d: too few fields for x y z q r" % (path, number))
            try:
                x, y, z, q, r = (float(v) for v in fields[-5:])
            except ValueError:
                raise PqrError("%s:%d: x y z q r are not numbers" % (path, number))
            atoms.append((x, y, z, q, r))
    if not atoms:
        raise PqrError("%s: no ATOM/HETATM lines" % path)
    return atoms


def bounding_box(atoms):
    """(low, high) corners of the atoms, radii included (DelPhi's box)."""
    low = [min(a[i] - a[4] for a in atoms) for i in range(3)]
    high = [max(a[i] + a[4] for a in atoms) for i in range(3)]
    return low, high


def box_centre(atoms):
    low, high = bounding_box(atoms)
    return [0.5 * (lo + hi) for lo, hi in zip(low, high)]


def charge_sums(atoms):
    """(net charge, sum of |q|)."""
    return sum(a[3] for a in atoms), sum(abs(a[3]) for a in atoms)


def _pqr_line(serial, name, x, y, z, q, r):
    return "ATOM  %5d %-4s SPH     1     %8.3f %8.3f %8.3f %8.4f %7.4f\n" % (
        serial, name, x, y, z, q, r)


def write_sphere_pqr(path, radius, centre_charge, point_charges, title):
    """A dielectric sphere at the origin: one atom of the sphere's radius carrying centre_charge,
    plus point charges (radius 0) at the given offsets.  Coordinates are written with 3 decimals
    and charges with 4, and the analytic reference reads the file back, so both codes and the
    reference see exactly the same numbers."""
    for q, pos in point_charges:
        if math.sqrt(sum(c * c for c in pos)) >= radius:
            raise PqrError("point charge at %r lies outside the sphere of radius %g"
                           % (pos, radius))
    with open(path, "w") as f:
        f.write("REMARK   %s\n" % title)
        f.write(_pqr_line(1, "S", 0.0, 0.0, 0.0, centre_charge, radius))
        for serial, (q, (x, y, z)) in enumerate(point_charges, 2):
            f.write(_pqr_line(serial, "Q%d" % (serial - 1), x, y, z, q, 0.0))
        f.write("END\n")


def sphere_from_pqr(path):
    """(radius, [(q, (x, y, z))]) of a sphere written by write_sphere_pqr, as stored in the file."""
    atoms = read_pqr(path)
    big = max(atoms, key=lambda a: a[4])
    charges = [(a[3], (a[0] - big[0], a[1] - big[1], a[2] - big[2])) for a in atoms if a[3] != 0.0]
    return big[4], charges
