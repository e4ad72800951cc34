/* Building the surface model: atom spheres, SAS neighbour lists and accessible SAS dots. */
#include <limits.h>
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

/* Atoms j != i whose SAS spheres intersect atom i's: one search per atom (in parallel) into a
 * list of its own, then the lists in atom order (CSR).  Returns 0, -1 when out of memory, 1 when
 * an atom has more than SURFACE_MAX_NEIGHBORS neighbours (msg says which; counting stops there,
 * so many atoms at one point fail fast). */
static int build_neighbors(surface_model *sm, char *msg, size_t msg_size) {
    sm->neighbor_start = calloc((size_t)sm->count + 1, sizeof *sm->neighbor_start);
    int **own = calloc((size_t)sm->count + 1, sizeof *own);
    if (!sm->neighbor_start || !own) {
        free(own);
        return -1;
    }
    int crowded = -1, any_crowded = 0, failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        int *found_list = malloc(((size_t)SURFACE_MAX_NEIGHBORS + 1) * sizeof *found_list);
        failed = !found_list;
#pragma omp for schedule(dynamic, 64)
        for (int i = 0; i < sm->count; ++i) {
            int stop;
#pragma omp atomic read
            stop = any_crowded;
            if (stop || !found_list) continue; /* the build fails anyway: no more counting */
            const double *ci = sm->xyz + 3 * i;
            int lo[3], hi[3], found = 0;
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
                                if (found < SURFACE_MAX_NEIGHBORS) found_list[found] = j;
                                if (++found > SURFACE_MAX_NEIGHBORS) {
#pragma omp atomic write
                                    any_crowded = 1;
                                    goto counted;
                                }
                            }
                        }
        counted:
            sm->neighbor_start[i + 1] = found;
            if (found > 0 && found <= SURFACE_MAX_NEIGHBORS) {
                own[i] = malloc((size_t)found * sizeof **own);
                if (own[i])
                    memcpy(own[i], found_list, (size_t)found * sizeof **own);
                else
                    failed = 1;
            }
        }
        free(found_list);
    }
    /* Prefix sums in 64 bits: the total must fit the int offsets. */
    long long total = 0;
    for (int i = 0; i < sm->count && crowded < 0 && !failed; ++i) {
        if (sm->neighbor_start[i + 1] > SURFACE_MAX_NEIGHBORS) crowded = i;
        total += sm->neighbor_start[i + 1];
        if (total >= INT_MAX) crowded = i;
        sm->neighbor_start[i + 1] = (int)total;
    }
    if (!failed && crowded < 0) {
        sm->neighbors = malloc(((size_t)total + 1) * sizeof(int));
        failed = !sm->neighbors;
    }
    if (!failed && crowded < 0) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < sm->count; ++i)
            if (own[i])
                memcpy(sm->neighbors + sm->neighbor_start[i], own[i],
                       (size_t)(sm->neighbor_start[i + 1] - sm->neighbor_start[i]) * sizeof(int));
    }
    for (int i = 0; i < sm->count; ++i)
        free(own[i]);
    free(own);
    if (failed) return -1;
    if (crowded >= 0) {
        const double *c = sm->xyz + 3 * crowded;
        snprintf(msg, msg_size,
                 "atom %d (at %.3f %.3f %.3f) has more than %d atoms within reach of its "
                 "surface (the limit; overlapping copies of atoms?)",
                 sm->atom_index[crowded] + 1, c[0], c[1], c[2], SURFACE_MAX_NEIGHBORS);
        return 1;
    }
    /* Deepest overlap first: the neighbour most likely to bury a point is tried first (an
       insertion sort on keys computed once per neighbour: a stable order). */
    int longest = 0;
    for (int i = 0; i < sm->count; ++i)
        if (sm->neighbor_start[i + 1] - sm->neighbor_start[i] > longest)
            longest = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
#pragma omp parallel reduction(| : failed)
    {
        double *keys = malloc(((size_t)longest + 1) * sizeof *keys);
        failed = !keys;
#pragma omp for schedule(dynamic, 64)
        for (int i = 0; i < sm->count; ++i) {
            if (!keys) continue;
            int *list = sm->neighbors + sm->neighbor_start[i];
            const int len = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
            for (int a = 0; a < len; ++a) {
                const int j = list[a];
                const double key =
                    sqrt(distance2(sm->xyz + 3 * i, sm->xyz + 3 * j)) - sm->sas_radius[j];
                int b = a - 1;
                while (b >= 0 && keys[b] > key)
                    list[b + 1] = list[b], keys[b + 1] = keys[b], --b;
                list[b + 1] = j, keys[b + 1] = key;
            }
        }
        free(keys);
    }
    if (failed) return -1;
    return 0;
}

