/* Multigrid on the CUDA backend against the CPU backend's multigrid and the CUDA SOR, on the
 * protein-like medium (spheres of eps 2 in 80 with charges), with and without salt, in double,
 * float and mixed; a non-finite phi refused as on the CPU.  Same algorithm, different summation
 * orders: double answers agree to 1e-12 of the potential's max, cycle counts within one; float to
 * 1e-4; mixed (CUDA: float CG vectors, double x and true residuals; CPU: the double loop) to 1e-9.
 * The cycles started before dg_solve's phi check has ended (forced by the test hook) give the
 * answers of a solve from the whole phi; a handle's later solves, on the workspace its backend
 * kept, those of a fresh handle.  The progress callback runs after every cycle, and a stop
 * after cycle 3 leaves the answer of exactly three cycles; a solve from its own answer takes one
 * cycle, one of a zero answer none.  Skips (77) without a GPU. */
#include <limits.h>

#include "gpu_test.h"
#include "mg/mg.h"
#include "mg_problem.h"

typedef struct outcome {
    double *phi, energy;
    int iterations, status;
} outcome;

static outcome run(dense_problem *d, const double *start, int backend, int method, int precision,
                   double maxc) {
    dg_options o;
    dg_default_options(&o);
    o.solver = method, o.precision = precision, o.max_change_tol = maxc;
    dg_solver s = gpu_make_solver(backend, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    long n = (long)d->nx * d->ny * d->nz;
    outcome out = {0};
    out.phi = malloc(n * sizeof(double));
    memcpy(out.phi, start, n * sizeof(double));
    dg_result r;
    CHECK_OK(dg_solve_d(s, out.phi, &r), s);
    out.status = r.outcome, out.iterations = r.iterations;
    out.energy = mg_problem_energy(d, out.phi);
    dg_destroy(s);
    return out;
}

static void compare(int n, int salt, int precision) {
    dense_problem d;
    long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, salt, &faces);
    const int dbl = precision == DG_PRECISION_DOUBLE, mixed = precision == DG_PRECISION_MIXED;
    const double maxc = dbl || mixed ? 1e-8 : 1e-5;
    outcome cpu = run(&d, phi, DG_BACKEND_CPU, DG_SOLVER_MULTIGRID, precision, maxc);
    outcome gpu = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, precision, maxc);
    outcome sor = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-9);
    double ref = 0.0;
    const double diff = max_abs_diff(gpu.phi, cpu.phi, points, &ref) / ref;
    const double de_sor = fabs(gpu.energy - sor.energy) / fabs(sor.energy);
    printf("%d^3 salt %d %s: CPU MG %d cycles (%s), CUDA MG %d cycles (%s), max |dphi| %.2e of "
           "max; CUDA MG vs CUDA SOR energy %.2e relative\n",
           n, salt,
           dbl     ? "double"
           : mixed ? "mixed"
                   : "float",
           cpu.iterations, dg_outcome_string(cpu.status), gpu.iterations,
           dg_outcome_string(gpu.status), diff, de_sor);
    if (dbl) {
        CHECK(gpu.status == DG_OUTCOME_CONVERGED, "CUDA MG %s", dg_outcome_string(gpu.status));
        CHECK(abs(gpu.iterations - cpu.iterations) <= 1, "cycles %d vs %d", gpu.iterations,
              cpu.iterations);
        /* Not bit for bit (the float coarse levels, a preconditioner only, round differently on
           the two backends), but the operator of the CG is applied in double on both, so both
           converge to the same discrete solution (measured: 2e-16 of the max; an operator
           factor rounded to float once gave 2.7e-7 here and 2e-6 in a 385^3 energy). */
        CHECK(diff < 1e-12, "CUDA vs CPU multigrid differ by %.2e of the max", diff);
        CHECK(de_sor < 1e-9, "CUDA MG vs SOR energy %.2e", de_sor);
    } else if (mixed) {
        /* The CPU runs the double loop; CUDA keeps the CG vectors in float and x in double,
           with true residuals in double: the same tolerance, far below float's resolution
           (float stops near 16 float epsilons of the max, 2e-6), at most two more cycles. */
        CHECK(gpu.status == DG_OUTCOME_CONVERGED, "CUDA mixed MG %s",
              dg_outcome_string(gpu.status));
        CHECK(gpu.iterations <= cpu.iterations + 2, "mixed cycles %d vs %d", gpu.iterations,
              cpu.iterations);
        CHECK(diff < 1e-9, "mixed CUDA vs CPU multigrid differ by %.2e of the max", diff);
        CHECK(de_sor < 1e-9, "mixed CUDA MG vs SOR energy %.2e", de_sor);
    } else {
        CHECK(diff < 1e-4, "float CUDA vs CPU multigrid differ by %.2e of the max", diff);
        CHECK(de_sor < 1e-4, "float CUDA MG vs SOR energy %.2e", de_sor);
    }
    free(cpu.phi), free(gpu.phi), free(sor.phi), free(phi);
    dense_problem_free(&d);
}

