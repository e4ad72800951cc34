/* Arc dots (stages.h): validation and the dispatch to a solver's backend.  The host's own
 * arc dots are the surface model's (calc/surface_model.c). */
#include <stdio.h>

#include "../solver_internal.h"

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

int dg_stage_arc_dots_on(dg_solver solver, const dg_arc_dots_request *r, int *counts, double **dots,
                         long *total, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    if (!solver || !r || !dots || !total || (r->count > 0 && !counts))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "solver, request, counts, dots or total is NULL");
    *dots = NULL, *total = 0;
    if (r->count < 0) return reject(message, size, DG_ERR_COUNT_MISMATCH, "atom count is negative");
    if (r->circle_dots < 1 || !r->angles)
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "circle_dots must be >= 1 with its angles given");
    if (r->count > 0 && (!r->xyz || !r->sas_radius || !r->neighbor_start || !r->neighbors))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "atom or neighbour arrays are missing");
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(solver, &ops, &state);
    if (!ops) return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    if (!ops->arc_dots) {
        snprintf(message, size, "the %s backend has no arc-dot operation", ops->name);
        return DG_ERR_UNSUPPORTED;
    }
    if (r->count == 0) return DG_OK;
    dg_error err = {0};
    const int st = ops->arc_dots(state, r, counts, dots, total, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    return st;
}
