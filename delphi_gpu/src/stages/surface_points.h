/* Per-point pieces of the medium maps (stages.h, dg_surface_request), shared by the host
 * implementation and the CUDA kernels so that both evaluate the same expressions in the same
 * order (the CUDA objects are built without FMA contraction).  They follow the host medium
 * builder (delphi_gpu/src/calc/medium.c, surface_query.c) expression for expression: the same
 * planes and disks are visited per atom, and the shell test finds an accessible probe centre closer
 * than the probe radius if and only if the host's does. */
#ifndef DG_SURFACE_POINTS_H
#define DG_SURFACE_POINTS_H

#include <math.h>

#include "../stages.h"

#ifdef __CUDACC__
#define DG_SP_INLINE __host__ __device__ static inline
#else
#define DG_SP_INLINE static inline
#endif

/* Marks of the first pass: bit 0 inside the outer sphere (shell), bit 1 inside the inner one. */
enum { DG_SP_SHELL = 1, DG_SP_INNER = 2 };

DG_SP_INLINE double dg_sp_position(const dg_surface_request *r, int axis, double i) {
    return (i - 0.5 * (r->n - 1)) / r->scale + r->center[axis];
}

DG_SP_INLINE double dg_sp_coordinate(const dg_surface_request *r, int axis, double x) {
    return (x - r->center[axis]) * r->scale + 0.5 * (r->n - 1);
}

DG_SP_INLINE double dg_sp_distance2(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* The circle where the SAS spheres of atoms i and j (centres xyz, radii sas) meet: centre m,
 * radius rho, orthonormal e1, e2 spanning its plane.  Returns 0 when the spheres do not cross
 * (apart, or one inside the other).  The surface model's arc dots (host) and the CUDA arc-dot
 * kernels both use it, so their dots are the same bits. */
DG_SP_INLINE int dg_sp_circle(const double *xyz, const double *sas, int i, int j, double m[3],
                              double *rho, double e1[3], double e2[3]) {
    const double *ci = xyz + 3 * i, *cj = xyz + 3 * j;
    const double ri = sas[i], rj = sas[j];
    double u[3] = {cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2]};
    const double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (d >= ri + rj || d <= fabs(ri - rj)) return 0;
    for (int a = 0; a < 3; ++a)
        u[a] /= d;
    const double along = (d * d + ri * ri - rj * rj) / (2.0 * d);
    *rho = sqrt(fmax(0.0, ri * ri - along * along));
    for (int a = 0; a < 3; ++a)
        m[a] = ci[a] + along * u[a];
    /* e1: u crossed with the axis it is least aligned with; e2 = u x e1. */
    const int least = fabs(u[0]) < fabs(u[1]) ? (fabs(u[0]) < fabs(u[2]) ? 0 : 2)
                                              : (fabs(u[1]) < fabs(u[2]) ? 1 : 2);
    double axis[3] = {0, 0, 0};
    axis[least] = 1.0;
    e1[0] = u[1] * axis[2] - u[2] * axis[1];
    e1[1] = u[2] * axis[0] - u[0] * axis[2];
    e1[2] = u[0] * axis[1] - u[1] * axis[0];
    const double norm = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int a = 0; a < 3; ++a)
        e1[a] /= norm;
    e2[0] = u[1] * e1[2] - u[2] * e1[1];
    e2[1] = u[2] * e1[0] - u[0] * e1[2];
    e2[2] = u[0] * e1[1] - u[1] * e1[0];
    return 1;
}

/* The circle's point at the angle whose cosine and sine are c and s (an arc dot). */
DG_SP_INLINE void dg_sp_circle_point(const double m[3], double rho, const double e1[3],
                                     const double e2[3], double c, double s, double p[3]) {
    for (int a = 0; a < 3; ++a)
        p[a] = m[a] + rho * (c * e1[a] + s * e2[a]);
}

/* 1 when p lies inside the SAS sphere of centre c and radius r (the accessibility test). */
DG_SP_INLINE int dg_sp_sas_covers(const double c[3], double r, const double p[3]) {
    return dg_sp_distance2(p, c) < r * r * (1.0 - 1e-12);
}

/* Grid planes z = lo..hi that atom i's sphere of radius radius + extra may reach. */
DG_SP_INLINE void dg_sp_plane_range(const dg_surface_request *r, int i, double extra, int *lo,
                                    int *hi) {
    const double gz = dg_sp_coordinate(r, 2, r->xyz[3 * i + 2]);
    const double reach = (r->radius[i] + extra) * r->scale + 0.5;
    *lo = (int)fmax(0.0, ceil(gz - reach - 0.5));
    *hi = (int)fmin(r->n - 1.0, floor(gz + reach));
}

