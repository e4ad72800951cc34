/* Atomic charges spread onto the grid with trilinear (cloud-in-cell) weights, as DelPhi's
 * setcrg: each charge is shared among the 8 grid points of the cell that holds it. */
#ifndef HOST_CHARGES_H
#define HOST_CHARGES_H

#include <stddef.h>

#include "grid.h"
#include "calc_atoms.h"

typedef struct charge_list {
    long *index;   /* [count] 0-based full-grid index x + n*(y + n*z) (repeats allowed) */
    double *value; /* [count] e */
    long count;
    int charged_atoms;     /* atoms with a non-zero charge */
    int atoms_outside;     /* charged atoms (partly) outside the interior, dropped (focusing) */
    double charge_outside; /* e carried by the dropped shares */
    double net_charge;     /* e, on the grid */
    long failed_atom;      /* 0-based atom a refusal names; -1 = none */
} charge_list;

/* Spread every non-zero atomic charge.  A share that would land on a face point (or outside
 * the grid) is refused with a message naming the atom and its file line, unless
 * allow_outside (focusing: the charges outside the box act through the boundary values), in
 * which case such shares are dropped and counted.  Returns 0 or -1. */
int charges_spread(const calc_molecule *mol, const grid_spec *g, int allow_outside,
                   charge_list *out, char *msg, size_t msg_size);

/* Before the geometry: the first charged atom (in atom order) whose shares would not all land
 * on interior points, with charges_spread's message for it; -1 when every charge fits.  On
 * the threads. */
long charges_check_interior(const calc_molecule *mol, const grid_spec *g, char *msg,
                            size_t msg_size);

/* Periodic axes (g->periodic): the first pair of charged atoms that are one atom a whole number
 * of periods apart (the same grid coordinates, within 10^-3 spacings, once taken into one period
 * along the periodic axes), whose charge would then be counted twice; 0 with *first, *second
 * (0-based, first < second) set, 1 when there is none, -1 when out of memory. */
int charges_periodic_repeat(const calc_molecule *mol, const grid_spec *g, long *first,
                            long *second);

void charge_list_free(charge_list *c);

/* The 8 trilinear shares of a point at 0-based grid coordinates gc: base corner and weights
 * w[k] for corner k = dx + 2 dy + 4 dz.  The weights sum to 1. */
void trilinear_weights(const double gc[3], int base[3], double w[8]);

#endif /* HOST_CHARGES_H */
