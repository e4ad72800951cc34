/* Nonlinear PB by Newton (dg_options.nonlinear_method = NEWTON):
 *  - small potentials reproduce linear PB;
 *  - with DelPhi's polynomial term it converges to the fixed point of DelPhi's scheme;
 *  - with the exact term the solution satisfies the discrete equation
 *    (sum of neighbours - 6 phi) = (kappa h)^2 sinh(phi) at uniform salt points;
 *  - a highly charged sphere (potentials of tens of kT/e) converges to max change 1e-5 kT/e,
 *    at 0.15 M and 1 M, in double and float, independently of the thread count;
 *  - with its steps solved by multigrid (solver MULTIGRID) it reaches the same solution as with
 *    the SOR, in fewer inner iterations (cycles), independently of the thread count. */
#include "test_util.h"

enum { N = 41, C = 20 };
static const double scale = 2.0, exclusion = 3.0;

typedef struct run {
    double charge, molar;
    int method, term, nonlinear, precision_float, threads;
    double tol;
    int solver; /* dg_solver_method */
} run;

static double *solve(const run *u, dense_problem *d, dg_result *r) {
    dense_problem_init(d, N, N, N, scale, 80.0);
    dense_problem_sphere(d, C, C, C, 2.0 * scale, 2.0);
    dense_problem_salt(d, C, C, C, exclusion * scale, u->molar);
    d->charge[idx3(N, N, C, C, C)] = u->charge;
    dg_options o;
    dg_default_options(&o);
    o.max_change_tol = u->tol;
    o.equation = u->nonlinear ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_LINEAR;
    o.nonlinear_blocks = 400;
    o.nonlinear_method = u->method;
    o.nonlinear_term = u->term;
    /* DelPhi's adaptive relaxation (stock's rules) grows relpar past 2 once the change is tiny:
       a fixed relaxation lets its scheme reach the 1e-9 criterion. */
    if (u->method == DG_NONLINEAR_DELPHI) o.relpar = 1.5;
    o.num_threads = u->threads;
    o.solver = u->solver;
    if (u->precision_float) o.precision = DG_PRECISION_FLOAT;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    /* Faces: the linear Debye-Hueckel potential (small there). */
    point_source src = {C, C, C, u->charge, 80.0, scale, debye_kappa(u->molar, 80.0), exclusion};
    const long n = (long)N * N * N;
    double *phi = malloc(n * sizeof *phi);
    set_faces(phi, N, N, N, point_potential, &src);
    if (u->precision_float) {
        float *phif = malloc(n * sizeof *phif);
        for (long i = 0; i < n; ++i)
            phif[i] = (float)phi[i];
        CHECK_OK(dg_solve_f(s, phif, r), s);
        for (long i = 0; i < n; ++i)
            phi[i] = phif[i];
        free(phif);
    } else {
        CHECK_OK(dg_solve_d(s, phi, r), s);
    }
    CHECK(r->solver == (u->solver == DG_SOLVER_MULTIGRID ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR),
          "solver %d ran as %d (%s)", u->solver, r->solver, dg_solver_choice(s));
    printf("charge %6.1f e, %4.2f M, %-6s %-10s %s %d thr %s: %-13s %5d %s, %3d %s, max change "
           "%.2e, %.2f s\n",
           u->charge, u->molar,
           !u->nonlinear                      ? "linear"
           : u->method == DG_NONLINEAR_NEWTON ? "newton"
                                              : "delphi",
           u->term == DG_NONLINEAR_TERM_EXACT ? "exact" : "polynomial",
           u->precision_float ? "float " : "double", u->threads,
           u->solver == DG_SOLVER_MULTIGRID ? "mg " : "sor", dg_outcome_string(r->outcome),
           r->iterations, u->solver == DG_SOLVER_MULTIGRID ? "cycles" : "sweeps",
           r->nonlinear_blocks, u->method == DG_NONLINEAR_NEWTON ? "steps " : "blocks",
           r->max_change, r->solve_seconds);
    dg_destroy(s);
    return phi;
}

/* Largest residual of (sum - 6 phi) = kh^2 sinh(phi) (or its polynomial) at salt points whose
   neighbours are all salt points (uniform permittivity there), relative to the ionic term. */
static double equation_residual(const double *phi, const dense_problem *d, double molar,
                                int exact) {
    const double kh = debye_kappa(molar, 80.0) / scale, kh2 = kh * kh;
    double worst = 0.0;
    for (int z = 1; z < N - 1; ++z)
        for (int y = 1; y < N - 1; ++y)
            for (int x = 1; x < N - 1; ++x) {
                const long w = idx3(N, N, x, y, z);
                if (!d->ions[w] || fabs(phi[w]) < 0.05) continue;
                const double p = phi[w];
                const double sum = phi[w - 1] + phi[w + 1] + phi[w - N] + phi[w + N] +
                                   phi[w - N * N] + phi[w + N * N];
                const double ionic = kh2 * (exact ? sinh(p) : p + p * p * p / 6 + pow(p, 5) / 120);
                const double rel = fabs(sum - 6 * p - ionic) / fabs(ionic);
                if (rel > worst) worst = rel;
            }
    return worst;
}

