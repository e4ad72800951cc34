/* host_io: site potentials (the frc output): DelPhi's layout (the default) or this program's
 * full-precision table.
 *
 * DelPhi's layout (sites_write_delphi): 12 header lines (the last names the columns), then one
 * line per site with the columns asked, in DelPhi's order: atom descriptor (20 characters:
 * atom name in 1-4, residue 6-8, chain 10, residue number 12-15), coordinates, charge,
 * potential, salt, reaction, Coulombic and atomic potentials, Debye fraction, field,
 * reaction-field, Coulombic and total forces, each value 10 characters wide with 4 decimals
 * (Fortran's F10.4; a value too wide for it is written as " %9.2e" where DelPhi would write
 * asterisks).  Columns that do not fit DelPhi's 80-character line are left out by DelPhi's rule
 * (frc_delphi_columns).  Then the energy lines: "total energy = ..." (sum of charge x potential
 * / 2 over the sites, when the potential column is written) and, with the reaction column,
 * "corrected reaction field energy= ..." (format rc: that and "total coulombic energy = ...").
 *
 * The table (sites_write, format=table), one line per site:
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

/** out(frc)'s layouts: DelPhi's (its formats none, rc and r differ in their energy lines) and
 *  this program's table. */
enum frc_format { FRC_DELPHI = 0, FRC_DELPHI_RC = 1, FRC_DELPHI_R = 2, FRC_TABLE = 3 };

/** DelPhi's columns in its order; a set of them is a mask of FRC_BIT(column). */
enum frc_column {
    FRC_COL_ATOM,
    FRC_COL_COORDINATES,
    FRC_COL_CHARGE,
    FRC_COL_POTENTIAL,
    FRC_COL_SALT,
    FRC_COL_REACTION,
    FRC_COL_COULOMBIC,
    FRC_COL_ATOMIC,
    FRC_COL_DEBYE,
    FRC_COL_FIELD,
    FRC_COL_REACTION_FORCE,
    FRC_COL_COULOMBIC_FORCE,
    FRC_COL_TOTAL_FORCE,
    FRC_COL_COUNT
};
#define FRC_BIT(column) (1u << (column))

/** The asked columns that DelPhi's layout writes: from the reaction column on, a column is
 *  left out when the header line is already past DelPhi's limit for it (80 characters for the
 *  potentials and the Debye fraction, 60 for the three-column groups). */
unsigned frc_delphi_columns(unsigned asked);

/** The names of a set of columns ("reaction, field"), for messages. */
void frc_column_names(unsigned columns, char *buf, size_t size);

/** The run as DelPhi's header states it. */
typedef struct frc_run_info {
    int grid;                 /* points per side */
    double perfil;            /* % */
    double exdi, indi;        /* outer and inner dielectric */
    double ionic_strength;    /* M */
    double ionrad, prbrad;    /* A */
    int linear_iterations;    /* done */
    int nonlinear_iterations; /* nonit */
    int bndcon;
    double atompotdist; /* A: site(atpo)'s averaging distance, in its closing line */
    const char *title;  /* may be NULL */
} frc_run_info;

/** DelPhi's layout (above): `columns` as frc_delphi_columns gives them; the values of every
 *  column past the potential must be in `values`.  format: FRC_DELPHI, _RC or _R.  Written
 *  atomically.  A value that is not finite (a site outside the grid) is written as 0.0000, as
 *  stock DelPhi writes it; *zeroed (may be NULL) gets how many were. */
int sites_write_delphi(const char *path, const molecule *sites, const site_values *values,
                       unsigned columns, int format, const frc_run_info *info, size_t *zeroed,
                       io_error *err);

#endif /* HOST_IO_SITES_H */
