/* host_io: site potentials (DelPhi's frc output, in our own plain-text layout).
 *
 * One line per site:
 *   record serial atom residue chain resnum x y z charge potential [reaction] [coulombic]
 *   [atomic] [Ex Ey Ez] [salt] [debye] [RFx RFy RFz] [CFx CFy CFz] [TFx TFy TFz]
 * coordinates in A, charge in e, potentials in kT/e, field in kT/(e A); a blank chain is "-".
 * Comment lines start with '#'.  After the sites, one comment line for each of the reaction and
 * Coulombic columns written gives sum(q*value)/2 in kT, and the last one the number of sites and
 * sum(q*phi)/2 in kT. */
#ifndef HOST_IO_SITES_H
#define HOST_IO_SITES_H

#include "io_common.h"
#include "molecule.h"

/** What is written for each site: the potential, and the columns that are not NULL. */
typedef struct site_values {
    const double *potential; /* [count] kT/e, required */
    const double *reaction;  /* [count] kT/e: the reaction field's potential (DelPhi site(r)) */
    const double *coulombic; /* [count] kT/e: the Coulombic potential in eps_in (site(c)) */
    const double *atomic;    /* [count] kT/e: the atomic potential (site(atpo)) */
    const double *field;     /* [3 * count] kT/(e A): x, y, z (site(f)) */
    const double *salt;      /* [count] mol/L: the mobile ions' net charge there (site(i)) */
    const double *debye;     /* [count] 0..1: the ion-accessible fraction there (site(deb)) */
    const double *reaction_force;  /* [3 * count] kT/A: x, y, z (site(rf)) */
    const double *coulombic_force; /* [3 * count] kT/A: x, y, z (site(cf)) */
    const double *total_force;     /* [3 * count] kT/A: reaction + Coulombic (site(tf)) */
} site_values;

/** Write the sites of `sites` with their values.  title may be NULL.  Written atomically. */
int sites_write(const char *path, const molecule *sites, const site_values *values,
                const char *title, io_error *err);

#endif /* HOST_IO_SITES_H */