/* The disk of atom i's sphere of radius r_max on plane z of the lattice offset by off: dz and the
 * rectangle y0..y1, x0..x1 of points to test.  Returns 0 when the plane misses the sphere. */
DG_SP_INLINE int dg_sp_disk(const dg_surface_request *r, int i, int z, const double off[3],
                            double r_max, double *dz, int box[4]) {
    const double *c = r->xyz + 3 * i;
    const double zpos = dg_sp_position(r, 2, z + off[2]);
    *dz = zpos - c[2];
    if (*dz * *dz >= r_max * r_max) return 0;
    const double disk = sqrt(r_max * r_max - *dz * *dz);
    const double gy = dg_sp_coordinate(r, 1, c[1]) - off[1];
    const double gx = dg_sp_coordinate(r, 0, c[0]) - off[0];
    box[0] = (int)fmax(0.0, ceil(gy - disk * r->scale));
    box[1] = (int)fmin(r->n - 1.0, floor(gy + disk * r->scale));
    box[2] = (int)fmax(0.0, ceil(gx - disk * r->scale));
    box[3] = (int)fmin(r->n - 1.0, floor(gx + disk * r->scale));
    return 1;
}

/* The mark atom i gives point (x, y) of the disk (0, DG_SP_SHELL or DG_SP_INNER). */
DG_SP_INLINE int dg_sp_mark(const dg_surface_request *r, int i, int x, int y, const double off[3],
                            double dz, double r_in, double r_out) {
    const double *c = r->xyz + 3 * i;
    const double dy = dg_sp_position(r, 1, y + off[1]) - c[1];
    const double dx = dg_sp_position(r, 0, x + off[0]) - c[0];
    const double d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= r_in * r_in) return DG_SP_INNER;
    return d2 < r_out * r_out ? DG_SP_SHELL : 0;
}

/* Cells of g that overlap the cube of half-side rad around x (clipped), as the host's
 * cell_list_range; at most 64 per axis as the host's gap table.  Returns 0 when none. */
DG_SP_INLINE int dg_sp_cell_range(const dg_cell_grid *g, const double x[3], double rad, int lo[3],
                                  int hi[3]) {
    for (int a = 0; a < 3; ++a) {
        const double l = floor((x[a] - rad - g->origin[a]) / g->cell);
        const double h = floor((x[a] + rad - g->origin[a]) / g->cell);
        if (h < 0 || l > g->dim[a] - 1) return 0;
        lo[a] = l < 0 ? 0 : (int)l;
        hi[a] = h > g->dim[a] - 1 ? g->dim[a] - 1 : (int)h;
        if (hi[a] - lo[a] >= 64) hi[a] = lo[a] + 63;
    }
    return 1;
}

/* Squared gap from x to cell c of axis a (0 for the cell holding x). */
DG_SP_INLINE double dg_sp_gap2(const dg_cell_grid *g, int a, const double x[3], int c) {
    const double lo = g->origin[a] + c * g->cell, hi = lo + g->cell;
    const double gap = x[a] < lo ? lo - x[a] : x[a] > hi ? x[a] - hi : 0.0;
    return gap * gap;
}

/* The items of row (cy, cz) of g, cells lo..hi, whose cells intersect the ball of squared
 * radius r2 around x, given gyz, the row's squared gap in y and z: the gap grows away from the
 * cell holding x, so those cells form one run a..b whose items are contiguous,
 * items[*begin .. end): the items a visit cell by cell finds, in its order.  Returns end
 * (== *begin when none). */
DG_SP_INLINE int dg_sp_row_items(const dg_cell_grid *g, const double x[3], int lo, int hi, int cy,
                                 int cz, double gyz, double r2, int *begin) {
    int a = lo, b = hi;
    while (a <= b && !(gyz + dg_sp_gap2(g, 0, x, a) < r2))
        ++a;
    while (b > a && !(gyz + dg_sp_gap2(g, 0, x, b) < r2))
        --b;
    *begin = 0;
    if (a > b) return 0;
    const int row = g->dim[0] * (cy + g->dim[1] * cz);
    *begin = g->start[row + a];
    return g->start[row + b + 1];
}

