/* Surface sites (stages.h): the host implementation and the dispatch to a solver's backend. */
#include <omp.h>
#include <stdio.h>

#include "../solver_internal.h"
#include "surface_points.h"

void dg_surface_sites_host(const dg_surface_request *r, const double *points, long count,
                           double reach, double *sites, int *owners, long *unprojected,
                           int num_threads) {
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    long missed = 0;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) reduction(+ : missed)
    for (long k = 0; k < count; ++k)
        if (dg_sp_project(r, points + 3 * k, reach, sites + 3 * k, owners ? owners + k : NULL) != 0)
            ++missed;
    *unprojected = missed;
}

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

int dg_stage_surface_sites_on(dg_solver solver, const dg_surface_request *r, const double *points,
                              long count, double reach, double *sites, int *owners,
                              long *unprojected, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    if (!solver || !r || !unprojected || (count > 0 && (!points || !sites)))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "solver, request, points, sites or unprojected is NULL");
    if (count < 0) return reject(message, size, DG_ERR_COUNT_MISMATCH, "point count is negative");
    if (!(reach >= 0.0) || !isfinite(reach))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "reach must be finite and >= 0");
    if (r->count < 0 ||
        (r->count > 0 && (!r->xyz || !r->radius || !r->sas_radius || !r->atoms.start ||
                          !r->atoms.items || !(r->atoms.cell > 0.0))))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "atom arrays or cells are missing");
    if (r->molecular && r->probe > 0.0 &&
        (!r->neighbor_start || !r->neighbors || !r->exposed_atoms.start ||
         !r->exposed_atoms.items || (r->dot_count > 0 && (!r->dots || !r->dot_cells.start))))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "surface cell lists are missing");
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(solver, &ops, &state);
    if (!ops) return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    dg_error err = {0};
    *unprojected = 0;
    const int st =
        ops->surface_sites(state, r, points, count, reach, sites, owners, unprojected, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    return st;
}
