/* Atoms as the host program reads them (PQR, PDB + siz/crg, DelPhi PDB formats).
 * Contract between the readers (io_*.c) and the physics (grid, surface, charges, energies).
 * Fields may be added; none renamed or removed. */
#ifndef HOST_MOLECULE_H
#define HOST_MOLECULE_H

#include <stddef.h>

typedef struct atom {
    double x, y, z; /* Angstrom */
    double charge;  /* e */
    double radius;  /* Angstrom (0 allowed: a point charge with no volume) */
    char record[7]; /* "ATOM" or "HETATM" */
    int serial;
    char name[6];    /* atom name, trimmed */
    char name_at_13; /* 1: the name started in column 13 of a fixed-column record (a two-letter
                        element such as ZN, or four characters); 0: column 14, or not known */
    char residue[5]; /* residue name, trimmed */
    char chain;      /* ' ' if none */
    int residue_number;
    char insertion;  /* insertion code, ' ' if none */
    int source_line; /* line number in the file it came from (1-based) */
} atom;

typedef struct molecule {
    atom *atoms;
    size_t count;
    char source[1024];  /* file the atoms came from */
    int positions_only; /* a site list whose file gives no charges or radii (plain PDB lines) */
} molecule;

void molecule_free(molecule *mol);

#endif /* HOST_MOLECULE_H */
