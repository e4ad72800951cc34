/* Grid size, scale and centre as DelPhi chooses them (the rules are in grid.h). */
#include "grid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"

/* Atom bounding box with radii included; 0, or -1 without atoms. */
static int bounding_box(const calc_molecule *mol, double lo[3], double hi[3]) {
    if (!mol || mol->count == 0) return -1;
    for (int a = 0; a < 3; ++a)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *at = &mol->atoms[i];
        const double p[3] = {at->x, at->y, at->z};
        for (int a = 0; a < 3; ++a) {
            if (p[a] - at->radius < lo[a]) lo[a] = p[a] - at->radius;
            if (p[a] + at->radius > hi[a]) hi[a] = p[a] + at->radius;
        }
    }
    return 0;
}

/* DelPhi's rule: the box side holds the extent at `perfil` percent, the point count
 * scale * 100 / perfil * extent truncated to an integer, then made odd by adding one. */
static long points_for(double extent, double scale, double perfil) {
    const double points = scale * 100.0 / perfil * extent;
    /* Far too many (the caller refuses it), and no overflow of the conversion below. */
    if (!(points < 1e7)) return 10000001;
    long n = points < 1.0 ? 1 : (long)(points + 1e-9); /* 1e-9: representation noise only */
    return (n % 2) ? n : n + 1;
}

/* The extent DelPhi sizes the grid by: twice the largest distance of a box face from the grid
 * centre (the box's largest side when the grid is centred on the box). */
static double sizing_extent(const grid_spec *g, const double center[3], int centred) {
    if (centred) return g->largest_extent;
    double reach = 0.0;
    for (int a = 0; a < 3; ++a)
        reach = fmax(reach, fmax(fabs(g->box_max[a] - center[a]), fabs(g->box_min[a] - center[a])));
    return 2.0 * reach;
}

/* The grid centre: the box centre, an absolute point, or DelPhi's center(): the molecule offset
 * from the grid's middle by center[] grid units, so the grid centre is the box centre minus
 * center[] / scale.  DelPhi places the centre before it derives a scale from gsize or perfil, so
 * an offset counts only with a given scale (stock DelPhi 2010 divides it by its "unset" marker,
 * 10000, otherwise: the box centre); scale is 0 here then. */
static void place_center(const dg_calc_params *s, double scale, grid_spec *g) {
    for (int a = 0; a < 3; ++a) {
        const double middle = 0.5 * (g->box_min[a] + g->box_max[a]);
        if (s->center_mode == DG_CENTER_ABSOLUTE)
            g->center[a] = s->center[a];
        else if (s->center_mode == DG_CENTER_OFFSET && scale > 0.0)
            g->center[a] = middle - s->center[a] / scale;
        else
            g->center[a] = middle;
    }
}

