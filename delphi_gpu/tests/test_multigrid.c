/* Multigrid (dg_options.solver = DG_SOLVER_MULTIGRID) against the SOR converged tightly, on
 * the same discrete equations: a protein-like medium (spheres of eps 2 in 80, charges) with and
 * without salt, the linear potential (exact), and the cycle count over grid sizes. */
#include <float.h>

#include "../src/mg/mg.h"
#include "mg_problem.h"

typedef struct run {
    double energy, max_phi, seconds;
    int iterations, outcome;
    double *phi;
} run;

static run solve(dense_problem *d, const double *faces_phi, int method, int precision,
                 double maxc) {
    dg_options o;
    dg_default_options(&o);
    o.solver = method;
    o.precision = precision;
    o.max_change_tol = maxc;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    long n = (long)d->nx * d->ny * d->nz;
    run out = {0};
    out.phi = malloc(n * sizeof(double));
    memcpy(out.phi, faces_phi, n * sizeof(double));
    dg_result r;
    CHECK_OK(dg_solve_d(s, out.phi, &r), s);
    out.energy = mg_problem_energy(d, out.phi);
    out.iterations = r.iterations, out.outcome = r.outcome, out.seconds = r.total_seconds;
    for (long w = 0; w < n; ++w)
        out.max_phi = fmax(out.max_phi, fabs(out.phi[w]));
    dg_destroy(s);
    return out;
}

/* MG and SOR agree on the protein-like medium (energy 1e-6 relative, phi 1e-5 of its max). */
static void agreement(int n, int salt, int precision) {
    dense_problem d;
    long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, salt, &faces);
    run sor = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-9);
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, precision,
                   precision == DG_PRECISION_DOUBLE ? 1e-8 : 1e-5);
    const double de = fabs(mg.energy - sor.energy) / fabs(sor.energy);
    const double dphi = max_abs_diff(mg.phi, sor.phi, points, NULL) / sor.max_phi;
    printf("%3d^3 salt %d %s: SOR %5d it %.3f s, MG %3d cycles %.3f s (%s); energy %.8g vs %.8g "
           "(rel %.1e), max |dphi|/max|phi| %.1e\n",
           n, salt, precision == DG_PRECISION_DOUBLE ? "double" : "float ", sor.iterations,
           sor.seconds, mg.iterations, mg.seconds, dg_outcome_string(mg.outcome), mg.energy,
           sor.energy, de, dphi);
    CHECK(sor.outcome == DG_OUTCOME_CONVERGED, "SOR %s", dg_outcome_string(sor.outcome));
    if (precision == DG_PRECISION_DOUBLE) {
        CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "MG %s", dg_outcome_string(mg.outcome));
        CHECK(de < 1e-6, "energy differs by %.2e relative", de);
        CHECK(dphi < 1e-6, "phi differs by %.2e of its max", dphi);
    } else {
        CHECK(de < 1e-4, "float energy differs by %.2e relative", de);
        CHECK(dphi < 1e-4, "float phi differs by %.2e of its max", dphi);
    }
    free(sor.phi), free(mg.phi), free(phi);
    dense_problem_free(&d);
}

/* A uniform medium without charges and linear face values: the exact solution is linear. */
static void linear_potential(void) {
    const int n = 33;
    dense_problem d;
    dense_problem_init(&d, n, n, n, 1.0, 80.0);
    long points = (long)n * n * n;
    double *phi = calloc(points, sizeof *phi), *exact = malloc(points * sizeof *exact);
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                long w = idx3(n, n, x, y, z);
                exact[w] = 0.5 * x - 0.25 * y + 0.125 * z + 1.0;
                int face = !x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1;
                phi[w] = face ? exact[w] : 0.0;
            }
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-10);
    double ref = 0;
    double err = max_abs_diff(mg.phi, exact, points, &ref);
    printf("linear potential: %d cycles, max error %.2e\n", mg.iterations, err);
    CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(mg.outcome));
    CHECK(err < 1e-9 * ref, "max error %.2e", err);
    free(mg.phi), free(phi), free(exact);
    dense_problem_free(&d);
}

