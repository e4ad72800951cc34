/* Periodic images of the molecule for its surface and ion map (periodic_images.h). */
#include "periodic_images.h"

#include <stdlib.h>
#include <string.h>

/* 1 when the sphere of radius reach about p meets the box [lo, hi]. */
static int near_box(const double p[3], double reach, const double lo[3], const double hi[3]) {
    for (int a = 0; a < 3; ++a)
        if (p[a] + reach < lo[a] || p[a] - reach > hi[a]) return 0;
    return 1;
}

int periodic_images(const calc_molecule *mol, const grid_spec *g, double reach, calc_molecule *out,
                    long **image_of) {
    double lo[3], hi[3], period[3];
    int steps[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = grid_position(g, a, 0.0), hi[a] = grid_position(g, a, g->n - 1.0);
        period[a] = (g->n - 2) / g->scale;
        steps[a] = (g->periodic >> a) & 1; /* shifts -steps .. steps */
    }
    /* two passes: count, then fill */
    size_t count = mol->count;
    calc_atom *atoms = NULL;
    long *of = NULL;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            atoms = malloc((count + 1) * sizeof *atoms);
            of = malloc((count + 1) * sizeof *of);
            if (!atoms || !of) {
                free(atoms), free(of);
                return -1;
            }
            memcpy(atoms, mol->atoms, mol->count * sizeof *atoms);
            for (size_t i = 0; i < mol->count; ++i)
                of[i] = (long)i;
        }
        size_t k = mol->count;
        for (size_t i = 0; i < mol->count; ++i) {
            const calc_atom *a = &mol->atoms[i];
            if (!(a->radius > 0.0)) continue;
            for (int sz = -steps[2]; sz <= steps[2]; ++sz)
                for (int sy = -steps[1]; sy <= steps[1]; ++sy)
                    for (int sx = -steps[0]; sx <= steps[0]; ++sx) {
                        if (!sx && !sy && !sz) continue;
                        const double p[3] = {a->x + sx * period[0], a->y + sy * period[1],
                                             a->z + sz * period[2]};
                        if (!near_box(p, a->radius + reach, lo, hi)) continue;
                        if (pass == 1) {
                            atoms[k] = *a;
                            atoms[k].x = p[0], atoms[k].y = p[1], atoms[k].z = p[2];
                            atoms[k].charge = 0.0;
                            of[k] = (long)i;
                        }
                        ++k;
                    }
        }
        count = k;
    }
    out->atoms = atoms, out->count = count;
    *image_of = of;
    return 0;
}