/* One multigrid solve with the caller's phi in float (caller_float) or double, returned as
   double; faces_kept: the caller's face values came back bit for bit. */
static double *solve_caller(dense_problem *d, const double *start, int backend, int precision,
                            int caller_float, int *faces_kept, int *solver) {
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID, o.precision = precision;
    o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-5 : 1e-8;
    dg_solver s = gpu_make_solver(backend, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    const int nx = d->nx, ny = d->ny, nz = d->nz;
    const long n = (long)nx * ny * nz;
    double *out = malloc(n * sizeof *out);
    float *f = caller_float ? malloc(n * sizeof *f) : NULL;
    for (long w = 0; w < n; ++w)
        out[w] = start[w];
    if (f)
        for (long w = 0; w < n; ++w)
            f[w] = (float)start[w];
    dg_result r;
    CHECK_OK(f ? dg_solve_f(s, f, &r) : dg_solve_d(s, out, &r), s);
    /* float may stop at its rounding floor before maxc: any outcome but DIVERGED there */
    CHECK(r.outcome == DG_OUTCOME_CONVERGED ||
              (precision == DG_PRECISION_FLOAT && r.outcome != DG_OUTCOME_DIVERGED),
          "%s", dg_outcome_string(r.outcome));
    *solver = r.solver;
    *faces_kept = 1;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const long w = x + (long)nx * (y + (long)ny * z);
                const int face = !x || !y || !z || x == nx - 1 || y == ny - 1 || z == nz - 1;
                const double v = f ? (double)f[w] : out[w];
                if (face) *faces_kept &= f ? f[w] == (float)start[w] : v == start[w];
                out[w] = v;
            }
    free(f);
    dg_destroy(s);
    return out;
}

/* How phi travels (once each way, straight between the caller and the device): a zero or a
   non-zero interior at the start (faces only or the whole grid up), a float or double caller
   with double or float working precision (converted on the device; a float answer widened into
   a double caller's grid on the host), the faces left as the caller's; CUDA against the CPU's
   multigrid on the same inputs. */
