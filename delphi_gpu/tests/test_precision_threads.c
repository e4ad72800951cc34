/* Float and double agree to float accuracy; 1 thread and several threads agree bitwise (sweeps
 * and the fixed-order reductions), for Poisson, linear PB and nonlinear PB. */
#include "test_util.h"

enum { N = 41, C = 20 }; /* > DG_CPU_PARALLEL_MIN interior points: loops really split */

static void build(dense_problem *d) {
    dense_problem_init(d, N, N, N, 2.0, 80.0);
    dense_problem_sphere(d, C, C, C, 6.0, 2.0);
    dense_problem_salt(d, C, C, C, 9.0, 0.15);
    d->charge[idx3(N, N, C, C, C)] = 1.5;
    d->charge[idx3(N, N, C + 3, C - 2, C + 1)] = -1.0;
    d->charge[idx3(N, N, C - 4, C + 1, C)] = 0.5;
}

/* Solve with the given options from a zero start (zero faces); returns phi (double). */
static double *run(const dense_problem *d, int precision, int threads, int equation, int iterations,
                   double tolerance, dg_result *r) {
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.num_threads = threads;
    o.equation = equation;
    o.iterations = iterations;
    o.max_change_tol = tolerance;
    o.nonlinear_blocks = 25;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    double *phi = calloc((long)N * N * N, sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, r), s);
    dg_destroy(s);
    return phi;
}

int main(void) {
    const long points = (long)N * N * N;
    dense_problem d;
    build(&d);
    dg_result rd, rf;
    /* Same iteration count (past convergence), so only the arithmetic differs. */
    double *pd = run(&d, DG_PRECISION_DOUBLE, 1, DG_EQUATION_LINEAR, 300, 0.0, &rd);
    double *pf = run(&d, DG_PRECISION_FLOAT, 1, DG_EQUATION_LINEAR, 300, 0.0, &rf);
    double ref, diff = max_abs_diff(pf, pd, points, &ref);
    printf("float vs double, %d iterations: max |difference| / max |phi| = %.2e, last max change "
           "%.1e (double)\n",
           rd.iterations, diff / ref, rd.max_change);
    CHECK(diff / ref < 2e-5, "float and double differ by %.2e", diff / ref);
    CHECK(diff > 0.0, "float and double are identical: float arithmetic is not in use");
    CHECK(rd.max_change < 1e-8, "the double run has not converged: %g", rd.max_change);
    free(pd), free(pf);

    const int equations[2] = {DG_EQUATION_LINEAR, DG_EQUATION_NONLINEAR_PB};
    for (int e = 0; e < 2; ++e)
        for (int precision = 0; precision < 2; ++precision) {
            dg_result r1, r3;
            double *one = run(&d, precision, 1, equations[e], 57, 0.0, &r1);
            double *three = run(&d, precision, 3, equations[e], 57, 0.0, &r3);
            int same = memcmp(one, three, points * sizeof *one) == 0;
            printf("%s, %s: 1 vs 3 threads after %d iterations: %s (max change %.17g vs %.17g)\n",
                   e ? "nonlinear" : "linear", precision ? "float" : "double", r1.iterations,
                   same ? "bitwise identical" : "DIFFERENT", r1.max_change, r3.max_change);
            CHECK(same, "thread count changes the result");
            CHECK(r1.iterations == r3.iterations && r1.max_change == r3.max_change &&
                      r1.rms_change == r3.rms_change,
                  "thread count changes the convergence statistics");
            free(one), free(three);
        }
    dense_problem_free(&d);
    return test_finish("test_precision_threads");
}