/* p lies inside atom j's SAS sphere (the accessibility test's expression). */
static inline int sas_covers(const surface_model *sm, int j, const double p[3]) {
    const double r = sm->sas_radius[j];
    return distance2(p, sm->xyz + 3 * j) < r * r * (1.0 - 1e-12);
}

/* The first neighbour of i other than skip whose SAS sphere covers p, or -1 (p accessible). */
static int covering_neighbor(const surface_model *sm, int i, int skip, const double p[3]) {
    for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1]; ++k) {
        const int j = sm->neighbors[k];
        if (j != skip && sas_covers(sm, j, p)) return j;
    }
    return -1;
}

/* surface_accessible_near with a hint: the neighbour that covered the previous point of a
 * sequence (nearby points are mostly covered by the same atom) is tried first and updated.  The
 * answer is the same: the hint is a neighbour of i other than skip (-1: none yet). */
static int accessible_hinted(const surface_model *sm, int i, int skip, const double p[3],
                             int *hint) {
    if (*hint >= 0 && sas_covers(sm, *hint, p)) return 0;
    const int j = covering_neighbor(sm, i, skip, p);
    if (j < 0) return 1;
    *hint = j;
    return 0;
}

int surface_accessible_near(const surface_model *sm, int i, int skip, const double p[3]) {
    return covering_neighbor(sm, i, skip, p) < 0;
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

/* cos and sin of 2 pi t / n for t < n (n >= 1), each computed once: [2 n] doubles, or NULL
 * when out of memory. */
static double *circle_angles(int n) {
    double *cs = malloc(((size_t)n + 1) * 2 * sizeof *cs);
    if (!cs) return NULL;
    for (int t = 0; t < n; ++t) {
        const double angle = 2.0 * M_PI * t / n;
        cs[2 * t] = cos(angle), cs[2 * t + 1] = sin(angle);
    }
    return cs;
}

/* Accessible dots on the SAS intersection circles (arcs and, at their ends, the vertices):
 * per atom i (in parallel) over its pairs i < j into a list of its own, then the lists in atom
 * order (one pass of the accessibility tests).  Every circle gets circle_dots equally spaced
 * angles, whatever its radius (as DelPhi samples its circles: see surface.h). */
static int build_dots(surface_model *sm, int circle_dots) {
    const int n = circle_dots > 8 ? circle_dots : 8;
    double *cs = circle_angles(n);
    int *first = calloc((size_t)sm->count + 1, sizeof *first);
    double **own = calloc((size_t)sm->count + 1, sizeof *own);
    int failed = !first || !own || !cs;
    if (!failed) {
#pragma omp parallel for schedule(dynamic, 16) reduction(| : failed)
        for (int i = 0; i < sm->count; ++i) {
            int kept = 0, capacity = 0;
            double *list = NULL;
            for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1] && !failed; ++k) {
                const int j = sm->neighbors[k];
                double m[3], rho, e1[3], e2[3];
                if (j < i || !sas_circle(sm, i, j, m, &rho, e1, e2)) continue;
                int hint = -1; /* per circle: a neighbour of i other than j */
                for (int t = 0; t < n; ++t) {
                    const double c = cs[2 * t], s = cs[2 * t + 1];
                    double p[3];
                    for (int a = 0; a < 3; ++a)
                        p[a] = m[a] + rho * (c * e1[a] + s * e2[a]);
                    if (!accessible_hinted(sm, i, j, p, &hint)) continue;
                    if (kept == capacity) {
                        capacity = capacity ? 2 * capacity : 64;
                        double *grown = realloc(list, (size_t)capacity * 3 * sizeof *grown);
                        if (!grown) {
                            failed = 1;
                            break;
                        }
                        list = grown;
                    }
                    memcpy(list + 3 * kept++, p, sizeof p);
                }
            }
            own[i] = list;
            first[i + 1] = kept;
        }
    }
    if (!failed) {
        long long total = 0; /* 64 bits: the dot count must fit the int offsets */
        for (int i = 0; i < sm->count && !failed; ++i) {
            total += first[i + 1];
            failed = total > INT_MAX / 3;
            first[i + 1] = (int)total;
        }
    }
    if (!failed) {
        sm->dot_count = first[sm->count];
        sm->dots = malloc(((size_t)sm->dot_count + 1) * 3 * sizeof(double));
        failed = !sm->dots;
    }
    for (int i = 0; own && i < sm->count; ++i) {
        if (!failed && own[i])
            memcpy(sm->dots + 3 * (size_t)first[i], own[i],
                   (size_t)(first[i + 1] - first[i]) * 3 * sizeof(double));
        free(own[i]);
    }
    free(first), free(own), free(cs);
    if (failed) return -1;
    return cell_list_build(&sm->dot_cells, sm->dots, sm->dot_count,
                           fmax(SURFACE_DOT_CELL, 0.25 * sm->probe));
}