static void hand_over(void) {
    const int n = 49;
    dense_problem d;
    const long points = (long)n * n * n;
    double *zero = malloc(points * sizeof *zero), *busy = malloc(points * sizeof *busy);
    mg_faces faces;
    mg_problem_build(&d, zero, n, 1, &faces);
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                const int face = !x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1;
                busy[w] = zero[w] + (face ? 0.0 : 0.5 * ((x + 2 * y + 3 * z) % 5));
            }
    const struct {
        int precision, caller_float, nonzero;
        double tol;
    } cases[8] = {{DG_PRECISION_DOUBLE, 0, 1, 1e-6}, {DG_PRECISION_DOUBLE, 1, 0, 1e-6},
                  {DG_PRECISION_DOUBLE, 1, 1, 1e-6}, {DG_PRECISION_FLOAT, 0, 1, 1e-4},
                  {DG_PRECISION_FLOAT, 0, 0, 1e-4},  {DG_PRECISION_MIXED, 0, 0, 1e-6},
                  {DG_PRECISION_MIXED, 0, 1, 1e-6},  {DG_PRECISION_MIXED, 1, 1, 1e-6}};
    for (int c = 0; c < 8; ++c) {
        const double *start = cases[c].nonzero ? busy : zero;
        int kept_cpu = 0, kept_gpu = 0, solver = -1, solver_cpu = -1;
        double *cpu = solve_caller(&d, start, DG_BACKEND_CPU, cases[c].precision,
                                   cases[c].caller_float, &kept_cpu, &solver_cpu);
        double *gpu = solve_caller(&d, start, DG_BACKEND_CUDA, cases[c].precision,
                                   cases[c].caller_float, &kept_gpu, &solver);
        double ref = 0.0;
        const double diff = max_abs_diff(gpu, cpu, points, &ref) / ref;
        printf("hand-over %d: precision %d, %s caller, %s interior: CUDA vs CPU %.2e of max\n", c,
               cases[c].precision, cases[c].caller_float ? "float" : "double",
               cases[c].nonzero ? "non-zero" : "zero", diff);
        CHECK(solver == DG_SOLVER_MULTIGRID && solver_cpu == DG_SOLVER_MULTIGRID, "solver %d",
              solver);
        CHECK(kept_gpu && kept_cpu, "case %d: the caller's faces changed (cuda %d, cpu %d)", c,
              kept_gpu, kept_cpu);
        CHECK(diff < cases[c].tol, "case %d: CUDA vs CPU %.2e of the max", c, diff);
        free(cpu), free(gpu);
    }
    free(zero), free(busy);
    dense_problem_free(&d);
}

/* A non-finite phi with multigrid: the CUDA solve must fail with DG_ERR_NONFINITE_INPUT naming
   the same point as the CPU's, leave phi untouched, and the same solver must then solve a good
   phi. */
static void bad_phi(void) {
    const int n = 41;
    dense_problem d;
    const long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi), *copy = malloc(points * sizeof *copy);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 0, &faces);
    const long bad = idx3(n, n, 7, 11, 13); /* outside the sampled rows (y, z = 4, 20, 36) */
    char message[3][512];
    for (int b = 0; b < 3; ++b) { /* CPU, CUDA, CUDA with the cycles started before the check */
        dg_options o;
        dg_default_options(&o);
        o.solver = DG_SOLVER_MULTIGRID, o.max_change_tol = 1e-6;
        dg_cuda_mg_speculate_always(b == 2);
        dg_solver s = gpu_make_solver(b ? DG_BACKEND_CUDA : DG_BACKEND_CPU, &o);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        memcpy(copy, phi, points * sizeof *copy);
        copy[bad] = NAN;
        dg_result r;
        const int st = dg_solve_d(s, copy, &r);
        snprintf(message[b], sizeof message[b], "%s", dg_last_error(s));
        CHECK(st == DG_ERR_NONFINITE_INPUT, "backend %d: status %s", b, dg_status_string(st));
        CHECK(strstr(message[b], "(7,11,13)") != NULL, "backend %d: message '%s'", b, message[b]);
        int untouched = isnan(copy[bad]);
        for (long w = 0; w < points; ++w)
            untouched &= w == bad || copy[w] == phi[w];
        CHECK(untouched, "backend %d: phi changed by a failed solve", b);
        copy[bad] = phi[bad];
        CHECK_OK(dg_solve_d(s, copy, &r), s);
        CHECK(r.outcome == DG_OUTCOME_CONVERGED && r.solver == DG_SOLVER_MULTIGRID,
              "backend %d: %s after the failed solve", b, dg_outcome_string(r.outcome));
        dg_destroy(s);
    }
    dg_cuda_mg_speculate_always(0);
    printf("non-finite phi: cpu '%s', cuda '%s', cuda started early '%s'\n", message[0], message[1],
           message[2]);
    CHECK(strcmp(message[0], message[1]) == 0 && strcmp(message[0], message[2]) == 0,
          "the backends' messages differ");
    free(phi), free(copy);
    dense_problem_free(&d);
}

