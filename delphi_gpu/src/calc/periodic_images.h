/* The periodic images of a molecule (docs/PERIODIC.md): along periodic axes the molecule stands
 * for its copies one period (n-2 grid spacings) over, and the copies within reach of the grid
 * shape its surface and ion map there. */
#ifndef DG_PERIODIC_IMAGES_H
#define DG_PERIODIC_IMAGES_H

#include "calc_atoms.h"
#include "grid.h"

/* The atoms of mol (in order, index i stays i) followed by each atom's images along the
 * periodic axes of g (shifts of -1, 0 or +1 periods per axis, not all 0) whose sphere of radius
 * radius + reach meets the grid box; images carry charge 0.  image_of[j] is the atom that
 * atom j of out stands for (malloc'ed; j itself for the first mol->count).  With no periodic
 * axis out is a copy.  Returns 0, or -1 when out of memory (nothing allocated). */
int periodic_images(const calc_molecule *mol, const grid_spec *g, double reach, calc_molecule *out,
                    long **image_of);

#endif /* DG_PERIODIC_IMAGES_H */