/* p (on atom i's SAS sphere) is outside the SAS spheres of i's neighbours. */
DG_SP_INLINE int dg_sp_accessible(const dg_surface_request *r, int i, const double p[3]) {
    for (int k = r->neighbor_start[i]; k < r->neighbor_start[i + 1]; ++k) {
        const int j = r->neighbors[k];
        const double s = r->sas_radius[j];
        if (dg_sp_distance2(p, r->xyz + 3 * j) < s * s * (1.0 - 1e-12)) return 0;
    }
    return 1;
}

/* Distance from x to the contact probe of atom j if accessible and closer than limit. */
DG_SP_INLINE double dg_sp_contact_gap(const dg_surface_request *r, int j, const double x[3],
                                      double limit) {
    const double *c = r->xyz + 3 * j;
    const double d2 = dg_sp_distance2(x, c), s = r->sas_radius[j];
    const double lo = s - limit, hi = s + limit;
    if (d2 >= hi * hi || (lo > 0 && d2 <= lo * lo) || d2 <= 1e-24) return INFINITY;
    const double d = sqrt(d2);
    double p[3];
    for (int a = 0; a < 3; ++a)
        p[a] = c[a] + (x[a] - c[a]) * s / d;
    if (!dg_sp_accessible(r, j, p)) return INFINITY;
    return fabs(d - s);
}

/* 1 if a shell point x is outside the SES: an accessible probe centre closer than the probe. */
DG_SP_INLINE int dg_sp_shell_outside(const dg_surface_request *r, const double x[3]) {
    if (!r->molecular || r->probe <= 0.0) return 1;
    const double within = r->probe;
    double best = INFINITY;
    int lo[3], hi[3];
    double reach = r->max_sas_radius + within;
    if (dg_sp_cell_range(&r->exposed_atoms, x, reach, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            const double gz = dg_sp_gap2(&r->exposed_atoms, 2, x, cz);
            if (gz >= reach * reach) continue;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                const double gy = gz + dg_sp_gap2(&r->exposed_atoms, 1, x, cy);
                if (gy >= reach * reach) continue;
                int k;
                const int end = dg_sp_row_items(&r->exposed_atoms, x, lo[0], hi[0], cy, cz, gy,
                                                reach * reach, &k);
                for (; k < end; ++k) {
                    const double gap =
                        dg_sp_contact_gap(r, r->exposed_atoms.items[k], x, fmin(within, best));
                    if (!(gap < best)) continue;
                    best = gap;
                    if (best < within) return 1;
                }
            }
        }
    if (r->dot_count && dg_sp_cell_range(&r->dot_cells, x, within, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            const double gz = dg_sp_gap2(&r->dot_cells, 2, x, cz);
            if (gz >= within * within) continue;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                const double gy = gz + dg_sp_gap2(&r->dot_cells, 1, x, cy);
                if (gy >= within * within) continue;
                int k;
                const int end = dg_sp_row_items(&r->dot_cells, x, lo[0], hi[0], cy, cz, gy,
                                                within * within, &k);
                for (; k < end; ++k) {
                    const double d2 = dg_sp_distance2(x, r->dots + 3 * r->dot_cells.items[k]);
                    if (d2 >= best * best || d2 >= within * within) continue;
                    best = sqrt(d2);
                    if (best < within) return 1;
                }
            }
        }
    return best < within;
}

/* Distance from x to the contact probe of atom j if accessible and closer than limit; the
 * probe centre goes to centre whenever accessible (as the host's query does). */
DG_SP_INLINE double dg_sp_contact_centre(const dg_surface_request *r, int j, const double x[3],
                                         double limit, double centre[3]) {
    const double *c = r->xyz + 3 * j;
    const double d2 = dg_sp_distance2(x, c), s = r->sas_radius[j];
    const double lo = s - limit, hi = s + limit;
    if (d2 >= hi * hi || (lo > 0 && d2 <= lo * lo) || d2 <= 1e-24) return INFINITY;
    const double d = sqrt(d2);
    double p[3];
    for (int a = 0; a < 3; ++a)
        p[a] = c[a] + (x[a] - c[a]) * s / d;
    if (!dg_sp_accessible(r, j, p)) return INFINITY;
    for (int a = 0; a < 3; ++a)
        centre[a] = p[a];
    return fabs(d - s);
}

/* The nearest accessible probe centre to x within `within` (exposed atoms' contact probes, then
 * arc dots; the first strictly nearer one wins).  Returns its distance (INFINITY: none). */
