/* host_io: the charges spread on the grid (DelPhi's out(gcrg)).
 *
 * DelPhi's layout, free-format lines: "DELPHI OUTPUT FILE: GRID CHARGE", "FORMAT NUMBER= 1",
 * "NUMBER OF CHARGES= N", a line "DIELECTRIC IN MEDIUM NUMBER m : eps" for the solvent (medium
 * 0, exdi) and the solute (medium 1, indi), "GRID SCALE= s", then one line per charged grid
 * point: its charge (e, the sum of the atoms' trilinear shares) and its grid indices i j k
 * (1-based, DelPhi's), in the grid's order (x fastest).  The numbers are written to full double
 * precision. */
#ifndef HOST_IO_GRID_CHARGES_H
#define HOST_IO_GRID_CHARGES_H

#include "io_common.h"

typedef struct grid_charges {
    long count;
    const long *index;    /* [count] 0-based full-grid index x + n (y + n z), increasing */
    const double *charge; /* [count] e */
    int n;                /* points per side */
    double scale;         /* points per A */
    double eps_out, eps_in;
} grid_charges;

/** Write them in DelPhi's layout (atomic). */
int grid_charges_write_delphi(const char *path, const grid_charges *g, io_error *err);

#endif /* HOST_IO_GRID_CHARGES_H */