/* What the progress callback saw; stop_at > 0 asks to stop after that cycle. */
typedef struct cycle_log {
    int calls, in_order, wrong_fields, stop_at, estimate_mid, mid;
    double last_max, last_elapsed;
} cycle_log;

static int on_cycle(const dg_progress *p, void *user) {
    cycle_log *l = user;
    l->calls++;
    if (p->iteration != l->calls) l->in_order = 0;
    if (p->solver != DG_SOLVER_MULTIGRID || p->phase != DG_PHASE_LINEAR || p->omega != 0.0 ||
        p->nonlinear_block != 0 || !(p->rms_change <= p->max_change) ||
        !(p->norm_change >= p->max_change) || p->elapsed_seconds < l->last_elapsed)
        l->wrong_fields++;
    if (p->iteration == l->mid) l->estimate_mid = p->estimated_total;
    l->last_max = p->max_change, l->last_elapsed = p->elapsed_seconds;
    return l->stop_at > 0 && p->iteration >= l->stop_at;
}

/* One CPU multigrid solve (maxc 1e-5 unless cycles > 0: exactly that many, no criterion) with
   the callback when log is not NULL. */
static dg_result solve_logged(dense_problem *d, double *phi, int cycles, cycle_log *log) {
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID;
    if (cycles > 0)
        o.iterations = cycles;
    else
        o.max_change_tol = 1e-5;
    if (log) o.progress = on_cycle, o.progress_user_data = log;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    dg_destroy(s);
    return r;
}

/* The progress callback runs after every multigrid cycle with the measures of the cycle's
   change of phi and an estimate of the cycles to go; asked to stop after cycle 3 the solve ends
   STOPPED with the answer of exactly three cycles. */
static void progress_and_stop(void) {
    const int n = 65;
    dense_problem d;
    mg_faces faces;
    const long points = (long)n * n * n;
    double *start = malloc(points * sizeof *start), *phi = malloc(points * sizeof *phi);
    double *three = malloc(points * sizeof *three);
    mg_problem_build(&d, start, n, 0, &faces);
    memcpy(phi, start, points * sizeof *phi);
    const dg_result plain = solve_logged(&d, phi, 0, NULL);
    cycle_log seen = {0, 1, 0, 0, 0, plain.iterations / 2, 0.0, 0.0};
    memcpy(phi, start, points * sizeof *phi);
    const dg_result r = solve_logged(&d, phi, 0, &seen);
    printf("progress: %d calls for %d cycles, estimate after cycle %d: %d\n", seen.calls,
           r.iterations, seen.mid, seen.estimate_mid);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED && r.iterations == plain.iterations,
          "with a callback: %s after %d cycles, without %d", dg_outcome_string(r.outcome),
          r.iterations, plain.iterations);
    CHECK(seen.calls == r.iterations && seen.in_order, "%d calls for %d cycles (in order %d)",
          seen.calls, r.iterations, seen.in_order);
    CHECK(seen.wrong_fields == 0, "%d reports with wrong fields", seen.wrong_fields);
    CHECK(seen.last_max <= 1e-5 && seen.last_max == r.max_change,
          "last reported max change %.3e (result %.3e): above the tolerance 1e-5 or not the "
          "result's",
          seen.last_max, r.max_change);
    CHECK(abs(seen.estimate_mid - r.iterations) <= 3, "estimate %d after cycle %d, took %d",
          seen.estimate_mid, seen.mid, r.iterations);

    cycle_log stopper = {0, 1, 0, 3, 0, 0, 0.0, 0.0};
    memcpy(phi, start, points * sizeof *phi);
    const dg_result st = solve_logged(&d, phi, 0, &stopper);
    memcpy(three, start, points * sizeof *three);
    const dg_result fixed = solve_logged(&d, three, 3, NULL);
    CHECK(st.outcome == DG_OUTCOME_STOPPED && st.iterations == 3 && stopper.calls == 3,
          "stopped: %s after %d cycles, %d calls", dg_outcome_string(st.outcome), st.iterations,
          stopper.calls);
    CHECK(fixed.outcome == DG_OUTCOME_COMPLETED && fixed.iterations == 3, "fixed: %s after %d",
          dg_outcome_string(fixed.outcome), fixed.iterations);
    CHECK(!memcmp(phi, three, points * sizeof *phi) && st.max_change == fixed.max_change &&
              st.max_change > 1e-6,
          "the stopped answer is not three cycles' (max change %.3e and %.3e)", st.max_change,
          fixed.max_change);
    free(start), free(phi), free(three);
    dense_problem_free(&d);
}

