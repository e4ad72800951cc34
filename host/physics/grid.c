/* Grid size, scale and centre as DelPhi chooses them (interface doc 1 and 5.1). */
#include "grid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"

/* Atom bounding box with radii included; 0, or -1 without atoms. */
static int bounding_box(const molecule *mol, double lo[3], double hi[3]) {
    if (!mol || mol->count == 0) return -1;
    for (int a = 0; a < 3; ++a)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    for (size_t i = 0; i < mol->count; ++i) {
        const atom *at = &mol->atoms[i];
        const double p[3] = {at->x, at->y, at->z};
        for (int a = 0; a < 3; ++a) {
            if (p[a] - at->radius < lo[a]) lo[a] = p[a] - at->radius;
            if (p[a] + at->radius > hi[a]) hi[a] = p[a] + at->radius;
        }
    }
    return 0;
}

/* Smallest odd n whose box side (n-1)/scale holds the extent at `perfil` percent. */
static long points_for(double extent, double scale, double perfil) {
    double intervals = ceil(extent * scale * 100.0 / perfil - 1e-9);
    if (intervals < 1) intervals = 1;
    long n = (long)intervals + 1;
    return (n % 2) ? n : n + 1;
}

int grid_choose(const run_settings *s, const molecule *mol, grid_spec *g, char *msg,
                size_t msg_size) {
    memset(g, 0, sizeof *g);
    if (bounding_box(mol, g->box_min, g->box_max) != 0) {
        snprintf(msg, msg_size, "the molecule has no atoms");
        return -1;
    }
    for (int a = 0; a < 3; ++a)
        if (g->box_max[a] - g->box_min[a] > g->largest_extent)
            g->largest_extent = g->box_max[a] - g->box_min[a];
    if ((s->scale_given && !(s->scale > 0.0 && isfinite(s->scale))) ||
        (s->perfil_given && !(s->perfil > 0.0 && s->perfil <= 100.0))) {
        snprintf(msg, msg_size, "scale (%g) must be > 0 and perfil (%g) in (0, 100]", s->scale,
                 s->perfil);
        return -1;
    }
    const double extent = g->largest_extent;
    if (s->gsize_given) {
        long n = s->gsize;
        if (n % 2 == 0) {
            snprintf(g->note, sizeof g->note, "gsize %ld is even, made odd: %ld", n, n + 1);
            ++n;
        }
        if (n < DG_MIN_GRID_SIZE) {
            snprintf(msg, msg_size, "gsize %d is too small (at least %d points per side)", s->gsize,
                     DG_MIN_GRID_SIZE);
            return -1;
        }
        g->n = (int)n;
        if (s->scale_given) {
            g->scale = s->scale;
            g->perfil = 100.0 * extent * g->scale / (g->n - 1);
            if (s->perfil_given)
                snprintf(g->note + strlen(g->note), sizeof g->note - strlen(g->note),
                         "%sgsize and scale given: perfil %g ignored (%.1f %% filled)",
                         g->note[0] ? "; " : "", s->perfil, g->perfil);
        } else {
            g->perfil = s->perfil_given ? s->perfil : GRID_DEFAULT_PERFIL;
            if (!(extent > 0.0)) {
                snprintf(msg, msg_size,
                         "the molecule has no extent (one atom of radius 0): give scale");
                return -1;
            }
            g->scale = (g->n - 1) * g->perfil / (100.0 * extent);
        }
    } else {
        g->scale = s->scale_given ? s->scale : GRID_DEFAULT_SCALE;
        g->perfil = s->perfil_given ? s->perfil : GRID_DEFAULT_PERFIL;
        if (!(extent > 0.0)) {
            snprintf(msg, msg_size,
                     "the molecule has no extent (one atom of radius 0): give gsize and scale");
            return -1;
        }
        long n = points_for(extent, g->scale, g->perfil);
        if (n < DG_MIN_GRID_SIZE) n = DG_MIN_GRID_SIZE;
        if (n > 100001) {
            snprintf(msg, msg_size, "scale %g and perfil %g give %ld points per side: far too many",
                     g->scale, g->perfil, n);
            return -1;
        }
        g->n = (int)n;
        g->perfil = 100.0 * extent * g->scale / (g->n - 1);
    }
    for (int a = 0; a < 3; ++a) {
        const double middle = 0.5 * (g->box_min[a] + g->box_max[a]);
        switch (s->center_mode) {
        case 1:
            g->center[a] = s->center[a];
            break;
        case 2:
            g->center[a] = middle + s->center[a] / g->scale;
            break;
        default:
            g->center[a] = middle;
            break;
        }
    }
    return 0;
}