#define NEWTON_EXACT(q, m)                                                                         \
    { q, m, DG_NONLINEAR_NEWTON, DG_NONLINEAR_TERM_EXACT, 1, 0, 1, 1e-5, DG_SOLVER_SOR }

int main(void) {
    const long points = (long)N * N * N;
    dense_problem d1, d2;
    dg_result r1, r2;
    double ref, diff;

    /* Small potentials: Newton (exact term) = linear PB. */
    run lin_small = {0.01, 0.15, 0, 0, 0, 0, 1, 1e-9, DG_SOLVER_SOR};
    run newton_small = NEWTON_EXACT(0.01, 0.15);
    newton_small.tol = 1e-9;
    double *lin = solve(&lin_small, &d1, &r1), *non = solve(&newton_small, &d2, &r2);
    diff = max_abs_diff(non, lin, points, &ref);
    printf("small charge: max |newton - linear| / max |phi| = %.2e\n", diff / ref);
    CHECK(r2.outcome == DG_OUTCOME_CONVERGED, "small charge: %s", dg_outcome_string(r2.outcome));
    CHECK(diff / ref < 1e-5, "small potentials: Newton differs from linear PB by %.2e", diff / ref);
    free(lin), free(non), dense_problem_free(&d1), dense_problem_free(&d2);

    /* DelPhi's polynomial: Newton reaches the fixed point of DelPhi's scheme. */
    run delphi5 = {5.0, 0.15, DG_NONLINEAR_DELPHI, DG_NONLINEAR_TERM_AUTO, 1, 0,
                   1,   1e-9, DG_SOLVER_SOR};
    run newton5 = {5.0, 0.15, DG_NONLINEAR_NEWTON, DG_NONLINEAR_TERM_POLYNOMIAL, 1, 0,
                   1,   1e-9, DG_SOLVER_SOR};
    lin = solve(&delphi5, &d1, &r1), non = solve(&newton5, &d2, &r2);
    diff = max_abs_diff(non, lin, points, &ref);
    printf("charge 5 e, polynomial: max |newton - delphi scheme| / max |phi| = %.2e\n", diff / ref);
    CHECK(r1.outcome == DG_OUTCOME_CONVERGED && r2.outcome == DG_OUTCOME_CONVERGED,
          "polynomial: %s / %s", dg_outcome_string(r1.outcome), dg_outcome_string(r2.outcome));
    CHECK(diff / ref < 1e-6, "Newton and DelPhi's scheme differ by %.2e", diff / ref);
    CHECK(equation_residual(non, &d2, 0.15, 0) < 1e-6, "polynomial residual %.2e",
          equation_residual(non, &d2, 0.15, 0));
    free(lin), free(non), dense_problem_free(&d1), dense_problem_free(&d2);

    /* Highly charged sphere, exact term, 0.15 M and 1 M: converges, satisfies the equation. */
    const double molars[2] = {0.15, 1.0};
    for (int m = 0; m < 2; ++m) {
        run big = NEWTON_EXACT(-60.0, molars[m]);
        big.tol = 1e-8;
        non = solve(&big, &d2, &r2);
        CHECK(r2.outcome == DG_OUTCOME_CONVERGED && r2.max_change <= 1e-8,
              "charge -60 e at %g M: %s, max change %.2e", molars[m], dg_outcome_string(r2.outcome),
              r2.max_change);
        const double residual = equation_residual(non, &d2, molars[m], 1);
        long probe = idx3(N, N, C + (int)(exclusion * scale) + 1, C, C);
        printf("  potential just outside the exclusion radius %.3f kT/e; relative residual "
               "%.2e\n",
               non[probe], residual);
        CHECK(non[probe] < -2.0, "the highly charged case is not highly nonlinear (%.3f kT/e)",
              non[probe]);
        CHECK(residual < 1e-6, "exact-term residual %.2e", residual);
        CHECK(equation_residual(non, &d2, molars[m], 0) > 1e-2,
              "the residual check cannot tell sinh from its polynomial");
        /* The steps by multigrid: the same solution, fewer inner iterations. */
        dense_problem d3;
        dg_result r3;
        run by_mg = big;
        by_mg.solver = DG_SOLVER_MULTIGRID;
        double *mg = solve(&by_mg, &d3, &r3);
        diff = max_abs_diff(mg, non, points, &ref);
        printf("  multigrid steps vs SOR steps: max diff / max |phi| = %.2e (%d cycles in %d "
               "steps, %d sweeps in %d)\n",
               diff / ref, r3.iterations, r3.nonlinear_blocks, r2.iterations, r2.nonlinear_blocks);
        CHECK(r3.outcome == DG_OUTCOME_CONVERGED && r3.max_change <= 1e-8,
              "multigrid steps at %g M: %s, max change %.2e", molars[m],
              dg_outcome_string(r3.outcome), r3.max_change);
        CHECK(diff / ref < 1e-7, "multigrid steps differ from SOR steps by %.2e", diff / ref);
        CHECK(equation_residual(mg, &d3, molars[m], 1) < 1e-6, "multigrid steps: residual %.2e",
              equation_residual(mg, &d3, molars[m], 1));
        CHECK(r3.iterations * 5 < r2.iterations, "multigrid steps took %d cycles (SOR: %d sweeps)",
              r3.iterations, r2.iterations);
        if (m == 0) {
            run mg2 = by_mg;
            mg2.threads = 2;
            dg_result r4;
            double *two = solve(&mg2, &d1, &r4);
            CHECK(memcmp(mg, two, points * sizeof *mg) == 0 && r3.iterations == r4.iterations,
                  "multigrid steps: 1 and 2 threads differ");
            free(two), dense_problem_free(&d1);
            run mgf = by_mg;
            mgf.precision_float = 1, mgf.tol = 1e-4; /* float resolution */
            double *single = solve(&mgf, &d1, &r4);
            diff = max_abs_diff(single, non, points, &ref);
            printf("  multigrid steps, float vs double: max diff / max |phi| = %.2e\n", diff / ref);
            CHECK(r4.outcome == DG_OUTCOME_CONVERGED, "multigrid steps in float: %s",
                  dg_outcome_string(r4.outcome));
            CHECK(diff / ref < 1e-4, "multigrid steps in float differ by %.2e", diff / ref);
            free(single), dense_problem_free(&d1);
        }
        free(mg), dense_problem_free(&d3);
        if (m == 0) {
            /* Thread count: bitwise equal. Float: agrees to float accuracy. */
            run two = big;
            two.threads = 2;
            double *non2 = solve(&two, &d1, &r1);
            CHECK(memcmp(non, non2, points * sizeof *non) == 0 && r1.iterations == r2.iterations,
                  "1 and 2 threads differ");
            free(non2), dense_problem_free(&d1);
            run single = big;
            single.precision_float = 1, single.tol = 1e-4; /* float resolution */
            double *nonf = solve(&single, &d1, &r1);
            diff = max_abs_diff(nonf, non, points, &ref);
            printf("  float vs double: max diff / max |phi| = %.2e\n", diff / ref);
            CHECK(r1.outcome == DG_OUTCOME_CONVERGED, "float: %s", dg_outcome_string(r1.outcome));
            CHECK(diff / ref < 1e-4, "float differs by %.2e", diff / ref);
            free(nonf), dense_problem_free(&d1);
        }
        free(non), dense_problem_free(&d2);
    }

    /* DelPhi's nonlinear scheme has no multigrid form: refused, naming the way that has. */
    {
        dense_problem_init(&d1, N, N, N, scale, 80.0);
        dense_problem_salt(&d1, C, C, C, exclusion * scale, 0.15);
        dg_options od;
        dg_default_options(&od);
        od.equation = DG_EQUATION_NONLINEAR_PB, od.solver = DG_SOLVER_MULTIGRID;
        dg_solver sd = make_cpu_solver(&od);
        CHECK_OK(dg_set_dense_medium_d(sd, &d1.medium), sd);
        double *phi = calloc(points, sizeof *phi);
        const int st = dg_solve_d(sd, phi, NULL);
        CHECK(st == DG_ERR_UNSUPPORTED && strstr(dg_last_error(sd), "NEWTON"),
              "DelPhi's scheme with MULTIGRID: status %d (%s)", st, dg_last_error(sd));
        free(phi), dg_destroy(sd), dense_problem_free(&d1);
    }

    /* EXACT needs a symmetric salt and Newton; DelPhi's scheme rejects it. */
    dg_options o;
    dg_default_options(&o);
    o.nonlinear_term = DG_NONLINEAR_TERM_EXACT;
    dg_solver s = NULL;
    CHECK(dg_create(&s, &o) == DG_ERR_UNSUPPORTED, "EXACT with DELPHI accepted");
    dg_destroy(s);
    /* Newton with mixed precision is refused (its residual is in double already). */
    dg_options mixed;
    dg_default_options(&mixed);
    mixed.backend = DG_BACKEND_CPU, mixed.precision = DG_PRECISION_MIXED;
    mixed.equation = DG_EQUATION_NONLINEAR_PB, mixed.nonlinear_method = DG_NONLINEAR_NEWTON;
    dg_solver refused = NULL;
    const int status = dg_create(&refused, &mixed);
    CHECK(status == DG_ERR_UNSUPPORTED && strstr(dg_last_error(refused), "MIXED"),
          "Newton with MIXED: status %d (%s)", status, dg_last_error(refused));
    dg_destroy(refused);
    return test_finish("test_newton");
}
