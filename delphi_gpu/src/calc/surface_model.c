/* Building the surface model: atom spheres, SAS neighbour lists and accessible SAS dots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics_constants.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "surface.h"

void surface_model_free(surface_model *sm) {
    free(sm->atom_index);
    free(sm->xyz);
    free(sm->radius);
    free(sm->sas_radius);
    free(sm->neighbor_start);
    free(sm->neighbors);
    free(sm->dots);
    free(sm->exposed);
    cell_list_free(&sm->atoms);
    cell_list_free(&sm->exposed_atoms);
    cell_list_free(&sm->dot_cells);
    memset(sm, 0, sizeof *sm);
}

static double distance2(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Atoms j != i whose SAS spheres intersect atom i's; two passes (count, fill) over the cells. */
static int build_neighbors(surface_model *sm) {
    sm->neighbor_start = calloc((size_t)sm->count + 1, sizeof *sm->neighbor_start);
    if (!sm->neighbor_start) return -1;
    for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(dynamic, 64)
        for (int i = 0; i < sm->count; ++i) {
            const double *ci = sm->xyz + 3 * i;
            int lo[3], hi[3], found = 0;
            int slot = pass ? sm->neighbor_start[i] : 0;
            const double reach = sm->sas_radius[i] + sm->max_sas_radius;
            if (cell_list_range(&sm->atoms, ci, reach, lo, hi))
                for (int cz = lo[2]; cz <= hi[2]; ++cz)
                    for (int cy = lo[1]; cy <= hi[1]; ++cy)
                        for (int cx = lo[0]; cx <= hi[0]; ++cx) {
                            const int c = cell_list_index(&sm->atoms, cx, cy, cz);
                            for (int k = sm->atoms.start[c]; k < sm->atoms.start[c + 1]; ++k) {
                                const int j = sm->atoms.items[k];
                                const double rr = sm->sas_radius[i] + sm->sas_radius[j];
                                if (j == i || distance2(ci, sm->xyz + 3 * j) >= rr * rr) continue;
                                if (pass) sm->neighbors[slot++] = j;
                                ++found;
                            }
                        }
            if (!pass) sm->neighbor_start[i + 1] = found;
        }
        if (!pass) {
            for (int i = 0; i < sm->count; ++i)
                sm->neighbor_start[i + 1] += sm->neighbor_start[i];
            sm->neighbors = malloc(((size_t)sm->neighbor_start[sm->count] + 1) * sizeof(int));
            if (!sm->neighbors) return -1;
        }
    }
    /* Deepest overlap first: the neighbour most likely to bury a point is tried first. */
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < sm->count; ++i) {
        int *list = sm->neighbors + sm->neighbor_start[i];
        const int len = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
        for (int a = 1; a < len; ++a) {
            const int j = list[a];
            const double key =
                sqrt(distance2(sm->xyz + 3 * i, sm->xyz + 3 * j)) - sm->sas_radius[j];
            int b = a - 1;
            while (b >= 0 && sqrt(distance2(sm->xyz + 3 * i, sm->xyz + 3 * list[b])) -
                                     sm->sas_radius[list[b]] >
                                 key)
                list[b + 1] = list[b], --b;
            list[b + 1] = j;
        }
    }
    return 0;
}

int surface_accessible_near(const surface_model *sm, int i, int skip, const double p[3]) {
    for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1]; ++k) {
        const int j = sm->neighbors[k];
        const double r = sm->sas_radius[j];
        if (j != skip && distance2(p, sm->xyz + 3 * j) < r * r * (1.0 - 1e-12)) return 0;
    }
    return 1;
}

/* Circle where the SAS spheres of atoms i and j meet: centre m, radius rho, unit vectors e1, e2
 * spanning its plane.  Returns 0 when the spheres do not cross (apart, or one inside the other). */
static int sas_circle(const surface_model *sm, int i, int j, double m[3], double *rho, double e1[3],
                      double e2[3]) {
    const double *ci = sm->xyz + 3 * i, *cj = sm->xyz + 3 * j;
    const double ri = sm->sas_radius[i], rj = sm->sas_radius[j];
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

/* Accessible dots on the SAS intersection circles (arcs and, at their ends, the vertices):
 * per atom pair i < j, count, prefix sums, fill (both passes in parallel over i). */
static int build_dots(surface_model *sm, double spacing) {
    int *first = calloc((size_t)sm->count + 1, sizeof *first);
    if (!first) return -1;
    for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(dynamic, 16)
        for (int i = 0; i < sm->count; ++i) {
            int kept = 0;
            for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1]; ++k) {
                const int j = sm->neighbors[k];
                double m[3], rho, e1[3], e2[3];
                if (j < i || !sas_circle(sm, i, j, m, &rho, e1, e2)) continue;
                int n = (int)ceil(2.0 * M_PI * rho / spacing);
                if (n < 8) n = 8;
                for (int t = 0; t < n; ++t) {
                    const double angle = 2.0 * M_PI * t / n, c = cos(angle), s = sin(angle);
                    double p[3];
                    for (int a = 0; a < 3; ++a)
                        p[a] = m[a] + rho * (c * e1[a] + s * e2[a]);
                    if (!surface_accessible_near(sm, i, j, p)) continue;
                    if (pass) memcpy(sm->dots + 3 * (first[i] + kept), p, sizeof p);
                    ++kept;
                }
            }
            if (!pass) first[i + 1] = kept;
        }
        if (!pass) {
            for (int i = 0; i < sm->count; ++i)
                first[i + 1] += first[i];
            sm->dot_count = first[sm->count];
            sm->dots = malloc(((size_t)sm->dot_count + 1) * 3 * sizeof(double));
            if (!sm->dots) {
                free(first);
                return -1;
            }
        }
    }
    free(first);
    return cell_list_build(&sm->dot_cells, sm->dots, sm->dot_count,
                           fmax(SURFACE_DOT_CELL, 0.25 * sm->probe));
}

