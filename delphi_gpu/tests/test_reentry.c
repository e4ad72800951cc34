/* Hardening of the handle: dg_create rejects an absurd num_threads (naming the value and the
 * limit), and a progress callback that calls back into its own handle (set a medium, set
 * options, solve, destroy) gets DG_ERR_STATE while the running solve goes on unchanged: the
 * SOR's checks and multigrid's cycles alike. */
#include "test_util.h"

enum { N = 17 };

typedef struct reentry {
    dg_solver s;
    dense_problem *other; /* a different medium the callback tries to install */
    dg_options options;
    double *phi2;
    int calls, set_medium, set_options, solve, estimate, destroy;
    char message[512];
} reentry;

static int intruder(const dg_progress *p, void *user) {
    (void)p;
    reentry *r = user;
    r->calls++;
    r->set_medium = dg_set_dense_medium_d(r->s, &r->other->medium);
    snprintf(r->message, sizeof r->message, "%s", dg_last_error(r->s));
    r->set_options = dg_set_options(r->s, &r->options);
    r->solve = dg_solve_d(r->s, r->phi2, NULL);
    double spec = 0;
    r->estimate = dg_estimate_spectral_radius(r->s, &spec);
    dg_destroy(r->s); /* refused: the handle must stay usable */
    r->destroy = strstr(dg_last_error(r->s), "dg_destroy") != NULL;
    return 0;
}

static void thread_limit(void) {
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    o.num_threads = 100000;
    dg_solver s = NULL;
    int st = dg_create(&s, &o);
    CHECK(st == DG_ERR_INVALID_ARGUMENT, "num_threads 100000 gave %d", st);
    CHECK(strstr(dg_last_error(s), "100000") && strstr(dg_last_error(s), "4096"),
          "message names value and limit: %s", dg_last_error(s));
    dg_destroy(s);
    o.num_threads = 4096; /* the limit itself is allowed */
    st = dg_create(&s, &o);
    CHECK(st == DG_OK, "num_threads 4096 gave %d: %s", st, dg_last_error(s));
    dg_destroy(s);
}

/* Solve the sphere problem; with `intrude` the callback tries everything. */
static double solve_sphere(int intrude, int backend, int solver, reentry *r, dg_result *res) {
    dense_problem d, other;
    dense_problem_init(&d, N, N, N, 2.0, 80.0);
    dense_problem_sphere(&d, 8, 8, 8, 4.0, 2.0);
    d.charge[idx3(N, N, 8, 8, 8)] = 1.0;
    dense_problem_init(&other, N, N, N, 2.0, 4.0); /* a very different medium */
    dg_options o;
    dg_default_options(&o);
    o.backend = backend;
    o.solver = solver;
    o.iterations = solver == DG_SOLVER_MULTIGRID ? 4 : 60; /* cycles or sweeps, no criterion */
    o.check_interval = 10;
    memset(r, 0, sizeof *r);
    if (intrude) o.progress = intruder, o.progress_user_data = r;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    r->s = s, r->other = &other, r->options = o;
    r->options.iterations = 5;
    double *phi = calloc((size_t)N * N * N, sizeof *phi);
    r->phi2 = calloc((size_t)N * N * N, sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, res), s);
    CHECK(dg_last_error(s)[0] == '\0', "after a successful solve: \"%s\"", dg_last_error(s));
    double centre = phi[idx3(N, N, 8, 8, 9)];
    /* After the solve the handle works normally again. */
    if (intrude) CHECK(dg_set_options(s, &r->options) == DG_OK, "set options after solve");
    dg_destroy(s);
    free(phi), free(r->phi2);
    dense_problem_free(&d), dense_problem_free(&other);
    return centre;
}

static void reentry_on(int backend, int solver, const char *name) {
    reentry quiet, noisy;
    dg_result a, b;
    const double clean = solve_sphere(0, backend, solver, &quiet, &a);
    const double tried = solve_sphere(1, backend, solver, &noisy, &b);
    CHECK(a.solver == solver && b.solver == solver, "%s: solver %d and %d", name, a.solver,
          b.solver);
    /* the SOR checks every 10 of its 60 sweeps; multigrid reports each of its 4 cycles */
    CHECK(noisy.calls == (solver == DG_SOLVER_MULTIGRID ? 4 : 6), "%s: callback ran %d times", name,
          noisy.calls);
    CHECK(noisy.set_medium == DG_ERR_STATE, "%s: set medium in callback: %d", name,
          noisy.set_medium);
    CHECK(strstr(noisy.message, "progress callback") != NULL, "%s: message: %s", name,
          noisy.message);
    CHECK(noisy.set_options == DG_ERR_STATE, "%s: set options in callback: %d", name,
          noisy.set_options);
    CHECK(noisy.solve == DG_ERR_STATE, "%s: solve in callback: %d", name, noisy.solve);
    CHECK(noisy.estimate == DG_ERR_STATE, "%s: estimate in callback: %d", name, noisy.estimate);
    CHECK(noisy.destroy, "%s: destroy in callback refused", name);
    CHECK(a.iterations == b.iterations && a.outcome == b.outcome, "%s: iterations %d vs %d", name,
          a.iterations, b.iterations);
    CHECK(clean == tried, "%s: the solve was changed by the callback: %.17g vs %.17g", name, clean,
          tried);
}

int main(void) {
    thread_limit();
    reentry_on(DG_BACKEND_CPU, DG_SOLVER_SOR, "cpu");
    reentry_on(DG_BACKEND_CPU, DG_SOLVER_MULTIGRID, "cpu multigrid");
    int devices = 0;
    if (dg_cuda_device_count(&devices) == DG_OK && devices > 0) {
        reentry_on(DG_BACKEND_CUDA, DG_SOLVER_SOR, "cuda");
        reentry_on(DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, "cuda multigrid");
    }
    return test_finish("test_reentry");
}