/* The cycles started before dg_solve's phi check has ended, on an interior that is zero in the
   sampled rows but not elsewhere (one point, outside rows y, z = 8, 24, 40): the verdict must
   send the whole phi up and solve again.  A fixed count of 3 cycles makes the answer depend on
   the start, so CUDA must match the CPU from the same start and differ from a solve from the
   zero interior. */
static void early_start(void) {
    const int n = 49;
    dense_problem d;
    const long points = (long)n * n * n;
    double *zero = malloc(points * sizeof *zero), *start = malloc(points * sizeof *start);
    mg_faces faces;
    mg_problem_build(&d, zero, n, 1, &faces);
    memcpy(start, zero, points * sizeof *start);
    start[idx3(n, n, 7, 11, 13)] = 500.0;
    double *answer[3] = {NULL, NULL, NULL}; /* CPU, CUDA started early, CUDA from zero */
    int cycles[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        dg_options o;
        dg_default_options(&o);
        o.solver = DG_SOLVER_MULTIGRID, o.max_change_tol = 0.0, o.iterations = 3;
        dg_cuda_mg_speculate_always(k == 1);
        dg_solver s = gpu_make_solver(k ? DG_BACKEND_CUDA : DG_BACKEND_CPU, &o);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        answer[k] = malloc(points * sizeof(double));
        memcpy(answer[k], k == 2 ? zero : start, points * sizeof(double));
        dg_result r;
        CHECK_OK(dg_solve_d(s, answer[k], &r), s);
        cycles[k] = r.iterations;
        CHECK(r.outcome == DG_OUTCOME_COMPLETED, "run %d: %s", k, dg_outcome_string(r.outcome));
        dg_destroy(s);
    }
    dg_cuda_mg_speculate_always(0);
    double ref = 0.0;
    const double same = max_abs_diff(answer[1], answer[0], points, &ref) / ref;
    const double other = max_abs_diff(answer[2], answer[0], points, &ref) / ref;
    printf("early start: CUDA vs CPU %.2e of max after %d / %d cycles (from the zero interior: "
           "%.2e)\n",
           same, cycles[1], cycles[0], other);
    CHECK(cycles[0] == 3 && cycles[1] == 3, "cycles %d %d", cycles[0], cycles[1]);
    CHECK(same < 1e-9, "CUDA started early vs CPU %.2e of the max", same);
    CHECK(other > 1e-6, "the start made no difference (%.2e): the test cannot tell", other);
    for (int k = 0; k < 3; ++k)
        free(answer[k]);
    free(zero), free(start);
    dense_problem_free(&d);
}

/* The coarse levels' classes of uniform stencils (level_view.cls) change where a coefficient is
   read from, never its value: solves without classes, with the default ones (levels of >= 32768
   unknowns: the first at 97^3) and with classes on every level (k_tail's too) give the same
   bits and cycles, in every precision, with salt (many classes: the diagonals differ). */
static void classes_same_bits(void) {
    const int n = 97;
    const long points = (long)n * n * n;
    dense_problem d;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 1, &faces);
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    const long settings[3] = {LONG_MAX, -1, 1};
    for (int p = 0; p < 3; ++p) {
        outcome out[3];
        for (int k = 0; k < 3; ++k) {
            dg_cuda_mg_class_min(settings[k]);
            out[k] = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, precisions[p],
                         precisions[p] == DG_PRECISION_FLOAT ? 1e-5 : 1e-8);
        }
        dg_cuda_mg_class_min(-1);
        for (int k = 1; k < 3; ++k) {
            CHECK(out[k].iterations == out[0].iterations,
                  "precision %d, classes %ld: %d cycles "
                  "against %d without",
                  precisions[p], settings[k], out[k].iterations, out[0].iterations);
            CHECK(!memcmp(out[k].phi, out[0].phi, points * sizeof(double)),
                  "precision %d, classes %ld: not the bits of the solve without", precisions[p],
                  settings[k]);
        }
        printf("%d^3 salt, precision %d: %d cycles with and without classes, the same bits\n", n,
               precisions[p], out[0].iterations);
        for (int k = 0; k < 3; ++k)
            free(out[k].phi);
    }
    free(phi);
    dense_problem_free(&d);
}