/* Nonlinear PB is refused with a message naming the option. */
static void refusals(void) {
    dense_problem d;
    const int n = 17;
    double *phi = calloc((size_t)n * n * n, sizeof *phi);
    dense_problem_init(&d, n, n, n, 1.0, 80.0);
    dense_problem_salt(&d, 8, 8, 8, 2.0, 0.15);
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID;
    o.equation = DG_EQUATION_NONLINEAR_PB;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    int st = dg_solve_d(s, phi, NULL);
    CHECK(st == DG_ERR_UNSUPPORTED && strstr(dg_last_error(s), "solver"), "status %d: %s", st,
          dg_last_error(s));
    dg_destroy(s);
    free(phi);
    dense_problem_free(&d);
}

/* DG_SOLVER_AUTO: SOR below the CPU's multigrid size, for nonlinear PB and for a DelPhi-style
   run; multigrid at and above it; dg_solver_choice and dg_result.solver say which. */
static void auto_choice(void) {
    const int sizes[2] = {33, DG_MG_AUTO_EDGE_CPU};
    for (int i = 0; i < 2; ++i) {
        const int n = sizes[i];
        dense_problem d;
        double *phi = malloc((size_t)n * n * n * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, 1, &faces);
        dg_options o;
        dg_default_options(&o);
        o.solver = DG_SOLVER_AUTO;
        o.max_change_tol = 1e-5;
        if (n >= DG_MG_AUTO_EDGE_CPU) o.max_iterations = 1; /* only the choice is tested */
        dg_solver s = make_cpu_solver(&o);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        CHECK(!strcmp(dg_solver_choice(s), ""), "choice before a solve: %s", dg_solver_choice(s));
        dg_result r;
        CHECK_OK(dg_solve_d(s, phi, &r), s);
        const int mg = n >= DG_MG_AUTO_EDGE_CPU;
        printf("AUTO at %d^3: %s\n", n, dg_solver_choice(s));
        CHECK(r.solver == (mg ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR), "solver %d at %d^3", r.solver,
              n);
        CHECK(strstr(dg_solver_choice(s), mg ? "multigrid: solver AUTO, linear equation"
                                             : "sor: solver AUTO, linear equation"),
              "%s", dg_solver_choice(s));
        if (mg) {
            /* a fixed count without a criterion counts SOR iterations */
            o.max_change_tol = 0.0, o.iterations = 2, o.max_iterations = 0;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR && r.iterations == 2 &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, a fixed iteration count"),
                  "fixed count: %d %d %s", r.solver, r.iterations, dg_solver_choice(s));
            /* DelPhi's nonlinear scheme: SOR whatever the size */
            o.equation = DG_EQUATION_NONLINEAR_PB;
            o.iterations = 10;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, DelPhi's nonlinear scheme"),
                  "nonlinear: %d %s", r.solver, dg_solver_choice(s));
            /* Newton's method: its steps by the SOR on the CPU */
            o.nonlinear_method = DG_NONLINEAR_NEWTON;
            o.iterations = 0;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, Newton's method on the cpu"),
                  "Newton: %d %s", r.solver, dg_solver_choice(s));
        }
        dg_destroy(s);
        free(phi);
        dense_problem_free(&d);
    }
}

/* A float caller's phi with the double multigrid: the answer's interior comes back, the
   faces stay the caller's own bits, and it matches the double caller's answer. */
