/* Point queries on the surface model: SES shell classification, inside test, projection. */
#include <math.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_calc.h"
#include "surface.h"

static double distance2(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Squared gaps, per axis, from x to the cells lo..hi of that axis (0 for the cell holding x);
 * the gap to a cell is separable, so a ball test is three table look-ups.  The cell sides
 * (surface_model.c) and the reach limit below keep every query under 2*21+2 cells per axis. */
#define GAP_TABLE 64
typedef struct cell_gaps {
    int lo[3], hi[3];
    double g2[3][GAP_TABLE];
} cell_gaps;

static int cell_gaps_init(const cell_list *cl, const double x[3], double r, cell_gaps *cg) {
    if (!cell_list_range(cl, x, r, cg->lo, cg->hi)) return 0;
    for (int a = 0; a < 3; ++a) {
        if (cg->hi[a] - cg->lo[a] >= GAP_TABLE) cg->hi[a] = cg->lo[a] + GAP_TABLE - 1;
        for (int c = cg->lo[a]; c <= cg->hi[a]; ++c) {
            const double gap = cell_list_gap(cl, a, c, x[a]);
            cg->g2[a][c - cg->lo[a]] = gap * gap;
        }
    }
    return 1;
}

/* The items of the cells of row (cy, cz) that intersect the ball (squared radius r2): the gap
 * to a cell grows away from the cell holding x, so those cells form one run cx = a..b, whose
 * items are contiguous (items[*begin .. end)): the same items in the same order as a visit cell
 * by cell, at one range per row.  Returns end (== *begin when none). */
static inline int cell_row_items(const cell_list *cl, const cell_gaps *cg, int cz, int cy,
                                 double r2, int *begin) {
    *begin = 0;
    const double gz = cg->g2[2][cz - cg->lo[2]];
    if (!(gz < r2)) return 0;
    const double gy = gz + cg->g2[1][cy - cg->lo[1]];
    if (!(gy < r2)) return 0;
    int a = cg->lo[0], b = cg->hi[0];
    while (a <= b && !(gy + cg->g2[0][a - cg->lo[0]] < r2))
        ++a;
    while (b > a && !(gy + cg->g2[0][b - cg->lo[0]] < r2))
        --b;
    if (a > b) return 0;
    *begin = cl->start[cell_list_index(cl, a, cy, cz)];
    return cl->start[cell_list_index(cl, b, cy, cz) + 1];
}

/* Visit the items of cell list cl in the cells that intersect the ball (x, r). */
#define FOR_CELL_ITEMS(cl, x, r, item)                                                             \
    cell_gaps cg_;                                                                                 \
    const double r2_ = (r) * (r);                                                                  \
    if (cell_gaps_init((cl), (x), (r), &cg_))                                                      \
        for (int cz_ = cg_.lo[2]; cz_ <= cg_.hi[2]; ++cz_)                                         \
            for (int cy_ = cg_.lo[1]; cy_ <= cg_.hi[1]; ++cy_)                                     \
                for (int k_ = 0, e_ = cell_row_items((cl), &cg_, cz_, cy_, r2_, &k_);              \
                     k_ < e_ && ((item) = (cl)->items[k_], 1); ++k_)

/* Distance from x to the contact probe of atom j (radial projection onto its SAS sphere) if
 * that probe is accessible and closer than `limit`; INFINITY otherwise. */
static double contact_gap(const surface_model *sm, int j, const double x[3], double limit,
                          double centre[3]) {
    const double *c = sm->xyz + 3 * j;
    const double d2 = distance2(x, c), r = sm->sas_radius[j];
    const double lo = r - limit, hi = r + limit;
    if (d2 >= hi * hi || (lo > 0 && d2 <= lo * lo) || d2 <= 1e-24) return INFINITY;
    const double d = sqrt(d2);
    double p[3];
    for (int a = 0; a < 3; ++a)
        p[a] = c[a] + (x[a] - c[a]) * r / d;
    if (!surface_accessible_near(sm, j, -1, p)) return INFINITY;
    if (centre) memcpy(centre, p, sizeof p);
    return fabs(d - r);
}

static double nearest_probe(const surface_model *sm, const double x[3], double within, double stop,
                            double centre[3]) {
    double best = INFINITY;
    int j;
    {
        FOR_CELL_ITEMS(&sm->exposed_atoms, x, sm->max_sas_radius + within, j) {
            const double gap = contact_gap(sm, j, x, fmin(within, best), centre);
            if (!(gap < best)) continue;
            best = gap;
            if (best < stop) return best;
        }
    }
    if (sm->dot_count) {
        FOR_CELL_ITEMS(&sm->dot_cells, x, within, j) {
            const double *dot = sm->dots + 3 * j;
            const double d2 = distance2(x, dot);
            if (d2 >= best * best || d2 >= within * within) continue;
            best = sqrt(d2);
            if (centre) memcpy(centre, dot, 3 * sizeof(double));
            if (best < stop) return best;
        }
    }
    return best;
}

/* The shell test's verdict on one dot: an accessible probe centre closer than w (the test
 * nearest_probe makes with stop = within = w). */
static int dot_within(const double x[3], const double *dot, double w) {
    const double d2 = distance2(x, dot);
    return d2 < w * w && sqrt(d2) < w;
}

/* nearest_probe(sm, x, probe, probe, ...) < probe, with the hints tried first.  Each candidate's
 * verdict (contact gap below the probe radius, or dot_within) does not depend on the others, so
 * the order of the search, and the hints, leave the answer as it is. */
int surface_shell_point_outside(const surface_model *sm, const double x[3], surface_hint *hint) {
    if (sm->kind != DG_SURFACE_MOLECULAR || sm->probe <= 0.0) return 1;
    const double w = sm->probe;
    if (hint && hint->atom >= 0 && contact_gap(sm, hint->atom, x, w, NULL) < w) return 1;
    if (hint && hint->dot >= 0 && dot_within(x, sm->dots + 3 * hint->dot, w)) return 1;
    double best = INFINITY;
    int j;
    {
        FOR_CELL_ITEMS(&sm->exposed_atoms, x, sm->max_sas_radius + w, j) {
            const double gap = contact_gap(sm, j, x, w, NULL);
            if (!(gap < best)) continue;
            best = gap;
            if (hint) hint->atom = j; /* the nearest probe so far: likely to decide next time */
            if (gap < w) return 1;
        }
    }
    if (sm->dot_count) {
        FOR_CELL_ITEMS(&sm->dot_cells, x, w, j) {
            if (!dot_within(x, sm->dots + 3 * j, w)) continue;
            if (hint) hint->dot = j;
            return 1;
        }
    }
    return 0;
}

int surface_point_inside(const surface_model *sm, const double x[3]) {
    int j, in_shell = 0;
    FOR_CELL_ITEMS(&sm->atoms, x, sm->max_sas_radius, j) {
        const double d2 = distance2(x, sm->xyz + 3 * j);
        if (d2 <= sm->radius[j] * sm->radius[j]) return 1;
        if (d2 < sm->sas_radius[j] * sm->sas_radius[j]) in_shell = 1;
    }
    return in_shell ? !surface_shell_point_outside(sm, x, NULL) : 0;
}

/* Onto the sphere (centre c, radius r) along the ray from c through x. */
static void onto_sphere(const double *c, double r, const double x[3], double s[3]) {
    const double d = sqrt(distance2(x, c));
    if (d <= 1e-12) {
        s[0] = c[0] + r, s[1] = c[1], s[2] = c[2];
        return;
    }
    for (int a = 0; a < 3; ++a)
        s[a] = c[a] + (x[a] - c[a]) * r / d;
}

int surface_project(const surface_model *sm, const double x[3], double reach, double s[3]) {
    memcpy(s, x, 3 * sizeof(double));
    if (reach > SURFACE_MAX_REACH) reach = SURFACE_MAX_REACH;
    int j, nearest_atom = -1, in_sas = 0;
    double best_atom = INFINITY;
    FOR_CELL_ITEMS(&sm->atoms, x, sm->max_sas_radius + reach, j) {
        const double d = sqrt(distance2(x, sm->xyz + 3 * j));
        if (d - sm->radius[j] < best_atom) best_atom = d - sm->radius[j], nearest_atom = j;
        if (d < sm->sas_radius[j]) in_sas = 1;
    }
    if (nearest_atom < 0) return -1;
    if (sm->kind == DG_SURFACE_MOLECULAR && sm->probe > 0.0 && in_sas) {
        double centre[3];
        if (isfinite(nearest_probe(sm, x, sm->probe + reach, 0.0, centre))) {
            onto_sphere(centre, sm->probe, x, s);
            return 0;
        }
    }
    onto_sphere(sm->xyz + 3 * nearest_atom, sm->radius[nearest_atom], x, s);
    return 0;
}
