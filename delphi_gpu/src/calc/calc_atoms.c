/* The charged atoms of a molecule as flat arrays (calc_atoms.h). */
#include "calc_atoms.h"

#include <stdlib.h>

long calc_charged_atoms(const calc_molecule *mol, double **xyz_out, double **q_out,
                        long **index_out) {
    long charged = 0;
    for (size_t i = 0; i < mol->count; ++i)
        charged += mol->atoms[i].charge != 0.0;
    double *xyz = malloc(((size_t)charged + 1) * 3 * sizeof *xyz);
    double *q = malloc(((size_t)charged + 1) * sizeof *q);
    long *index = index_out ? malloc(((size_t)charged + 1) * sizeof *index) : NULL;
    if (!xyz || !q || (index_out && !index)) {
        free(xyz), free(q), free(index);
        return -1;
    }
    long k = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0) continue;
        xyz[3 * k] = a->x, xyz[3 * k + 1] = a->y, xyz[3 * k + 2] = a->z, q[k] = a->charge;
        if (index) index[k] = (long)i;
        ++k;
    }
    *xyz_out = xyz, *q_out = q;
    if (index_out) *index_out = index;
    return charged;
}