/* The workspace a CUDA backend keeps between multigrid solves (reused by its next solve, with
   the lists of another medium of the same grid; freed by a medium of another grid): solves on
   one handle give the bits and cycles of a fresh handle's, for the same medium twice, another
   medium of the same grid (salt: other lists), another grid, and the first grid again. */
static void workspace_kept(void) {
    const int sizes[5] = {65, 65, 65, 49, 65}, salts[5] = {0, 0, 1, 1, 0};
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID, o.precision = DG_PRECISION_MIXED, o.max_change_tol = 1e-8;
    dg_solver s = gpu_make_solver(DG_BACKEND_CUDA, &o);
    for (int k = 0; k < 5; ++k) {
        const int n = sizes[k];
        const long points = (long)n * n * n;
        dense_problem d;
        double *phi = malloc(points * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, salts[k], &faces);
        const outcome fresh =
            run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, DG_PRECISION_MIXED, 1e-8);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        dg_result r;
        CHECK_OK(dg_solve_d(s, phi, &r), s);
        CHECK(r.outcome == DG_OUTCOME_CONVERGED, "solve %d: %s", k, dg_outcome_string(r.outcome));
        CHECK(r.iterations == fresh.iterations, "solve %d (%d^3, salt %d): %d cycles against %d", k,
              n, salts[k], r.iterations, fresh.iterations);
        CHECK(!memcmp(phi, fresh.phi, points * sizeof(double)),
              "solve %d (%d^3, salt %d): not the bits of a fresh handle's", k, n, salts[k]);
        printf("kept workspace, solve %d (%d^3, salt %d): %d cycles, the bits of a fresh "
               "handle's\n",
               k, n, salts[k], r.iterations);
        free(fresh.phi), free(phi);
        dense_problem_free(&d);
    }
    dg_destroy(s);
}