static void float_caller(void) {
    const int n = 33;
    dense_problem d;
    const long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    float *phif = malloc(points * sizeof *phif), *facesf = malloc(points * sizeof *facesf);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 0, &faces);
    for (int z = 0; z < n; ++z) /* a non-zero start inside, the faces as they are */
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                const int face = !x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1;
                phif[w] = facesf[w] = (float)phi[w] + (!face && w % 7 == 0 ? 1.0f : 0.0f);
            }
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID, o.max_change_tol = 1e-8;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    dg_result r;
    CHECK_OK(dg_solve_f(s, phif, &r), s);
    run ref = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-8);
    double worst = 0.0;
    int faces_kept = 1;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                if (!x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1)
                    faces_kept &= phif[w] == facesf[w];
                else
                    worst = fmax(worst, fabs(phif[w] - ref.phi[w]));
            }
    printf("float caller: %d cycles, max |dphi| %.2e of %.3g\n", r.iterations, worst, ref.max_phi);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(r.outcome));
    CHECK(faces_kept, "the caller's faces changed");
    CHECK(worst < 1e-6 * ref.max_phi, "float caller's answer off by %.2e", worst);
    dg_destroy(s);
    free(phi), free(phif), free(facesf), free(ref.phi);
    dense_problem_free(&d);
}

/* The stopping rule's promise (mg/mg.h): at the same maxc the multigrid's
   answer is at least as close to the exact discrete solution (a multigrid solve to 1e-11) as
   the SOR's, on the protein-like medium. */
static void accuracy_against_sor(int n, int salt) {
    dense_problem d;
    const long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, salt, &faces);
    run ref = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-11);
    run sor = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-5);
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
    const double e_sor = max_abs_diff(sor.phi, ref.phi, points, NULL);
    const double e_mg = max_abs_diff(mg.phi, ref.phi, points, NULL);
    printf("%3d^3 salt %d, maxc 1e-5: max error SOR %.2e (%d it), MG %.2e (%d cycles)\n", n, salt,
           e_sor, sor.iterations, e_mg, mg.iterations);
    CHECK(mg.outcome == DG_OUTCOME_CONVERGED && sor.outcome == DG_OUTCOME_CONVERGED, "%s, %s",
          dg_outcome_string(mg.outcome), dg_outcome_string(sor.outcome));
    CHECK(e_mg <= e_sor, "%d^3: the multigrid's error %.2e exceeds the SOR's %.2e", n, e_mg, e_sor);
    free(ref.phi), free(sor.phi), free(mg.phi), free(phi);
    dense_problem_free(&d);
}

/* The criterion is a cycle's change (mg/mg.h): a solve from its own answer converges after one
   cycle, which moves phi by less than maxc; an equation whose answer is zero (no charges, zero
   faces) has a zero residual and converges without a cycle. */
