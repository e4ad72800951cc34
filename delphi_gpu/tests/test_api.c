/* The API's contract: defaults, strings, backend selection, DelPhi's stopping rules (fixed
 * count, criterion, cap, check interval), progress callback and stopping, divergence
 * detection, faces untouched, repeated solves on one handle. */
#include "test_util.h"

enum { N = 21, C = 10 };
static const long points = (long)N * N * N;

typedef struct progress_log {
    int calls, last_iteration, stop_after, monotone;
} progress_log;

static int on_progress(const dg_progress *p, void *user) {
    progress_log *log = user;
    if (p->iteration <= log->last_iteration) log->monotone = 0;
    log->last_iteration = p->iteration;
    log->calls++;
    return log->stop_after && log->calls >= log->stop_after;
}

static dg_solver sphere_solver(dg_options *o, dense_problem *d) {
    dense_problem_init(d, N, N, N, 2.0, 80.0);
    dense_problem_sphere(d, C, C, C, 4.0, 2.0);
    d->charge[idx3(N, N, C, C, C)] = 1.0;
    dg_solver s = make_cpu_solver(o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    return s;
}

static void defaults_and_strings(void) {
    dg_options o;
    dg_default_options(&o);
    CHECK(o.struct_size == (int)sizeof o && o.version == DG_OPTIONS_VERSION, "header fields");
    CHECK(o.backend == DG_BACKEND_AUTO && o.precision == DG_PRECISION_DOUBLE, "backend/precision");
    CHECK(o.check_interval == 10 && o.check_stride == 1 && o.iterations == 0 &&
              o.run_until_converged == -1 && o.nonlinear_blocks == 30,
          "DelPhi defaults");
    char version[64];
    snprintf(version, sizeof version, "%d.%d.%d", DG_VERSION_MAJOR, DG_VERSION_MINOR,
             DG_VERSION_PATCH);
    CHECK(strcmp(dg_version_string(), version) == 0, "version %s, header %s", dg_version_string(),
          version);
    for (int a = 0; a < DG_STATUS_COUNT; ++a)
        for (int b = a + 1; b < DG_STATUS_COUNT; ++b)
            CHECK(strcmp(dg_status_string(a), dg_status_string(b)) != 0, "status %d = %d", a, b);
    CHECK(strstr(dg_status_string(999), "unknown") != NULL, "unknown status");
    CHECK(strcmp(dg_outcome_string(DG_OUTCOME_CONVERGED), "converged") == 0, "outcome string");
    CHECK(dg_backend_built(DG_BACKEND_CPU) == 1, "CPU backend always built");
    /* AUTO resolves to a real backend; without a GPU it is the CPU with a notice. */
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, NULL), s);
    int backend = -1;
    CHECK_OK(dg_get_backend(s, &backend), s);
    int devices = 0;
    dg_cuda_device_count(&devices);
    if (devices == 0) {
        CHECK(backend == DG_BACKEND_CPU, "AUTO without a GPU gave backend %d", backend);
        CHECK(strstr(dg_notice(s), "CPU") != NULL, "no CPU-fallback notice: \"%s\"", dg_notice(s));
    }
    CHECK(strcmp(dg_last_error(s), "") == 0, "error message after success: %s", dg_last_error(s));
    dg_destroy(s);
}

