/* Boundary values on the six faces of the potential map (interface doc 5.1 step 6):
 * zero, dipolar, Coulombic (Debye-Hueckel sums, kT/e) and focusing (trilinear interpolation
 * from a coarser map that must contain the new box). */
#ifndef HOST_BOUNDARY_H
#define HOST_BOUNDARY_H

#include <stddef.h>

#include "molecule.h"
#include "phi_map.h"

typedef struct boundary_params {
    int kind;                    /* enum boundary_condition */
    double eps_out;              /* relative permittivity of the medium the sums use */
    double debye_length;         /* Angstrom, INFINITY without salt */
    double temperature;          /* K */
    const phi_map *focus_source; /* BC_FOCUSING: the coarser map */
} boundary_params;

/* Fill the faces of phi (its n, scale and centre describe the grid); the interior is left as
 * it is.  Returns 0, or -1 with a message (unknown kind, no focusing map, a box outside it). */
int boundary_apply(phi_map *phi, const molecule *mol, const boundary_params *bp, char *msg,
                   size_t msg_size);

/* Debye-Hueckel potential (kT/e) at p of the charges q[i] at xyz[3i..]: sum q e^(-r/L)/(eps' r)
 * with eps' = eps_out / epkt.  Exposed for tests. */
double debye_huckel_potential(const double p[3], const double *xyz, const double *q, size_t count,
                              double eps_out, double debye_length, double temperature);

/* Potentials at the centres of the six faces, x-, x+, y-, y+, z-, z+ (DelPhi prints them). */
void boundary_face_centres(const phi_map *phi, double out[6]);

#endif /* HOST_BOUNDARY_H */
