/* Coulomb sums at target points (see stages.h): the host implementation and the dispatch to the
 * solve's backend. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "../solver_internal.h"
#include "../stages.h"

void dg_pair_potentials_host(const dg_pair_request *r, double *out, long *skipped,
                             int num_threads) {
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    long left_out = 0;
    const double work = (double)r->target_count * (double)r->source_count;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) reduction(+ : left_out) \
    if (work > 100000.0)
    for (long k = 0; k < r->target_count; ++k) {
        const double *t = r->targets + 3 * k;
        double sum = 0.0; /* sources in index order: the same sum on every backend */
        for (long i = r->upper_triangle ? k + 1 : 0; i < r->source_count; ++i) {
            const double *s = r->sources + 3 * i;
            const double dx = t[0] - s[0], dy = t[1] - s[1], dz = t[2] - s[2];
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            if (d < r->min_distance) {
                ++left_out;
                continue;
            }
            sum += r->charges[i] / d;
        }
        out[k] = sum;
    }
    if (skipped) *skipped = left_out;
}

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

static int validate(const dg_pair_request *r, char *message, size_t size) {
    if (r->target_count < 0 || r->source_count < 0)
        return reject(message, size, DG_ERR_COUNT_MISMATCH, "target or source count is negative");
    if ((r->target_count > 0 && !r->targets) ||
        (r->source_count > 0 && (!r->sources || !r->charges)))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "targets, sources or charges is NULL");
    if (r->upper_triangle && r->target_count != r->source_count)
        return reject(message, size, DG_ERR_COUNT_MISMATCH,
                      "upper_triangle needs as many targets as sources");
    if (!(r->min_distance >= 0.0) || !isfinite(r->min_distance))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "min_distance must be finite and >= 0");
    for (long i = 0; i < r->source_count; ++i)
        if (!isfinite(r->charges[i]) || !isfinite(r->sources[3 * i]) ||
            !isfinite(r->sources[3 * i + 1]) || !isfinite(r->sources[3 * i + 2])) {
            if (message && size)
                snprintf(message, size, "source %ld: position or charge is NaN or Inf", i);
            return DG_ERR_NONFINITE_INPUT;
        }
    for (long k = 0; k < r->target_count; ++k)
        if (!isfinite(r->targets[3 * k]) || !isfinite(r->targets[3 * k + 1]) ||
            !isfinite(r->targets[3 * k + 2])) {
            if (message && size) snprintf(message, size, "target %ld: position is NaN or Inf", k);
            return DG_ERR_NONFINITE_INPUT;
        }
    return DG_OK;
}

/* Run the request on a created solver's backend. */
static int run_on(dg_solver s, const dg_pair_request *request, double *out, long *skipped,
                  char *message, size_t size) {
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(s, &ops, &state);
    if (!ops) return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    dg_error err = {0};
    long left_out = 0;
    const int st = ops->pair_potentials(state, request, out, &left_out, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    if (skipped) *skipped = left_out;
    return st;
}

static int check(const dg_pair_request *request, double *out, char *message, size_t size) {
    if (!request || (request->target_count > 0 && !out))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "request or out is NULL");
    return validate(request, message, size);
}

int dg_stage_pair_potentials(const dg_options *options, const dg_pair_request *request, double *out,
                             long *skipped, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    int st = check(request, out, message, size);
    if (st != DG_OK) return st;
    dg_solver s = NULL;
    st = dg_create(&s, options);
    if (st == DG_OK)
        st = run_on(s, request, out, skipped, message, size);
    else
        snprintf(message, size, "%s", dg_last_error(s));
    dg_destroy(s);
    return st;
}

int dg_stage_pair_potentials_on(dg_solver solver, const dg_pair_request *request, double *out,
                                long *skipped, char *message, size_t size) {
    if (!solver) {
        dg_options o;
        dg_default_options(&o);
        o.backend = DG_BACKEND_CPU;
        return dg_stage_pair_potentials(&o, request, out, skipped, message, size);
    }
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    const int st = check(request, out, message, size);
    return st != DG_OK ? st : run_on(solver, request, out, skipped, message, size);
}
