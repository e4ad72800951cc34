/* Marking the medium plane by plane: each grid plane lists the atoms whose spheres reach it,
 * so a thread owns a plane and writes no shared byte. */
#include "medium.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_calc.h"
#include "solver_internal.h"
#include "stages.h"

/* Atoms per grid plane (CSR), for spheres of radius radius + extra, planes offset by 0 or 1/2. */
typedef struct plane_lists {
    int *start; /* [n+1] */
    int *atoms;
} plane_lists;

static void plane_range(const surface_model *sm, const grid_spec *g, int i, double extra, int *lo,
                        int *hi) {
    const double gz = grid_coordinate(g, 2, sm->xyz[3 * i + 2]);
    const double reach = (sm->radius[i] + extra) * g->scale + 0.5;
    *lo = (int)fmax(0.0, ceil(gz - reach - 0.5));
    *hi = (int)fmin(g->n - 1.0, floor(gz + reach));
}

static int plane_lists_build(plane_lists *pl, const surface_model *sm, const grid_spec *g,
                             double extra) {
    pl->start = calloc((size_t)g->n + 2, sizeof(int));
    if (!pl->start) return -1;
    size_t total = 0;
    for (int i = 0; i < sm->count; ++i) {
        int lo, hi;
        plane_range(sm, g, i, extra, &lo, &hi);
        for (int z = lo; z <= hi; ++z)
            pl->start[z + 1]++, ++total;
    }
    for (int z = 0; z < g->n; ++z)
        pl->start[z + 1] += pl->start[z];
    pl->atoms = malloc((total + 1) * sizeof(int));
    int *fill = malloc(((size_t)g->n + 1) * sizeof(int));
    if (!pl->atoms || !fill) {
        free(fill);
        return -1;
    }
    memcpy(fill, pl->start, (size_t)g->n * sizeof(int));
    for (int i = 0; i < sm->count; ++i) {
        int lo, hi;
        plane_range(sm, g, i, extra, &lo, &hi);
        for (int z = lo; z <= hi; ++z)
            pl->atoms[fill[z]++] = i;
    }
    free(fill);
    return 0;
}

/* Within one plane of a lattice offset by `off` (grid units), raise marks to `inner_mark` inside
 * spheres of radius radius + inner_extra and to `outer_mark` inside radius + outer_extra. */
static void mark_plane(unsigned char *plane, const surface_model *sm, const grid_spec *g,
                       const plane_lists *pl, int z, const double off[3], double inner_extra,
                       unsigned char inner_mark, double outer_extra, unsigned char outer_mark) {
    const int n = g->n;
    const double zpos = grid_position(g, 2, z + off[2]);
    for (int k = pl->start[z]; k < pl->start[z + 1]; ++k) {
        const int i = pl->atoms[k];
        const double *c = sm->xyz + 3 * i;
        const double r_in = sm->radius[i] + inner_extra, r_out = sm->radius[i] + outer_extra;
        const double r_max = fmax(r_in, r_out);
        const double dz = zpos - c[2];
        if (dz * dz >= r_max * r_max) continue;
        const double disk = sqrt(r_max * r_max - dz * dz);
        const double gy = grid_coordinate(g, 1, c[1]) - off[1];
        const double gx = grid_coordinate(g, 0, c[0]) - off[0];
        const int y0 = (int)fmax(0.0, ceil(gy - disk * g->scale));
        const int y1 = (int)fmin(n - 1.0, floor(gy + disk * g->scale));
        const int x0 = (int)fmax(0.0, ceil(gx - disk * g->scale));
        const int x1 = (int)fmin(n - 1.0, floor(gx + disk * g->scale));
        /* Distances from positions, as surface_point_inside computes them, so both agree to
           the last bit on points that lie exactly on a sphere. */
        for (int y = y0; y <= y1; ++y) {
            const double dy = grid_position(g, 1, y + off[1]) - c[1];
            unsigned char *row = plane + (size_t)n * y;
            for (int x = x0; x <= x1; ++x) {
                const double dx = grid_position(g, 0, x + off[0]) - c[0];
                const double d2 = dx * dx + dy * dy + dz * dz;
                if (d2 <= r_in * r_in) {
                    if (row[x] < inner_mark) row[x] = inner_mark;
                } else if (d2 < r_out * r_out && row[x] < outer_mark) {
                    row[x] = outer_mark;
                }
            }
        }
    }
}