DG_SP_INLINE double dg_sp_nearest_probe(const dg_surface_request *r, const double x[3],
                                        double within, double centre[3]) {
    double best = INFINITY;
    int lo[3], hi[3];
    const double reach = r->max_sas_radius + within;
    const dg_cell_grid *g = &r->exposed_atoms;
    if (dg_sp_cell_range(g, x, reach, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            const double gz = dg_sp_gap2(g, 2, x, cz);
            if (!(gz < reach * reach)) continue;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                const double gy = gz + dg_sp_gap2(g, 1, x, cy);
                if (!(gy < reach * reach)) continue;
                int k;
                const int end = dg_sp_row_items(g, x, lo[0], hi[0], cy, cz, gy, reach * reach, &k);
                for (; k < end; ++k) {
                    const double gap =
                        dg_sp_contact_centre(r, g->items[k], x, fmin(within, best), centre);
                    if (gap < best) best = gap;
                }
            }
        }
    g = &r->dot_cells;
    if (r->dot_count && dg_sp_cell_range(g, x, within, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            const double gz = dg_sp_gap2(g, 2, x, cz);
            if (!(gz < within * within)) continue;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                const double gy = gz + dg_sp_gap2(g, 1, x, cy);
                if (!(gy < within * within)) continue;
                int k;
                const int end =
                    dg_sp_row_items(g, x, lo[0], hi[0], cy, cz, gy, within * within, &k);
                for (; k < end; ++k) {
                    const double *dot = r->dots + 3 * g->items[k];
                    const double d2 = dg_sp_distance2(x, dot);
                    if (d2 >= best * best || d2 >= within * within) continue;
                    best = sqrt(d2);
                    for (int a = 0; a < 3; ++a)
                        centre[a] = dot[a];
                }
            }
        }
    return best;
}

/* Onto the sphere (centre c, radius rad) along the ray from c through x. */
DG_SP_INLINE void dg_sp_onto_sphere(const double *c, double rad, const double x[3], double s[3]) {
    const double d = sqrt(dg_sp_distance2(x, c));
    if (d <= 1e-12) {
        s[0] = c[0] + rad, s[1] = c[1], s[2] = c[2];
        return;
    }
    for (int a = 0; a < 3; ++a)
        s[a] = c[a] + (x[a] - c[a]) * rad / d;
}

/* The surface site of x (stages.h, dg_stage_surface_sites_on) and, when owner is not NULL, the
 * atom nearest to x's surface (the least distance minus radius: the site's owner).  Returns 0,
 * or -1 when no atom lies within reach (s = x and *owner = -1 then). */
DG_SP_INLINE int dg_sp_project(const dg_surface_request *r, const double x[3], double reach,
                               double s[3], int *owner) {
    for (int a = 0; a < 3; ++a)
        s[a] = x[a];
    if (reach > 8.0) reach = 8.0;
    int nearest_atom = -1, in_sas = 0;
    double best_atom = INFINITY;
    int lo[3], hi[3];
    const double search = r->max_sas_radius + reach;
    const dg_cell_grid *g = &r->atoms;
    if (dg_sp_cell_range(g, x, search, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            const double gz = dg_sp_gap2(g, 2, x, cz);
            if (!(gz < search * search)) continue;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                const double gy = gz + dg_sp_gap2(g, 1, x, cy);
                if (!(gy < search * search)) continue;
                int k;
                const int end =
                    dg_sp_row_items(g, x, lo[0], hi[0], cy, cz, gy, search * search, &k);
                for (; k < end; ++k) {
                    const int j = g->items[k];
                    const double d = sqrt(dg_sp_distance2(x, r->xyz + 3 * j));
                    if (d - r->radius[j] < best_atom)
                        best_atom = d - r->radius[j], nearest_atom = j;
                    if (d < r->sas_radius[j]) in_sas = 1;
                }
            }
        }
    if (owner) *owner = nearest_atom;
    if (nearest_atom < 0) return -1;
    if (r->molecular && r->probe > 0.0 && in_sas) {
        double centre[3] = {0, 0, 0};
        if (isfinite(dg_sp_nearest_probe(r, x, r->probe + reach, centre))) {
            dg_sp_onto_sphere(centre, r->probe, x, s);
            return 0;
        }
    }
    dg_sp_onto_sphere(r->xyz + 3 * nearest_atom, r->radius[nearest_atom], x, s);
    return 0;
}

#endif /* DG_SURFACE_POINTS_H */
