/* The medium maps (stages.h): the host implementation and the dispatch to the solve's backend.
 * Two passes per map: atoms mark the points of their spheres (surface_points.h), then every
 * point is resolved, the shell points against the solvent-excluded surface. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../solver_internal.h"
#include "surface_points.h"

/* Marks of every atom's spheres (radius + inner, radius + outer) on one lattice. */
static void mark_atoms(const dg_surface_request *r, const double off[3], double inner, double outer,
                       double plane_extra, unsigned char *marks, int threads) {
    const size_t points = (size_t)r->n * r->n * r->n;
    memset(marks, 0, points);
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int i = 0; i < r->count; ++i) {
        int lo, hi, box[4];
        dg_sp_plane_range(r, i, plane_extra, &lo, &hi);
        const double r_in = r->radius[i] + inner, r_out = r->radius[i] + outer;
        const double r_max = fmax(r_in, r_out);
        for (int z = lo; z <= hi; ++z) {
            double dz;
            if (!dg_sp_disk(r, i, z, off, r_max, &dz, box)) continue;
            for (int y = box[0]; y <= box[1]; ++y)
                for (int x = box[2]; x <= box[3]; ++x) {
                    const int m = dg_sp_mark(r, i, x, y, off, dz, r_in, r_out);
                    if (!m) continue;
                    unsigned char *v = marks + x + (size_t)r->n * (y + (size_t)r->n * z);
#pragma omp atomic
                    *v |= (unsigned char)m;
                }
        }
    }
}

void dg_medium_maps_host(const dg_surface_request *r, unsigned char *face[3], unsigned char *ion,
                         dg_medium_counts *counts, int num_threads) {
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    const long n = r->n;
    const long points = n * n * n;
    const double plane_extra = fmax(r->probe, r->ion_map ? r->ion_radius : 0.0);
    memset(counts, 0, sizeof *counts);
    for (int a = 0; a < 3; ++a) {
        double off[3] = {0, 0, 0};
        off[a] = 0.5;
        unsigned char *m = face[a];
        mark_atoms(r, off, 0.0, r->probe, plane_extra, m, threads);
        size_t solute = 0, shell = 0, reentrant = 0;
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads) \
    reduction(+ : solute, shell, reentrant)
        for (long w = 0; w < points; ++w) {
            int v = m[w];
            if (v & DG_SP_INNER) {
                v = 1;
            } else if (v & DG_SP_SHELL) {
                const double p[3] = {dg_sp_position(r, 0, (double)(w % n) + off[0]),
                                     dg_sp_position(r, 1, (double)((w / n) % n) + off[1]),
                                     dg_sp_position(r, 2, (double)(w / (n * n)) + off[2])};
                v = !dg_sp_shell_outside(r, p);
                ++shell, reentrant += (size_t)v;
            }
            m[w] = (unsigned char)v;
            solute += (size_t)v;
        }
        counts->solute_faces[a] = solute;
        counts->shell_points += shell;
        counts->reentrant_points += reentrant;
    }
    if (!r->ion_map) return;
    const double off[3] = {0, 0, 0};
    mark_atoms(r, off, r->ion_radius, r->ion_radius, plane_extra, ion, threads);
    size_t open = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : open)
    for (long w = 0; w < points; ++w) {
        ion[w] = !ion[w];
        open += ion[w];
    }
    counts->ion_accessible_points = open;
}

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

static int check(const dg_surface_request *r, unsigned char *face[3], unsigned char *ion,
                 dg_medium_counts *counts, char *message, size_t size) {
    if (!r || !face || !face[0] || !face[1] || !face[2] || !counts || (r->ion_map && !ion))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "request, maps or counts is NULL");
    if (r->n < 1 || !(r->scale > 0.0) || !isfinite(r->scale))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "grid n or scale is not positive");
    if (r->count < 0 || (r->count > 0 && (!r->xyz || !r->radius || !r->sas_radius ||
                                          !r->neighbor_start || !r->neighbors)))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "atom arrays are NULL");
    if (r->molecular && r->probe > 0.0 &&
        (!r->exposed_atoms.start || !r->exposed_atoms.items || !(r->exposed_atoms.cell > 0.0) ||
         (r->dot_count > 0 &&
          (!r->dots || !r->dot_cells.start || !r->dot_cells.items || !(r->dot_cells.cell > 0.0)))))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "surface cell lists are missing");
    return DG_OK;
}

static int run_on(dg_solver s, const dg_surface_request *r, unsigned char *face[3],
                  unsigned char *ion, dg_medium_counts *counts, char *message, size_t size) {
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(s, &ops, &state);
    if (!ops) return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    dg_error err = {0};
    const int st = ops->medium_maps(state, r, face, ion, counts, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    return st;
}

int dg_stage_medium_maps(const dg_options *options, const dg_surface_request *r,
                         unsigned char *face[3], unsigned char *ion, dg_medium_counts *counts,
                         char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    int st = check(r, face, ion, counts, message, size);
    if (st != DG_OK) return st;
    dg_solver s = NULL;
    st = dg_create(&s, options);
    if (st == DG_OK)
        st = run_on(s, r, face, ion, counts, message, size);
    else
        snprintf(message, size, "%s", dg_last_error(s));
    dg_destroy(s);
    return st;
}

int dg_stage_medium_maps_on(dg_solver solver, const dg_surface_request *r, unsigned char *face[3],
                            unsigned char *ion, dg_medium_counts *counts, char *message,
                            size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    if (!solver) return reject(message, size, DG_ERR_INVALID_ARGUMENT, "solver is NULL");
    const int st = check(r, face, ion, counts, message, size);
    return st != DG_OK ? st : run_on(solver, r, face, ion, counts, message, size);
}
