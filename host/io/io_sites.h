/* host_io: site potentials (DelPhi's frc output, in our own plain-text layout).
 *
 * One line per site:  record serial atom residue chain resnum x y z charge potential [Ex Ey Ez]
 *   coordinates in A, charge in e, potential in kT/e, field in kT/(e A); a blank chain is "-".
 * Comment lines start with '#'; the last one gives the number of sites and sum(q*phi)/2 in kT. */
#ifndef HOST_IO_SITES_H
#define HOST_IO_SITES_H

#include "io_common.h"
#include "molecule.h"

/** Write the sites of `sites` with their potentials (one per site) and, if field is not NULL,
 *  the field (3 per site: x, y, z).  title may be NULL.  Written atomically. */
int sites_write(const char *path, const molecule *sites, const double *potential,
                const double *field, const char *title, io_error *err);

#endif /* HOST_IO_SITES_H */