static void starts_at_the_answer(void) {
    const int n = 33;
    const long points = (long)n * n * n;
    dense_problem d;
    mg_faces faces;
    double *phi = malloc(points * sizeof *phi);
    mg_problem_build(&d, phi, n, 1, &faces);
    run first = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-8);
    run again = solve(&d, first.phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
    const double moved = max_abs_diff(first.phi, again.phi, points, NULL);
    printf("from its own answer: %d cycle(s), phi moved %.2e\n", again.iterations, moved);
    CHECK(first.outcome == DG_OUTCOME_CONVERGED && again.outcome == DG_OUTCOME_CONVERGED &&
              again.iterations == 1 && moved < 1e-5,
          "from the answer: %s after %d cycles, phi moved %.2e", dg_outcome_string(again.outcome),
          again.iterations, moved);
    free(first.phi), free(again.phi);
    dense_problem_free(&d);

    dense_problem zero;
    dense_problem_init(&zero, n, n, n, 1.0, 80.0);
    dense_problem_sphere(&zero, n / 2, n / 2, n / 2, n / 4.0, 2.0);
    memset(phi, 0, points * sizeof *phi);
    run none = solve(&zero, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
    CHECK(none.outcome == DG_OUTCOME_CONVERGED && none.iterations == 0 && none.max_phi == 0.0,
          "zero answer: %s after %d cycles, max |phi| %.2e", dg_outcome_string(none.outcome),
          none.iterations, none.max_phi);
    free(none.phi), free(phi);
    dense_problem_free(&zero);
}

/* Float: a maxc below float's resolution ends, as the SOR's float solve does, at float's
   resolution (DG_OUTCOME_FLOAT_RESOLUTION, not "converged"), here at the first cycle whose
   change and true residual are within one rounding of max |phi|, where the answer is at least
   as close to the exact one as the float SOR's (when the float residual's floor counted as met,
   multigrid stopped three cycles earlier, "converged", 35 times farther off at 97^3); a maxc
   within reach converges, also one below the level of 16 roundings. */
static void float_resolution(void) {
    const int n = 65;
    const long points = (long)n * n * n;
    dense_problem d;
    mg_faces faces;
    double *phi = malloc(points * sizeof *phi);
    mg_problem_build(&d, phi, n, 0, &faces);
    run ref = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-11);
    run sor = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_FLOAT, 1e-5);
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-5);
    /* a maxc just within reach: one and a quarter roundings of max |phi| */
    const double rounding = FLT_EPSILON * ref.max_phi;
    run at_rounding = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1.25 * rounding);
    run loose = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 0.1);
    /* 1e-3 is about 4 float epsilons of max |phi| (2252): below the resolution level of 16, but
       reachable (the float SOR converges); a float multigrid once called it float's resolution
       there while its change still fell fourfold a cycle */
    run sor_near = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_FLOAT, 1e-3);
    run mg_near = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-3);
    const double e_sor = max_abs_diff(sor.phi, ref.phi, points, NULL);
    const double e_mg = max_abs_diff(mg.phi, ref.phi, points, NULL);
    const double e_sor_near = max_abs_diff(sor_near.phi, ref.phi, points, NULL);
    const double e_mg_near = max_abs_diff(mg_near.phi, ref.phi, points, NULL);
    printf("float, maxc 1e-5: SOR %d it (%s), error %.2e; MG %d cycles (%s), error %.2e; maxc "
           "0.1: MG %d cycles (%s)\n",
           sor.iterations, dg_outcome_string(sor.outcome), e_sor, mg.iterations,
           dg_outcome_string(mg.outcome), e_mg, loose.iterations, dg_outcome_string(loose.outcome));
    printf("float, maxc 1e-3: SOR %d it (%s), error %.2e; MG %d cycles (%s), error %.2e\n",
           sor_near.iterations, dg_outcome_string(sor_near.outcome), e_sor_near, mg_near.iterations,
           dg_outcome_string(mg_near.outcome), e_mg_near);
    CHECK(sor_near.outcome == DG_OUTCOME_CONVERGED && mg_near.outcome == DG_OUTCOME_CONVERGED,
          "float at maxc 1e-3: SOR %s, multigrid %s", dg_outcome_string(sor_near.outcome),
          dg_outcome_string(mg_near.outcome));
    CHECK(e_mg_near <= e_sor_near, "float multigrid's error %.2e against the float SOR's %.2e",
          e_mg_near, e_sor_near);
    CHECK(sor.outcome == DG_OUTCOME_FLOAT_RESOLUTION && mg.outcome == DG_OUTCOME_FLOAT_RESOLUTION,
          "float at maxc 1e-5: SOR %s, multigrid %s", dg_outcome_string(sor.outcome),
          dg_outcome_string(mg.outcome));
    CHECK(e_mg <= 2.0 * e_sor, "float multigrid's error %.2e against the float SOR's %.2e", e_mg,
          e_sor);
    /* an out-of-reach maxc ends at the first cycle within one rounding of max |phi|: no more
       cycles than a maxc just within reach, and an answer within that rounding (the rule
       before went on until the change stopped falling: 12 cycles against 10 here, the same
       max error) */
    printf("float, maxc %.2e (1.25 roundings of max |phi|): MG %d cycles (%s), error %.2e\n",
           1.25 * rounding, at_rounding.iterations, dg_outcome_string(at_rounding.outcome),
           max_abs_diff(at_rounding.phi, ref.phi, points, NULL));
    CHECK(at_rounding.outcome == DG_OUTCOME_CONVERGED && mg.iterations <= at_rounding.iterations,
          "float: %d cycles at maxc 1e-5 against %d (%s) at 1.25 roundings of max |phi|",
          mg.iterations, at_rounding.iterations, dg_outcome_string(at_rounding.outcome));
    CHECK(e_mg <= rounding, "float multigrid's error %.2e exceeds one rounding of max |phi| %.2e",
          e_mg, rounding);
    CHECK(loose.outcome == DG_OUTCOME_CONVERGED && loose.iterations < mg.iterations,
          "float at maxc 0.1: %s after %d cycles", dg_outcome_string(loose.outcome),
          loose.iterations);
    free(ref.phi), free(sor.phi), free(mg.phi), free(loose.phi), free(phi);
    free(sor_near.phi), free(mg_near.phi), free(at_rounding.phi);
    dense_problem_free(&d);
}

