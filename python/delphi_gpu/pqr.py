"""PQR files (PDB2PQR's format): coordinates, charges and radii, one model or several."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Atoms:
    """Atoms as the library takes them: positions (N, 3) Angstrom, charges (N,) e, radii (N,)
    Angstrom; ``names`` holds (atom, residue, chain, residue number) per atom."""

    positions: np.ndarray
    charges: np.ndarray
    radii: np.ndarray
    names: list

    def __len__(self):
        return len(self.charges)

    @property
    def chains(self):
        """Each atom's chain identifier ("" where the file gives none), as an array: for
        example ``Calculation.binding(atoms.chains == "B")``."""
        return np.array([n[2] for n in self.names])


def _parse_atom(line, path, lineno):
    # Whitespace-separated after the record name (PDB2PQR writes it that way; a chain column
    # may be absent): the last five fields are x y z charge radius.
    fields = line.split()
    if len(fields) < 10:
        raise ValueError(f"{path}:{lineno}: expected at least 10 fields in a PQR atom line")
    try:
        x, y, z, q, r = (float(v) for v in fields[-5:])
    except ValueError:
        raise ValueError(f"{path}:{lineno}: bad number in the last five fields") from None
    name, residue = fields[2], fields[3]
    chain = fields[4] if len(fields) == 11 else ""
    resnum = fields[-6]
    return (x, y, z), q, r, (name, residue, chain, resnum)


def read_pqr_models(path):
    """All models of a PQR file (MODEL/ENDMDL blocks; a file without them is one model)."""
    models, current, in_model = [], [], False
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            words = line.split(None, 1)
            record = words[0].upper() if words else ""
            if record in ("ATOM", "HETATM"):
                current.append(_parse_atom(line, path, lineno))
            elif record == "MODEL":
                in_model = True
            elif record == "ENDMDL":
                if current or in_model:
                    models.append(current)
                current, in_model = [], False
    if current:
        models.append(current)
    if not models:
        raise ValueError(f"{path}: no ATOM or HETATM lines")
    out = []
    for number, atoms in enumerate(models, 1):
        if len(atoms) != len(models[0]):
            raise ValueError(f"{path}: model {number} has {len(atoms)} atoms, model 1 "
                             f"{len(models[0])}")
        out.append(Atoms(np.array([a[0] for a in atoms], dtype=np.float64),
                         np.array([a[1] for a in atoms], dtype=np.float64),
                         np.array([a[2] for a in atoms], dtype=np.float64),
                         [a[3] for a in atoms]))
    return out


def read_pqr(path):
    """The first (or only) model of a PQR file."""
    return read_pqr_models(path)[0]


def write_pqr_models(path, models):
    """Write models (Atoms with the same names) as a multi-model PQR file."""
    with open(path, "w") as fh:
        for number, atoms in enumerate(models, 1):
            fh.write(f"MODEL {number:8d}\n")
            for k, (xyz, q, r) in enumerate(zip(atoms.positions, atoms.charges, atoms.radii)):
                name, residue, chain, resnum = atoms.names[k]
                fh.write(f"ATOM  {k + 1:5d} {name:<4s} {residue:>3s} {chain or 'A'} "
                         f"{str(resnum):>4s}   {xyz[0]:8.3f} {xyz[1]:8.3f} {xyz[2]:8.3f}"
                         f" {q:7.4f} {r:6.4f}\n")
            fh.write("ENDMDL\n")
        fh.write("END\n")
