/* Atoms as the calculation layer holds them: a copy of dg_atoms as an array of structures
 * (position, charge, radius).  bad_atom of the calculation names an atom by its 0-based index
 * in this array when an input check fails. */
#ifndef DG_CALC_ATOMS_H
#define DG_CALC_ATOMS_H

#include <stddef.h>

typedef struct calc_atom {
    double x, y, z; /* Angstrom */
    double charge;  /* e */
    double radius;  /* Angstrom (0 allowed: a point charge with no volume) */
} calc_atom;

typedef struct calc_molecule {
    calc_atom *atoms;
    size_t count;
} calc_molecule;

/* The charged atoms (charge != 0) in atom order: positions (3 per atom), charges and, when
 * index is not NULL, each one's index in mol (malloc'ed arrays).  Returns their number, or -1
 * when out of memory (nothing is then allocated). */
long calc_charged_atoms(const calc_molecule *mol, double **xyz, double **q, long **index);

#endif /* DG_CALC_ATOMS_H */
