/* host_io: the induced surface charges of the reaction field (DelPhi's out(scrg)), in this
 * program's own plain-text layout.
 *
 * One line per dielectric-boundary point:
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

typedef struct surface_charges {
    size_t count;
    int grid_n;           /* points per side of the (cubic) grid */
    const long *point;    /* [count] 0-based full grid indices, x fastest */
    const double *site;   /* [3 * count] A */
    const double *charge; /* [count] e */
    const double *energy; /* [count] kT */
} surface_charges;

/** Write the charges (atomically).  title may be NULL. */
int surface_charges_write(const char *path, const surface_charges *c, const char *title,
                          io_error *err);

#endif /* HOST_IO_SURFACE_CHARGES_H */