/* Float vectors follow the double loop down to float's resolution: the float recurrence's
   residual is renewed (b - A x in double) as it falls (mg.h, DG_MG_RELIABLE_FALL).  Without it
   the first true residual near float's resolution showed an error the recurrence had hidden,
   and at 129^3 to maxc 1e-3 (3.6 roundings of max |phi|) float took 10 cycles where double
   takes 9. */
static void float_follows_double(void) {
    const int n = 129;
    const long points = (long)n * n * n;
    dense_problem d;
    mg_faces faces;
    double *phi = malloc(points * sizeof *phi);
    mg_problem_build(&d, phi, n, 0, &faces);
    run dbl = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-3);
    run flt = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_FLOAT, 1e-3);
    const double apart = max_abs_diff(flt.phi, dbl.phi, points, NULL);
    printf("129^3 maxc 1e-3: double %d cycles (%s), float %d cycles (%s), %.2e apart\n",
           dbl.iterations, dg_outcome_string(dbl.outcome), flt.iterations,
           dg_outcome_string(flt.outcome), apart);
    CHECK(dbl.outcome == DG_OUTCOME_CONVERGED && flt.outcome == DG_OUTCOME_CONVERGED &&
              flt.iterations <= dbl.iterations,
          "float %d cycles (%s) against double's %d (%s)", flt.iterations,
          dg_outcome_string(flt.outcome), dbl.iterations, dg_outcome_string(dbl.outcome));
    CHECK(apart < 1e-3, "float and double answers %.2e apart", apart);
    free(dbl.phi), free(flt.phi), free(phi);
    dense_problem_free(&d);
}

/* Cycles to DelPhi's default maxc = 1e-5 over grid sizes (the box stays 48 A wide). */
static void cycles_over_grids(void) {
    const int sizes[4] = {33, 65, 97, 129};
    int cycles[4];
    for (int i = 0; i < 4; ++i) {
        const int n = sizes[i];
        dense_problem d;
        double *phi = malloc((size_t)n * n * n * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, 0, &faces);
        run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
        cycles[i] = mg.iterations;
        printf("%3d^3: %d cycles (%s), %.3f s\n", n, mg.iterations, dg_outcome_string(mg.outcome),
               mg.seconds);
        CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(mg.outcome));
        free(mg.phi), free(phi);
        dense_problem_free(&d);
    }
    /* The tolerance is the same at every size (mg/mg.h), but a plain aggregation cycle loses
       a little per level: at most 2 more cycles per step from 65^3 on, at most +30 % + 1 from
       65^3 to 129^3, and far below the SOR's growth (about 2x per doubling).  33^3 (three
       coarse levels, the first of them already a single-visit level of the V part) is printed
       only: 9 cycles there against 12 at 65^3 (stopping on the change of a cycle). */
    for (int i = 2; i < 4; ++i)
        CHECK(cycles[i] <= cycles[i - 1] + 2, "cycles %d at %d^3 but %d at %d^3", cycles[i - 1],
              sizes[i - 1], cycles[i], sizes[i]);
    CHECK(cycles[3] <= 1.3 * cycles[1] + 1, "cycles %d at 65^3 but %d at 129^3", cycles[1],
          cycles[3]);
}

int main(void) {
    linear_potential();
    auto_choice();
    float_caller();
    refusals();
    starts_at_the_answer();
    float_resolution();
    float_follows_double();
    progress_and_stop();
    agreement(33, 0, DG_PRECISION_DOUBLE);
    agreement(65, 0, DG_PRECISION_DOUBLE);
    agreement(65, 1, DG_PRECISION_DOUBLE);
    agreement(65, 0, DG_PRECISION_FLOAT);
    accuracy_against_sor(65, 0);
    accuracy_against_sor(97, 1);
    cycles_over_grids();
    return test_finish("test_multigrid");
}