int grid_choose(const dg_calc_params *s, const calc_molecule *mol, grid_spec *g, char *msg,
                size_t msg_size) {
    const int scale_given = s->scale > 0.0, perfil_given = s->perfil > 0.0;
    memset(g, 0, sizeof *g);
    g->periodic = s->solver.periodic;
    if (bounding_box(mol, g->box_min, g->box_max) != 0) {
        snprintf(msg, msg_size, "the molecule has no atoms");
        return -1;
    }
    for (int a = 0; a < 3; ++a)
        if (g->box_max[a] - g->box_min[a] > g->largest_extent)
            g->largest_extent = g->box_max[a] - g->box_min[a];
    if (!(s->scale >= 0.0 && isfinite(s->scale)) || !(s->perfil >= 0.0 && s->perfil <= 100.0)) {
        snprintf(msg, msg_size, "scale (%g) must be > 0 and perfil (%g) in (0, 100]", s->scale,
                 s->perfil);
        return -1;
    }
    /* DelPhi's order: the centre first, then the size from twice the largest distance of a box
       face from it (the box's largest side for a grid centred on the box). */
    place_center(s, scale_given ? s->scale : 0.0, g);
    if (s->center_mode == DG_CENTER_OFFSET && !scale_given &&
        (s->center[0] != 0.0 || s->center[1] != 0.0 || s->center[2] != 0.0))
        snprintf(g->note, sizeof g->note,
                 "center() offset %g %g %g not applied: its grid units need a given scale (stock "
                 "DelPhi 2010 leaves such a grid at the box centre too)",
                 s->center[0], s->center[1], s->center[2]);
    const double extent = sizing_extent(g, g->center, s->center_mode == DG_CENTER_BOX);
    if (s->grid_size > 0) {
        long n = s->grid_size;
        if (n % 2 == 0) {
            snprintf(g->note + strlen(g->note), sizeof g->note - strlen(g->note),
                     "%sgsize %ld is even, made odd: %ld", g->note[0] ? "; " : "", n, n + 1);
            ++n;
        }
        if (n < DG_MIN_GRID_SIZE) {
            snprintf(msg, msg_size, "gsize %d is too small (at least %d points per side)",
                     s->grid_size, DG_MIN_GRID_SIZE);
            return -1;
        }
        g->n = (int)n;
        if (scale_given) {
            g->scale = s->scale;
            g->perfil = 100.0 * extent * g->scale / (g->n - 1);
            if (perfil_given)
                snprintf(g->note + strlen(g->note), sizeof g->note - strlen(g->note),
                         "%sgsize and scale given: perfil %g ignored (%.1f %% filled)",
                         g->note[0] ? "; " : "", s->perfil, g->perfil);
        } else {
            g->perfil = perfil_given ? s->perfil : GRID_DEFAULT_PERFIL;
            if (!(extent > 0.0)) {
                snprintf(msg, msg_size,
                         "the molecule has no extent (one atom of radius 0): give scale");
                return -1;
            }
            /* DelPhi derives the scale from the size as given and only then makes it odd: an
               even gsize of n fills perfil percent of n - 1 spacings, of the n + 1 points. */
            g->scale = (s->grid_size - 1) * g->perfil / (100.0 * extent);
        }
    } else {
        g->scale = scale_given ? s->scale : GRID_DEFAULT_SCALE;
        g->perfil = perfil_given ? s->perfil : GRID_DEFAULT_PERFIL;
        if (!(extent > 0.0)) {
            snprintf(msg, msg_size,
                     "the molecule has no extent (one atom of radius 0): give gsize and scale");
            return -1;
        }
        long n = points_for(extent, g->scale, g->perfil);
        if (n < DG_MIN_GRID_SIZE) n = DG_MIN_GRID_SIZE;
        if (n > 100001) {
            const char *why = s->center_mode == DG_CENTER_ABSOLUTE
                                  ? " (the grid must reach the atoms from the centre acenter "
                                    "places far from them)"
                              : s->center_mode == DG_CENTER_OFFSET
                                  ? " (the grid must reach the atoms from the centre the "
                                    "center() offset places far from them)"
                                  : "";
            snprintf(msg, msg_size,
                     "scale %g and perfil %g give %ld points per side: far too many%s", g->scale,
                     g->perfil, n, why);
            return -1;
        }
        g->n = (int)n;
        g->perfil = 100.0 * extent * g->scale / (g->n - 1);
    }
    /* No molecule needs a box wider than GRID_MAX_BOX; within it, grid coordinates, cell volumes
       and charge densities stay finite and meaningful (a scale of 1e-300 would make them
       infinite or NaN). */
    const double box = (g->n - 1) / g->scale;
    if (!(box <= GRID_MAX_BOX)) {
        snprintf(msg, msg_size,
                 "scale %g points/A with %d points per side makes a box %.3g A wide (more than "
                 "%g A): raise scale (or perfil, for a grid sized by gsize and perfil)",
                 g->scale, g->n, box, GRID_MAX_BOX);
        return -1;
    }
    if (g->largest_extent * g->scale < 2.0)
        snprintf(g->note + strlen(g->note), sizeof g->note - strlen(g->note),
                 "%sthe molecule (%.3g A across) spans %.2g grid spacings of %.3g A: too coarse "
                 "to resolve it",
                 g->note[0] ? "; " : "", g->largest_extent, g->largest_extent * g->scale,
                 1.0 / g->scale);
    return 0;
}

int grid_choose_coarse(const dg_calc_params *s, const grid_spec *fine, grid_spec *coarse, char *msg,
                       size_t msg_size) {
    memset(coarse, 0, sizeof *coarse);
    if (!(s->coarse_scale > 0.0) && !(s->coarse_perfil > 0.0)) return 0;
    *coarse = *fine;
    coarse->note[0] = '\0';
    double scale = s->coarse_scale;
    if (!(scale > 0.0)) {
        const double extent = sizing_extent(fine, fine->center, 0);
        if (!(extent > 0.0)) {
            snprintf(msg, msg_size,
                     "coarse grid: the molecule has no extent about the grid centre: give "
                     "coarse_scale instead of coarse_perfil");
            return -1;
        }
        scale = (fine->n - 1) * s->coarse_perfil / (100.0 * extent);
    }
    if (!(scale < fine->scale)) {
        if (s->coarse_scale > 0.0)
            snprintf(msg, msg_size,
                     "coarse grid: coarse_scale %g is not below the grid's scale %g: focusing "
                     "goes from a coarser grid to a finer one",
                     s->coarse_scale, fine->scale);
        else
            snprintf(msg, msg_size,
                     "coarse grid: coarse_perfil %g gives scale %g, not below the grid's scale "
                     "%g (the molecule fills %.1f %% of the grid already): lower coarse_perfil",
                     s->coarse_perfil, scale, fine->scale, fine->perfil);
        return -1;
    }
    const double box = (fine->n - 1) / scale;
    if (!(box <= GRID_MAX_BOX)) {
        snprintf(msg, msg_size,
                 "coarse grid: scale %g points/A with %d points per side makes a box %.3g A wide "
                 "(more than %g A)",
                 scale, fine->n, box, GRID_MAX_BOX);
        return -1;
    }
    coarse->scale = scale;
    coarse->perfil = 100.0 * fine->largest_extent * scale / (fine->n - 1);
    return 0;
}