enum { MARK_FAR = 0, MARK_SHELL = 1, MARK_VDW = 2 };

/* One face set: vdW and SAS marks, then the shell resolved against the SES. */
static void mark_face_set(medium_maps *m, int axis, const surface_model *sm, const grid_spec *g,
                          const plane_lists *pl) {
    const int n = g->n;
    const size_t plane_size = (size_t)n * n;
    double off[3] = {0, 0, 0};
    off[axis] = 0.5;
    size_t solute = 0, shell = 0, reentrant = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : solute, shell, reentrant)
    for (int z = 0; z < n; ++z) {
        unsigned char *plane = m->face[axis] + plane_size * z;
        surface_hint hint = {-1, -1};
        mark_plane(plane, sm, g, pl, z, off, 0.0, MARK_VDW, sm->probe, MARK_SHELL);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                unsigned char *v = plane + (size_t)n * y + x;
                if (*v == MARK_SHELL) {
                    const double p[3] = {grid_position(g, 0, x + off[0]),
                                         grid_position(g, 1, y + off[1]),
                                         grid_position(g, 2, z + off[2])};
                    ++shell;
                    const int inside = !surface_shell_point_outside(sm, p, &hint);
                    reentrant += (size_t)inside;
                    *v = inside ? MEDIUM_SOLUTE : MEDIUM_SOLVENT;
                } else {
                    *v = *v == MARK_VDW ? MEDIUM_SOLUTE : MEDIUM_SOLVENT;
                }
                solute += *v;
            }
    }
    m->solute_faces[axis] = solute;
    m->shell_points += shell;
    m->reentrant_points += reentrant;
}

static void mark_ions(medium_maps *m, const surface_model *sm, const grid_spec *g,
                      const plane_lists *pl, double ion_radius) {
    const int n = g->n;
    const size_t plane_size = (size_t)n * n;
    const double off[3] = {0, 0, 0};
    size_t open = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : open)
    for (int z = 0; z < n; ++z) {
        unsigned char *plane = m->ion_accessible + plane_size * z;
        mark_plane(plane, sm, g, pl, z, off, ion_radius, 1, ion_radius, 1);
        for (size_t p = 0; p < plane_size; ++p) {
            plane[p] = !plane[p];
            open += plane[p];
        }
    }
    m->ion_accessible_points = open;
}

void medium_free(medium_maps *m) {
    for (int a = 0; a < 3; ++a)
        free(m->face[a]);
    free(m->ion_accessible);
    memset(m, 0, sizeof *m);
}

int medium_build(const surface_model *sm, const grid_spec *g, int ion_map, double ion_radius,
                 medium_maps *m, char *msg, size_t msg_size) {
    memset(m, 0, sizeof *m);
    m->n = g->n;
    const size_t points = grid_points(g);
    for (int a = 0; a < 3; ++a)
        m->face[a] = calloc(points, 1);
    if (ion_map) m->ion_accessible = calloc(points, 1);
    plane_lists pl = {0};
    const double reach = fmax(sm->probe, ion_map ? ion_radius : 0.0);
    int ok = m->face[0] && m->face[1] && m->face[2] && (!ion_map || m->ion_accessible) &&
             plane_lists_build(&pl, sm, g, reach) == 0;
    if (ok) {
        for (int a = 0; a < 3; ++a)
            mark_face_set(m, a, sm, g, &pl);
        if (ion_map) mark_ions(m, sm, g, &pl, ion_radius);
    }
    free(pl.start);
    free(pl.atoms);
    if (!ok) {
        medium_free(m);
        snprintf(msg, msg_size, "out of memory marking the dielectric medium (%d^3 grid)", g->n);
        return -1;
    }
    return 0;
}