/* Point k of n on a unit sphere (golden-angle spiral: near-uniform spacing). */
static void spiral_point(int k, int n, double u[3]) {
    const double golden_angle = M_PI * (3.0 - sqrt(5.0));
    const double z = 1.0 - (2.0 * k + 1.0) / n;
    const double r = sqrt(fmax(0.0, 1.0 - z * z));
    u[0] = r * cos(golden_angle * k), u[1] = r * sin(golden_angle * k), u[2] = z;
}

/* exposed[i] = 1 when some of atom i's SAS sphere is accessible: an accessible arc dot on it,
 * or an accessible point among a sample of its sphere (for spheres without arcs).  Buried
 * atoms cannot offer a contact probe, so the queries skip them. */
static int mark_exposed(surface_model *sm) {
    sm->exposed = calloc((size_t)sm->count + 1, 1);
    if (!sm->exposed) return -1;
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < sm->count; ++i) {
        const double r = sm->sas_radius[i];
        int exposed = 0;
        /* an arc dot of i lies on i's sphere */
        int lo[3], hi[3];
        const double *c = sm->xyz + 3 * i;
        if (sm->dot_count && cell_list_range(&sm->dot_cells, c, r, lo, hi))
            for (int cz = lo[2]; cz <= hi[2] && !exposed; ++cz)
                for (int cy = lo[1]; cy <= hi[1] && !exposed; ++cy)
                    for (int cx = lo[0]; cx <= hi[0] && !exposed; ++cx) {
                        const int cell = cell_list_index(&sm->dot_cells, cx, cy, cz);
                        for (int k = sm->dot_cells.start[cell]; k < sm->dot_cells.start[cell + 1];
                             ++k)
                            if (fabs(sqrt(distance2(c, sm->dots + 3 * sm->dot_cells.items[k])) -
                                     r) < 1e-9 * r) {
                                exposed = 1;
                                break;
                            }
                    }
        const int samples = 4 + (int)ceil(4.0 * M_PI * r * r / 0.25);
        for (int k = 0; k < samples && !exposed; ++k) {
            double u[3], p[3];
            spiral_point(k, samples, u);
            for (int a = 0; a < 3; ++a)
                p[a] = c[a] + r * u[a];
            exposed = surface_accessible_near(sm, i, -1, p);
        }
        sm->exposed[i] = (unsigned char)exposed;
    }
    return 0;
}

int surface_model_build(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                        double dot_spacing, char *msg, size_t msg_size) {
    memset(sm, 0, sizeof *sm);
    sm->kind = kind;
    sm->probe = kind == DG_SURFACE_MOLECULAR ? probe : 0.0;
    if (!(sm->probe >= 0.0 && isfinite(sm->probe))) {
        snprintf(msg, msg_size, "probe radius %g must be >= 0", probe);
        return -1;
    }
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (!isfinite(a->radius) || a->radius < 0.0 || !isfinite(a->x) || !isfinite(a->y) ||
            !isfinite(a->z)) {
            snprintf(msg, msg_size, "atom %zu has radius %g (must be >= 0)", i + 1, a->radius);
            return -1;
        }
        if (a->radius > 0.0) sm->count++;
    }
    const size_t n = (size_t)sm->count + 1;
    sm->atom_index = malloc(n * sizeof(int));
    sm->xyz = malloc(3 * n * sizeof(double));
    sm->radius = malloc(n * sizeof(double));
    sm->sas_radius = malloc(n * sizeof(double));
    if (!sm->atom_index || !sm->xyz || !sm->radius || !sm->sas_radius) goto out_of_memory;
    int k = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (!(a->radius > 0.0)) continue;
        sm->atom_index[k] = (int)i;
        sm->xyz[3 * k] = a->x, sm->xyz[3 * k + 1] = a->y, sm->xyz[3 * k + 2] = a->z;
        sm->radius[k] = a->radius;
        sm->sas_radius[k] = a->radius + sm->probe;
        if (a->radius > sm->max_radius) sm->max_radius = a->radius;
        if (sm->sas_radius[k] > sm->max_sas_radius) sm->max_sas_radius = sm->sas_radius[k];
        ++k;
    }
    const double cell = fmax(0.5 * sm->max_sas_radius, SURFACE_DOT_CELL);
    if (cell_list_build(&sm->atoms, sm->xyz, sm->count, cell) != 0) goto out_of_memory;
    if (build_neighbors(sm) != 0) goto out_of_memory;
    if (sm->probe > 0.0 && build_dots(sm, dot_spacing) != 0) goto out_of_memory;
    if (mark_exposed(sm) != 0) goto out_of_memory;
    if (cell_list_build_subset(&sm->exposed_atoms, sm->xyz, sm->count, cell, sm->exposed) != 0)
        goto out_of_memory;
    return 0;
out_of_memory:
    surface_model_free(sm);
    snprintf(msg, msg_size, "out of memory building the surface model");
    return -1;
}
