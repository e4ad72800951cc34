/* Boundary values on the six faces of the potential map (interface doc 5.1 step 6):
 * zero, dipolar, Coulombic (Debye-Hueckel sums, kT/e) and focusing (trilinear interpolation
 * from a coarser map that must contain the new box). */
#ifndef HOST_BOUNDARY_H
#define HOST_BOUNDARY_H

#include <stddef.h>

#include "delphi_gpu/delphi_gpu.h"
#include "molecule.h"
#include "phi_map.h"

typedef struct boundary_params {
    int kind;                    /* enum boundary_condition */
    double eps_out;              /* relative permittivity of the medium the sums use */
    double debye_length;         /* Angstrom, INFINITY without salt */
    double temperature;          /* K */
    const phi_map *focus_source; /* BC_FOCUSING: the coarser map */
    const dg_options *options;   /* backend for the Debye-Hueckel sums (NULL: the defaults,
                                    i.e. the GPU when one works) */
} boundary_params;

/* Fill the faces of phi (its n, scale and centre describe the grid); the interior is left as
 * it is.  The dipolar and Coulombic sums run in the library (dg_debye_huckel_faces_*), on the
 * GPU when the options' backend uses one.  Returns 0; -1 with a message for bad input (unknown
 * kind, no focusing map, a box outside it); -2 when the library or the device failed. */
int boundary_apply(phi_map *phi, const molecule *mol, const boundary_params *bp, char *msg,
                   size_t msg_size);

/* Potentials at the centres of the six faces, x-, x+, y-, y+, z-, z+ (DelPhi prints them). */
void boundary_face_centres(const phi_map *phi, double out[6]);

#endif /* HOST_BOUNDARY_H */
