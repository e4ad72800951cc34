/* The dielectric medium on the grid: a medium number per cell-face midpoint (0 = solvent,
 * exdi; 1 = solute, indi) on the three face sets, as the library's 1-byte dense form wants it,
 * and the ion-accessibility map on the grid points. */
#ifndef HOST_MEDIUM_H
#define HOST_MEDIUM_H

#include <stddef.h>

#include "delphi_gpu/delphi_gpu.h"
#include "grid.h"
#include "surface.h"

enum { MEDIUM_SOLVENT = 0, MEDIUM_SOLUTE = 1 };

typedef struct medium_maps {
    int n;
    unsigned char *face[3];        /* [n^3] each: face[a][p] is the midpoint between p and p+e_a */
    unsigned char *ion_accessible; /* [n^3], 1 = mobile ions allowed; NULL when not asked */
    size_t solute_faces[3];        /* midpoints inside the molecule, per face set */
    size_t shell_points;           /* midpoints between the vdW and SAS surfaces (all sets) */
    size_t reentrant_points;       /* of which inside the SES (re-entrant regions) */
    size_t ion_accessible_points;
} medium_maps;

/* Mark the medium.  Midpoint i/j/k of face set a lies at grid coordinate (i,j,k) + e_a / 2.
 * A midpoint is solute when inside an atom's van der Waals sphere or, for the molecular
 * surface, inside the SES (see surface.h).  With ion_map, a grid point is ion-accessible when
 * it is at >= radius + ion_radius from every atom centre (atoms with radius > 0).
 * Cost: O(grid points + atoms x points per atom sphere), parallel over grid planes.
 * Returns 0, or -1 with a message (out of memory). */
int medium_build(const surface_model *sm, const grid_spec *g, int ion_map, double ion_radius,
                 medium_maps *m, char *msg, size_t msg_size);

void medium_free(medium_maps *m);

/* Periodic axes (dg_periodic_axis bits): for each, how many of the maps' values on its faces
 * differ from their images (plane 0 from plane n-2, plane n-1 from plane 1; the other two
 * coordinates interior; the three face maps and the ion map), out of compared[a].  Zero when
 * the medium repeats with the period of n-2 spacings; otherwise a molecule reaches those faces
 * without periodic images (DelPhi adds none either). */
void medium_periodic_mismatch(const medium_maps *m, int periodic, long mismatch[3],
                              long compared[3]);

/* The same maps on a solver's backend: the library's stage operation on a CUDA solver, else
 * (NULL or a CPU solver) medium_build on host threads.  Returns a dg_status with a message:
 * DG_OK, DG_ERR_OUT_OF_MEMORY on the host, or the library stage's own status. */
int medium_build_on(dg_solver solver, const surface_model *sm, const grid_spec *g, int ion_map,
                    double ion_radius, medium_maps *m, char *msg, size_t msg_size);

struct dg_surface_request;
/* The library's plain-array description of the surface model and grid (pointers into sm). */
void medium_surface_request(const surface_model *sm, const grid_spec *g, int ion_map,
                            double ion_radius, struct dg_surface_request *r);

#endif /* HOST_MEDIUM_H */
