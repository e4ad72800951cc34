/* host_io: the induced surface charges of the reaction field (DelPhi's out(scrg)): DelPhi's
 * layouts (the default, and its PDB form) or this program's table.
 *
 * DelPhi's layout (SCRG_DELPHI): one line per dielectric-boundary point, "%5d%8.3f%8.3f%8.3f%8.3f"
 * (Fortran's i5,4f8.3): the point's number, x y z (A), the induced charge (e).
 * DelPhi's PDB form (SCRG_DELPHI_PDB, out(scrg,format=pdb)): the lines "DELPHI FORMAT PDB" and
 * "FORMAT NUMBER=2", a line naming the columns, then one ATOM line per point: the point's number
 * in columns 7-11, the number of the atom whose surface it is on in 12-16, "SC" in 18-19, that
 * atom's residue number in 23-26, x y z in 31-54 (f8.3), the charge in 56-67 and its part of the
 * corrected reaction-field energy (kT) in 69-80 (Fortran's G12.5).
 *
 * The table (SCRG_TABLE, format=table), one line per dielectric-boundary point:
 *   index i j k x y z charge energy
 * index from 1; i j k the boundary point's grid indices (1-based, x fastest, DelPhi's
 * convention); x y z the charge's position on the surface (A); charge the induced charge (e);
 * energy its part of the corrected reaction-field energy, (epkt/2) charge sum_i q_i/|s - r_i|
 * (kT).  Comment lines start with '#'; the last one gives the count, the total charge and the
 * sum of the energies (the corrected reaction-field energy). */
#ifndef HOST_IO_SURFACE_CHARGES_H
#define HOST_IO_SURFACE_CHARGES_H

#include <stddef.h>

#include "io_common.h"
#include "molecule.h"

typedef struct surface_charges {
    size_t count;
    int grid_n;            /* points per side of the (cubic) grid */
    const long *point;     /* [count] 0-based full grid indices, x fastest */
    const double *site;    /* [3 * count] A */
    const double *charge;  /* [count] e */
    const double *energy;  /* [count] kT */
    const int *owner;      /* [count] 0-based atom whose surface it is on, -1 none (DelPhi's PDB
                              form; may be NULL otherwise) */
    const molecule *atoms; /* the molecule (the owners' residue numbers), for the PDB form */
} surface_charges;

/** out(scrg)'s layouts. */
enum scrg_format { SCRG_DELPHI = 0, SCRG_DELPHI_PDB = 1, SCRG_TABLE = 2 };

/** Write the charges (atomically) in this program's table.  title may be NULL. */
int surface_charges_write(const char *path, const surface_charges *c, const char *title,
                          io_error *err);

/** Write the charges (atomically) in DelPhi's layout or its PDB form (format SCRG_DELPHI or
 *  SCRG_DELPHI_PDB). */
int surface_charges_write_delphi(const char *path, const surface_charges *c, int format,
                                 io_error *err);

/** Fortran's G12.5 edit of v into out (12 characters and a NUL): 5 significant digits in fixed
 *  form, 4 blanks after, for 0.1 <= |v| < 1e5 (and 0), else the E12.5 form "-0.12345E-02". */
void io_fortran_g12_5(double v, char out[13]);

#endif /* HOST_IO_SURFACE_CHARGES_H */