static void stopping_rules(void) {
    dense_problem d;
    dg_options o;
    dg_default_options(&o);
    double *phi = calloc(points, sizeof *phi);
    dg_result r;

    /* No criterion: exactly the requested iterations. */
    o.iterations = 37;
    dg_solver s = sphere_solver(&o, &d);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_COMPLETED && r.iterations == 37, "fixed: %s after %d",
          dg_outcome_string(r.outcome), r.iterations);
    CHECK(r.checks == 3, "checks %d (every 10 iterations)", r.checks);

    /* A criterion with a fixed count that is too small: stop at the count, not converged. */
    o.max_change_tol = 1e-10;
    CHECK_OK(dg_set_options(s, &o), s);
    memset(phi, 0, points * sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_NOT_CONVERGED && r.iterations == 37, "capped: %s after %d",
          dg_outcome_string(r.outcome), r.iterations);

    /* Automatic count with a criterion: run until met; stops at a check (multiple of 10). */
    o.iterations = 0, o.max_change_tol = 1e-6;
    progress_log log = {0, 0, 0, 1};
    o.progress = on_progress, o.progress_user_data = &log;
    CHECK_OK(dg_set_options(s, &o), s);
    memset(phi, 0, points * sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED && r.iterations % 10 == 0 && r.max_change <= 1e-6,
          "auto: %s after %d, max change %g", dg_outcome_string(r.outcome), r.iterations,
          r.max_change);
    CHECK(log.calls == r.checks && log.monotone && log.last_iteration == r.iterations,
          "progress called %d times for %d checks", log.calls, r.checks);
    CHECK(r.estimated_iterations == dg_estimate_iterations(r.spectral_radius), "estimate");
    CHECK(fabs(r.omega - 2.0 / (1.0 + sqrt(1.0 - r.spectral_radius))) < 1e-15, "omega");
    const int converged_at = r.iterations;

    /* The same with a check interval of 7 and a stride of 3. */
    o.check_interval = 7, o.check_stride = 3;
    CHECK_OK(dg_set_options(s, &o), s);
    memset(phi, 0, points * sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED && r.iterations % 7 == 0, "interval 7: %d",
          r.iterations);
    CHECK(abs(r.iterations - converged_at) <= 10, "interval 7 changes the count: %d vs %d",
          r.iterations, converged_at);

    /* The callback can stop the solve; phi then holds the current iterate. */
    o.check_interval = 10, o.check_stride = 1;
    log = (progress_log){0, 0, 2, 1};
    CHECK_OK(dg_set_options(s, &o), s);
    memset(phi, 0, points * sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_STOPPED && r.iterations == 20, "stop: %s after %d",
          dg_outcome_string(r.outcome), r.iterations);
    CHECK(phi[idx3(N, N, C, C, C)] != 0.0, "phi not returned after a stop");

    /* Hard cap with an unreachable criterion. */
    o.progress = NULL, o.max_change_tol = 1e-300, o.max_iterations = 55;
    CHECK_OK(dg_set_options(s, &o), s);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_NOT_CONVERGED && r.iterations == 55, "cap: %s after %d",
          dg_outcome_string(r.outcome), r.iterations);

    /* Faces are never changed, the same handle solves again from a new start. */
    for (long w = 0; w < points; ++w)
        phi[w] = 0.25;
    o.max_iterations = 0, o.max_change_tol = 1e-6;
    CHECK_OK(dg_set_options(s, &o), s);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(phi[0] == 0.25 && phi[points - 1] == 0.25 && phi[idx3(N, N, 0, 5, 7)] == 0.25 &&
              phi[idx3(N, N, 5, N - 1, 7)] == 0.25,
          "a face value changed");
    dg_destroy(s);
    dense_problem_free(&d);
    free(phi);
}

/* Boundary weights whose sum exceeds 1 make the iteration unstable: the solve must report
   divergence and leave phi as it was. */
static void divergence(void) {
    const int interior = (N - 2) * (N - 2) * (N - 2);
    int *idx = malloc(interior * sizeof(int));
    double *db = malloc(6L * interior * sizeof(double));
    int total = 0, odd = 0;
    for (int pass = 0; pass < 2; ++pass) { /* odd entries (w even) first, then even */
        for (int z = 1; z < N - 1; ++z)
            for (int y = 1; y < N - 1; ++y)
                for (int x = 1; x < N - 1; ++x) {
                    long w = idx3(N, N, x, y, z);
                    if ((int)(w & 1) != pass) continue;
                    idx[total] = (int)(w / 2 + 1);
                    for (int f = 0; f < 6; ++f)
                        db[6 * total + f] = 0.05; /* eps/D = 0.2167 */
                    total++;
                }
        if (pass == 0) odd = total;
    }
    dg_sparse_medium_d m = {0};
    m.nx = m.ny = m.nz = N;
    m.boundary_count_odd = odd, m.boundary_count = total;
    m.boundary_index = idx, m.boundary_weights = db;
    dg_options o;
    dg_default_options(&o);
    o.max_change_tol = 1e-6;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_sparse_medium_d(s, &m), s);
    double *phi = malloc(points * sizeof *phi);
    for (long w = 0; w < points; ++w)
        phi[w] = 1.0;
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_DIVERGED, "unstable medium: %s after %d iterations",
          dg_outcome_string(r.outcome), r.iterations);
    int unchanged = 1;
    for (long w = 0; w < points; ++w)
        unchanged &= phi[w] == 1.0;
    CHECK(unchanged, "phi changed by a diverged solve");
    printf("unstable medium: %s after %d iterations (max change %g)\n",
           dg_outcome_string(r.outcome), r.iterations, r.max_change);
    dg_destroy(s);
    free(idx), free(db), free(phi);
}

int main(void) {
    defaults_and_strings();
    stopping_rules();
    divergence();
    return test_finish("test_api");
}
