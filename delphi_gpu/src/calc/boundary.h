/* Boundary values on the six faces of the potential map (DelPhi's bndcon choices):
 * zero, dipolar, Coulombic (Debye-Hueckel sums, kT/e) and focusing (trilinear interpolation
 * from a coarser map that must contain the new box). */
#ifndef HOST_BOUNDARY_H
#define HOST_BOUNDARY_H

#include <stddef.h>

#include "delphi_gpu/delphi_gpu.h"
#include "calc_atoms.h"
#include "phi_map.h"

typedef struct boundary_params {
    int kind;                    /* enum boundary_condition */
    double eps_out;              /* relative permittivity of the medium the sums use */
    double debye_length;         /* Angstrom, INFINITY without salt */
    double temperature;          /* K */
    const phi_map *focus_source; /* DG_BOUNDARY_FOCUSING: the coarser map */
    dg_solver solver;            /* the Debye-Hueckel sums run on this solver's backend */
} boundary_params;

/* Fill the faces of phi (its n, scale and centre describe the grid); the interior is left as
 * it is.  The dipolar and Coulombic sums run on the solver's backend (the GPU when it uses one).
 * Returns a dg_status with a message: DG_ERR_INVALID_ARGUMENT for bad input (unknown kind, no
 * focusing map, a box outside it), the backend's status when it failed. */
int boundary_apply(phi_map *phi, const calc_molecule *mol, const boundary_params *bp, char *msg,
                   size_t msg_size);

/* Potentials at the centres of the six faces, x-, x+, y-, y+, z-, z+ (DelPhi prints them). */
void boundary_face_centres(const phi_map *phi, double out[6]);

#endif /* HOST_BOUNDARY_H */