/* DG_SOLVER_AUTO on the CUDA backend: SOR below its multigrid size, and the choice says so. */
static void auto_below(void) {
    const int n = 65;
    dense_problem d;
    double *phi = malloc((size_t)n * n * n * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 0, &faces);
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_AUTO, o.max_change_tol = 1e-5;
    dg_solver s = gpu_make_solver(DG_BACKEND_CUDA, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    printf("AUTO at %d^3 on CUDA: %s\n", n, dg_solver_choice(s));
    CHECK(r.solver == DG_SOLVER_SOR && strstr(dg_solver_choice(s), "cuda backend"), "%d %s",
          r.solver, dg_solver_choice(s));
    dg_destroy(s);
    free(phi);
    dense_problem_free(&d);
}

/* What the progress callback saw; stop_at > 0 asks to stop after that cycle. */
typedef struct cycle_log {
    int calls, in_order, not_multigrid, stop_at;
    double last_max;
} cycle_log;

static int on_cycle(const dg_progress *p, void *user) {
    cycle_log *l = user;
    l->calls++;
    if (p->iteration != l->calls) l->in_order = 0;
    if (p->solver != DG_SOLVER_MULTIGRID || p->phase != DG_PHASE_LINEAR) l->not_multigrid++;
    l->last_max = p->max_change;
    return l->stop_at > 0 && p->iteration >= l->stop_at;
}

/* A CUDA multigrid solve: maxc 1e-5, or exactly `cycles` cycles without a criterion. */
static dg_result solve_logged(dense_problem *d, double *phi, int precision, int cycles,
                              cycle_log *log) {
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID, o.precision = precision;
    if (cycles > 0)
        o.iterations = cycles;
    else
        o.max_change_tol = 1e-5;
    if (log) o.progress = on_cycle, o.progress_user_data = log;
    dg_solver s = gpu_make_solver(DG_BACKEND_CUDA, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    dg_destroy(s);
    return r;
}

static void progress_and_stop(int precision) {
    const int n = 65;
    const long points = (long)n * n * n;
    dense_problem d;
    mg_faces faces;
    double *start = malloc(points * sizeof *start), *phi = malloc(points * sizeof *phi);
    double *three = malloc(points * sizeof *three);
    mg_problem_build(&d, start, n, 1, &faces);
    const char *name = precision == DG_PRECISION_MIXED ? "mixed" : "double";
    cycle_log seen = {0, 1, 0, 0, 0.0};
    memcpy(phi, start, points * sizeof *phi);
    const dg_result r = solve_logged(&d, phi, precision, 0, &seen);
    printf("progress (%s): %d calls for %d cycles (%s)\n", name, seen.calls, r.iterations,
           dg_outcome_string(r.outcome));
    CHECK(r.outcome == DG_OUTCOME_CONVERGED && seen.calls == r.iterations && seen.in_order &&
              !seen.not_multigrid && seen.last_max <= 1e-5 && seen.last_max == r.max_change,
          "%s: %s, %d calls for %d cycles, last max %.3e", name, dg_outcome_string(r.outcome),
          seen.calls, r.iterations, seen.last_max);
    cycle_log stopper = {0, 1, 0, 3, 0.0};
    memcpy(phi, start, points * sizeof *phi);
    const dg_result st = solve_logged(&d, phi, precision, 0, &stopper);
    memcpy(three, start, points * sizeof *three);
    const dg_result fixed = solve_logged(&d, three, precision, 3, NULL);
    CHECK(st.outcome == DG_OUTCOME_STOPPED && st.iterations == 3 && stopper.calls == 3,
          "%s stopped: %s after %d cycles, %d calls", name, dg_outcome_string(st.outcome),
          st.iterations, stopper.calls);
    CHECK(fixed.outcome == DG_OUTCOME_COMPLETED && !memcmp(phi, three, points * sizeof *phi) &&
              st.max_change == fixed.max_change,
          "%s: the stopped answer is not three cycles' (%s; max change %.3e and %.3e)", name,
          dg_outcome_string(fixed.outcome), st.max_change, fixed.max_change);
    free(start), free(phi), free(three);
    dense_problem_free(&d);
}

/* The change criterion on CUDA as on the CPU: a solve from its own answer converges after one
   cycle that moves phi by less than maxc; an equation whose answer is zero (no charges, zero
   faces) converges without a cycle. */
static void starts_at_the_answer(int precision) {
    const int n = 33;
    const long points = (long)n * n * n;
    const char *name = precision == DG_PRECISION_MIXED ? "mixed" : "double";
    dense_problem d;
    mg_faces faces;
    double *phi = malloc(points * sizeof *phi);
    mg_problem_build(&d, phi, n, 1, &faces);
    outcome first = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, precision, 1e-8);
    outcome again = run(&d, first.phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, precision, 1e-5);
    const double moved = max_abs_diff(first.phi, again.phi, points, NULL);
    printf("%s, from its own answer: %d cycle(s), phi moved %.2e\n", name, again.iterations, moved);
    CHECK(first.status == DG_OUTCOME_CONVERGED && again.status == DG_OUTCOME_CONVERGED &&
              again.iterations == 1 && moved < 1e-5,
          "%s from the answer: %s after %d cycles, phi moved %.2e", name,
          dg_outcome_string(again.status), again.iterations, moved);
    free(first.phi), free(again.phi);
    dense_problem_free(&d);

    dense_problem zero;
    dense_problem_init(&zero, n, n, n, 1.0, 80.0);
    dense_problem_sphere(&zero, n / 2, n / 2, n / 2, n / 4.0, 2.0);
    memset(phi, 0, points * sizeof *phi);
    outcome none = run(&zero, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, precision, 1e-5);
    double biggest = 0.0;
    for (long w = 0; w < points; ++w)
        biggest = fmax(biggest, fabs(none.phi[w]));
    CHECK(none.status == DG_OUTCOME_CONVERGED && none.iterations == 0 && biggest == 0.0,
          "%s zero answer: %s after %d cycles, max |phi| %.2e", name,
          dg_outcome_string(none.status), none.iterations, biggest);
    free(none.phi), free(phi);
    dense_problem_free(&zero);
}

/* Float near its resolution on CUDA, as test_multigrid's float_resolution on the CPU: maxc 1e-3
   is about 4 float epsilons of max |phi| at 65^3, below the resolution level (16) but within
   reach: the float SOR and the float multigrid both converge (the multigrid once called it
   float's resolution there), and 1e-5 ends at float's resolution with the SOR's accuracy. */
static void float_near_resolution(void) {
    const int n = 65;
    const long points = (long)n * n * n;
    dense_problem d;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 0, &faces);
    outcome ref = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-11);
    outcome sor = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_SOR, DG_PRECISION_FLOAT, 1e-3);
    outcome mg = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-3);
    outcome cpu = run(&d, phi, DG_BACKEND_CPU, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-3);
    outcome tight = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-5);
    outcome sor_tight = run(&d, phi, DG_BACKEND_CUDA, DG_SOLVER_SOR, DG_PRECISION_FLOAT, 1e-5);
    const double e_sor = max_abs_diff(sor.phi, ref.phi, points, NULL),
                 e_mg = max_abs_diff(mg.phi, ref.phi, points, NULL),
                 e_tight = max_abs_diff(tight.phi, ref.phi, points, NULL),
                 e_sor_tight = max_abs_diff(sor_tight.phi, ref.phi, points, NULL);
    printf("float 65^3, maxc 1e-3: CUDA SOR %d it (%s) error %.2e, CUDA MG %d cycles (%s) error "
           "%.2e, CPU MG %d cycles (%s); maxc 1e-5: CUDA MG %d cycles (%s) error %.2e, SOR %.2e\n",
           sor.iterations, dg_outcome_string(sor.status), e_sor, mg.iterations,
           dg_outcome_string(mg.status), e_mg, cpu.iterations, dg_outcome_string(cpu.status),
           tight.iterations, dg_outcome_string(tight.status), e_tight, e_sor_tight);
    CHECK(sor.status == DG_OUTCOME_CONVERGED && mg.status == DG_OUTCOME_CONVERGED &&
              cpu.status == DG_OUTCOME_CONVERGED,
          "float at maxc 1e-3: CUDA SOR %s, CUDA MG %s, CPU MG %s", dg_outcome_string(sor.status),
          dg_outcome_string(mg.status), dg_outcome_string(cpu.status));
    CHECK(e_mg <= e_sor, "float CUDA MG error %.2e against the float SOR's %.2e", e_mg, e_sor);
    CHECK(tight.status == DG_OUTCOME_FLOAT_RESOLUTION && e_tight <= 2.0 * e_sor_tight,
          "float at maxc 1e-5: CUDA MG %s, error %.2e against the SOR's %.2e",
          dg_outcome_string(tight.status), e_tight, e_sor_tight);
    free(ref.phi), free(sor.phi), free(mg.phi), free(cpu.phi), free(tight.phi);
    free(sor_tight.phi), free(phi);
    dense_problem_free(&d);
}

int main(void) {
    gpu_require_device("test_gpu_multigrid");
    float_near_resolution();
    progress_and_stop(DG_PRECISION_DOUBLE);
    progress_and_stop(DG_PRECISION_MIXED);
    starts_at_the_answer(DG_PRECISION_DOUBLE);
    starts_at_the_answer(DG_PRECISION_MIXED);
    compare(65, 0, DG_PRECISION_DOUBLE);
    compare(65, 1, DG_PRECISION_DOUBLE);
    compare(97, 0, DG_PRECISION_DOUBLE);
    compare(65, 0, DG_PRECISION_FLOAT);
    compare(65, 0, DG_PRECISION_MIXED);
    compare(97, 1, DG_PRECISION_MIXED);
    hand_over();
    bad_phi();
    early_start();
    classes_same_bits();
    workspace_kept();
    auto_below();
    return test_finish("test_gpu_multigrid");
}