/* Point k of n on a unit sphere (golden-angle spiral: near-uniform spacing); turn holds
 * cos and sin of the golden angle times k (spiral_turns). */
static void spiral_point(int k, int n, const double turn[2], double u[3]) {
    const double z = 1.0 - (2.0 * k + 1.0) / n;
    const double r = sqrt(fmax(0.0, 1.0 - z * z));
    u[0] = r * turn[0], u[1] = r * turn[1], u[2] = z;
}

/* cos and sin of the golden angle times k, k < count (the same for every sphere). */
static double *spiral_turns(int count) {
    double *turns = malloc(((size_t)count + 1) * 2 * sizeof *turns);
    if (!turns) return NULL;
    const double golden_angle = M_PI * (3.0 - sqrt(5.0));
    for (int k = 0; k < count; ++k)
        turns[2 * k] = cos(golden_angle * k), turns[2 * k + 1] = sin(golden_angle * k);
    return turns;
}

/* exposed[i] = 1 when some of atom i's SAS sphere is accessible: an accessible arc dot on it,
 * or an accessible point among a sample of its sphere (for spheres without arcs).  Buried
 * atoms cannot offer a contact probe, so the queries skip them. */
static int mark_exposed(surface_model *sm) {
    sm->exposed = calloc((size_t)sm->count + 1, 1);
    const double largest = sm->max_sas_radius;
    const int max_samples = 4 + (int)ceil(4.0 * M_PI * largest * largest / 0.25);
    double *turns = spiral_turns(max_samples);
    if (!sm->exposed || !turns) {
        free(turns);
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < sm->count; ++i) {
        const double r = sm->sas_radius[i];
        int exposed = 0;
        /* an arc dot of i lies on i's sphere */
        int lo[3], hi[3];
        const double *c = sm->xyz + 3 * i;
        if (sm->dot_count && cell_list_range(&sm->dot_cells, c, r, lo, hi))
            for (int cz = lo[2]; cz <= hi[2] && !exposed; ++cz)
                for (int cy = lo[1]; cy <= hi[1] && !exposed; ++cy) {
                    /* the cells lo[0]..hi[0] of a row hold one contiguous run of items */
                    const int *start = sm->dot_cells.start;
                    const int end = start[cell_list_index(&sm->dot_cells, hi[0], cy, cz) + 1];
                    for (int k = start[cell_list_index(&sm->dot_cells, lo[0], cy, cz)]; k < end;
                         ++k)
                        if (fabs(sqrt(distance2(c, sm->dots + 3 * sm->dot_cells.items[k])) - r) <
                            1e-9 * r) {
                            exposed = 1;
                            break;
                        }
                }
        const int samples = 4 + (int)ceil(4.0 * M_PI * r * r / 0.25);
        int hint = -1;
        for (int k = 0; k < samples && !exposed; ++k) {
            double u[3], p[3];
            spiral_point(k, samples, turns + 2 * k, u);
            for (int a = 0; a < 3; ++a)
                p[a] = c[a] + r * u[a];
            exposed = accessible_hinted(sm, i, -1, p, &hint);
        }
        sm->exposed[i] = (unsigned char)exposed;
    }
    free(turns);
    return 0;
}

int surface_model_build(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                        int circle_dots, char *msg, size_t msg_size) {
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
    const int neighbors = build_neighbors(sm, msg, msg_size);
    if (neighbors > 0) {
        surface_model_free(sm);
        return -1;
    }
    if (neighbors != 0) goto out_of_memory;
    if (sm->probe > 0.0 && build_dots(sm, circle_dots) != 0) goto out_of_memory;
    if (mark_exposed(sm) != 0) goto out_of_memory;
    if (cell_list_build_subset(&sm->exposed_atoms, sm->xyz, sm->count, cell, sm->exposed) != 0)
        goto out_of_memory;
    return 0;
out_of_memory:
    surface_model_free(sm);
    snprintf(msg, msg_size, "out of memory building the surface model");
    return -1;
}