static dg_cell_grid cell_grid_of(const cell_list *cl) {
    dg_cell_grid g = {{cl->origin[0], cl->origin[1], cl->origin[2]},
                      cl->cell,
                      {cl->dim[0], cl->dim[1], cl->dim[2]},
                      cl->start,
                      cl->items};
    return g;
}

void medium_surface_request(const surface_model *sm, const grid_spec *g, int ion_map,
                            double ion_radius, dg_surface_request *r) {
    memset(r, 0, sizeof *r);
    r->n = g->n, r->scale = g->scale;
    for (int a = 0; a < 3; ++a)
        r->center[a] = g->center[a];
    r->count = sm->count, r->xyz = sm->xyz, r->radius = sm->radius;
    r->sas_radius = sm->sas_radius, r->max_radius = sm->max_radius;
    r->max_sas_radius = sm->max_sas_radius, r->probe = sm->probe;
    r->molecular = sm->kind == DG_SURFACE_MOLECULAR;
    r->neighbor_start = sm->neighbor_start, r->neighbors = sm->neighbors;
    r->atoms = cell_grid_of(&sm->atoms);
    r->exposed_atoms = cell_grid_of(&sm->exposed_atoms);
    r->dot_count = sm->dot_count, r->dots = sm->dots, r->dot_cells = cell_grid_of(&sm->dot_cells);
    r->ion_map = ion_map, r->ion_radius = ion_radius;
}

int medium_build_on(dg_solver solver, const surface_model *sm, const grid_spec *g, int ion_map,
                    double ion_radius, medium_maps *m, char *msg, size_t msg_size) {
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(solver, &ops, &state);
    if (!ops || ops == &dg_cpu_backend_ops)
        return medium_build(sm, g, ion_map, ion_radius, m, msg, msg_size) == 0
                   ? DG_OK
                   : DG_ERR_OUT_OF_MEMORY;
    memset(m, 0, sizeof *m);
    m->n = g->n;
    const size_t points = grid_points(g);
    for (int a = 0; a < 3; ++a)
        m->face[a] = malloc(points);
    if (ion_map) m->ion_accessible = malloc(points);
    if (!m->face[0] || !m->face[1] || !m->face[2] || (ion_map && !m->ion_accessible)) {
        medium_free(m);
        snprintf(msg, msg_size, "out of memory marking the dielectric medium (%d^3 grid)", g->n);
        return DG_ERR_OUT_OF_MEMORY;
    }
    dg_surface_request r;
    medium_surface_request(sm, g, ion_map, ion_radius, &r);
    dg_medium_counts counts;
    const int st =
        dg_stage_medium_maps_on(solver, &r, m->face, m->ion_accessible, &counts, msg, msg_size);
    if (st != DG_OK) {
        medium_free(m);
        return st;
    }
    for (int a = 0; a < 3; ++a)
        m->solute_faces[a] = counts.solute_faces[a];
    m->shell_points = counts.shell_points, m->reentrant_points = counts.reentrant_points;
    m->ion_accessible_points = counts.ion_accessible_points;
    return DG_OK;
}

void medium_periodic_mismatch(const medium_maps *m, int periodic, long mismatch[3],
                              long compared[3]) {
    const long n = m->n, step[3] = {1, n, n * n};
    for (int a = 0; a < 3; ++a) {
        mismatch[a] = compared[a] = 0;
        if (!(periodic & (1 << a))) continue;
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        for (long i = 1; i < n - 1; ++i)
            for (long j = 1; j < n - 1; ++j) {
                const long base = i * step[b] + j * step[c];
                /* (plane, image plane): 0 and n-2, n-1 and 1 */
                const long planes[2][2] = {{0, n - 2}, {n - 1, 1}};
                for (int k = 0; k < 2; ++k) {
                    const long p = base + planes[k][0] * step[a], q = base + planes[k][1] * step[a];
                    for (int f = 0; f < 3; ++f) {
                        if (f == a && k == 1) continue; /* face a beyond the last plane */
                        compared[a]++;
                        mismatch[a] += m->face[f][p] != m->face[f][q];
                    }
                    if (m->ion_accessible) {
                        compared[a]++;
                        mismatch[a] += m->ion_accessible[p] != m->ion_accessible[q];
                    }
                }
            }
    }
}
