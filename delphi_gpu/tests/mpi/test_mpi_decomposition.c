/* Domain decomposition over MPI ranks (run with mpirun -np 1..4): on every rank, a solve split
 * over the communicator must give bitwise the potential of an undecomposed solve in the same
 * process after a fixed number of iterations (linear PB with dielectric boundaries and charges,
 * nonlinear PB, float and double, check strides 1 and 3, periodic x and y), and the same
 * iteration count and potential to round-off when stopping on a criterion; Newton's method
 * (exact and polynomial term, float and double, periodic x and y) takes the same steps and
 * sweeps to bitwise the same potential; a periodic z is refused. */
#include <mpi.h>

#include "../periodic_problem.h"

static int rank = 0;
static int backend = DG_BACKEND_CPU; /* DG_TEST_BACKEND=cuda: every rank on its GPU */
static double charge_scale = 1.0;    /* Newton's cases: charges strong enough to be nonlinear */

/* A protein-like medium: a low-dielectric sphere with charges inside, salt outside. */
static void build_problem(dense_problem *d, int n, int salt) {
    dense_problem_init(d, n, n, n, 2.0, 80.0);
    const double c = (n - 1) / 2.0;
    dense_problem_sphere(d, c, c, c, n / 4.0, 2.0);
    const int q[3][3] = {{(int)c, (int)c, (int)c},
                         {(int)c + 2, (int)c - 1, (int)c + 1},
                         {(int)c - 2, (int)c + 1, (int)c - 2}};
    const double value[3] = {1.0, -0.5, 0.75};
    for (int k = 0; k < 3; ++k)
        d->charge[idx3(n, n, q[k][0], q[k][1], q[k][2])] = charge_scale * value[k];
    if (salt) dense_problem_salt(d, c, c, c, n / 4.0 + 2.0, 0.15);
}

static void faces(double *phi, int n) {
    const double c = (n - 1) / 2.0;
    point_source src = {c, c, c, 1.25, 80.0, 2.0, 0.0, 0.0};
    set_faces(phi, n, n, n, point_potential, &src);
}

/* The halo path a split solve must name in its solver choice. */
static void check_halos(const char *label, dg_solver s) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *choice = dg_solver_choice(s);
    const char *want = size == 1                    ? "1 MPI rank, no halos"
                       : backend == DG_BACKEND_CUDA ? "MPI ranks, halos from device to device"
                                                    : "MPI ranks, halos through host memory";
    CHECK(strstr(choice, want) != NULL, "%s: solver choice \"%s\" does not say \"%s\"", label,
          choice, want);
}

static dg_result solve(const dense_problem *d, const dg_options *o, double *phi_d, float *phi_f) {
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, o), s);
    if (phi_f) {
        dg_dense_medium_f m;
        memset(&m, 0, sizeof m);
        /* the dense medium's arrays are double; the float entry needs float maps */
        long n = (long)d->nx * d->ny * d->nz;
        float *eps[3], *charge = malloc(n * sizeof(float));
        for (int a = 0; a < 3; ++a) {
            eps[a] = malloc(n * sizeof(float));
            for (long i = 0; i < n; ++i)
                eps[a][i] = (float)d->eps[a][i];
        }
        for (long i = 0; i < n; ++i)
            charge[i] = (float)d->charge[i];
        m.nx = d->nx, m.ny = d->ny, m.nz = d->nz, m.scale = d->medium.scale;
        m.eps_x = eps[0], m.eps_y = eps[1], m.eps_z = eps[2], m.charge = charge;
        m.ion_accessible = d->medium.ion_accessible, m.salts = d->medium.salts;
        m.salt_count = d->medium.salt_count, m.epsilon_solvent = d->medium.epsilon_solvent;
        CHECK_OK(dg_set_dense_medium_f(s, &m), s);
        for (int a = 0; a < 3; ++a)
            free(eps[a]);
        free(charge);
    } else {
        CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    }
    dg_result r;
    CHECK_OK(phi_f ? dg_solve_f(s, phi_f, &r) : dg_solve_d(s, phi_d, &r), s);
    if (o->mpi_comm) check_halos("solve", s);
    dg_destroy(s);
    return r;
}

/* One split handle, three media in turn (another grid between two of the same): the halos are
   mapped again for every medium, and every solve is bitwise the undecomposed one. */
static void reuse(void) {
    const int sizes[3] = {25, 21, 25};
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.iterations = 23, o.run_until_converged = 0;
    dg_solver split = NULL;
    MPI_Comm world = MPI_COMM_WORLD;
    dg_options so = o;
    so.mpi_comm = &world;
    CHECK_OK(dg_create(&split, &so), split);
    for (int k = 0; k < 3; ++k) {
        const int n = sizes[k];
        dense_problem d;
        build_problem(&d, n, k != 1);
        const long points = (long)n * n * n;
        double *ref = calloc(points, sizeof(double)), *got = calloc(points, sizeof(double));
        faces(ref, n);
        memcpy(got, ref, points * sizeof(double));
        solve(&d, &o, ref, NULL);
        dg_result r;
        CHECK_OK(dg_set_dense_medium_d(split, &d.medium), split);
        CHECK_OK(dg_solve_d(split, got, &r), split);
        check_halos("reused handle", split);
        CHECK(memcmp(ref, got, points * sizeof(double)) == 0,
              "reused handle, medium %d (%d^3): potential differs from one process's", k, n);
        free(ref), free(got);
        dense_problem_free(&d);
    }
    dg_destroy(split);
    if (rank == 0) printf("%-40s bitwise on 3 media\n", "one handle, media of two grids");
}

static void compare(const char *label, int n, const dg_options *base, int salt, int precision) {
    dense_problem d;
    build_problem(&d, n, salt);
    const long points = (long)n * n * n;
    double *ref_d = calloc(points, sizeof(double)), *got_d = calloc(points, sizeof(double));
    float *ref_f = calloc(points, sizeof(float)), *got_f = calloc(points, sizeof(float));
    faces(ref_d, n);
    for (long i = 0; i < points; ++i)
        ref_f[i] = (float)ref_d[i];
    memcpy(got_d, ref_d, points * sizeof(double));
    memcpy(got_f, ref_f, points * sizeof(float));
    const int is_float = precision == DG_PRECISION_FLOAT;
    dg_options o = *base;
    o.backend = backend;
    o.precision = precision;
    dg_result single = solve(&d, &o, ref_d, is_float ? ref_f : NULL);
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    dg_result split = solve(&d, &o, got_d, is_float ? got_f : NULL);
    const int same = is_float ? memcmp(ref_f, got_f, points * sizeof(float)) == 0
                              : memcmp(ref_d, got_d, points * sizeof(double)) == 0;
    double worst = 0.0;
    for (long i = 0; i < points; ++i) {
        const double a = is_float ? ref_f[i] : ref_d[i], b = is_float ? got_f[i] : got_d[i];
        if (fabs(a - b) > worst) worst = fabs(a - b);
    }
    /* Newton's steps and sweeps are decided from norms reduced over the ranks (their sums in
       another order), which lie far from any threshold here: the same steps, the same bits. */
    const int newton =
        o.equation == DG_EQUATION_NONLINEAR_PB && o.nonlinear_method == DG_NONLINEAR_NEWTON;
    const int fixed = (o.iterations > 0 && o.max_change_tol == 0.0) || newton;
    if (newton)
        CHECK(single.nonlinear_blocks == split.nonlinear_blocks && single.nonlinear_blocks > 1,
              "%s: %d Newton steps vs %d", label, single.nonlinear_blocks, split.nonlinear_blocks);
    if (fixed)
        CHECK(same, "%s: decomposed potential differs (max %g) after %d iterations", label, worst,
              split.iterations);
    else
        CHECK(worst < 1e-9 * (is_float ? 1e4 : 1.0), "%s: max difference %g", label, worst);
    CHECK(single.iterations == split.iterations && single.outcome == split.outcome,
          "%s: %d iterations (%s) vs %d (%s)", label, single.iterations,
          dg_outcome_string(single.outcome), split.iterations, dg_outcome_string(split.outcome));
    CHECK(fabs(single.max_change - split.max_change) <= 1e-12 * (1.0 + single.max_change),
          "%s: max change %.17g vs %.17g", label, single.max_change, split.max_change);
    if (rank == 0)
        printf("%-40s %4d it  outcome %-10s max diff %.3g %s\n", label, split.iterations,
               dg_outcome_string(split.outcome), worst, same ? "(bitwise)" : "");
    free(ref_d), free(got_d), free(ref_f), free(got_f);
    dense_problem_free(&d);
}

/* The Gouy-Chapman plane (periodic_problem.h: x and y periodic with a period of 3, 79 interior z
   planes at 1 point/A) by Newton split over the ranks: the single process's steps, sweeps and
   bits, 1.34e-2 of phi0 from the exact solution as in test_periodic. */
static void gouy_chapman_split(void) {
    dense_problem d;
    gouy_chapman g;
    gouy_chapman_problem(&d, 1.0, 1, &g);
    const long n = (long)g.nx * g.ny * g.nz;
    double *one = gouy_chapman_start(&g), *split = gouy_chapman_start(&g);
    dg_options o = newton_options(DG_PERIODIC_X | DG_PERIODIC_Y, DG_NONLINEAR_TERM_EXACT, 1e-9);
    o.backend = backend;
    const dg_result r1 = solve(&d, &o, one, NULL);
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    const dg_result r2 = solve(&d, &o, split, NULL);
    const double e = gouy_chapman_error(&g, split);
    CHECK(r2.outcome == DG_OUTCOME_CONVERGED && r1.iterations == r2.iterations &&
              r1.nonlinear_blocks == r2.nonlinear_blocks,
          "Gouy-Chapman: %d sweeps in %d steps (%s) vs %d in %d", r2.iterations,
          r2.nonlinear_blocks, dg_outcome_string(r2.outcome), r1.iterations, r1.nonlinear_blocks);
    CHECK(memcmp(one, split, (size_t)n * sizeof *one) == 0,
          "Gouy-Chapman: the split potential differs from one process's");
    CHECK(e < 0.015, "Gouy-Chapman split: %.3e of phi0 from the exact solution", e);
    if (rank == 0)
        printf("%-40s %4d it  %d steps, %.2e of phi0 from the exact solution (bitwise)\n",
               "Newton, Gouy-Chapman plane", r2.iterations, r2.nonlinear_blocks, e);
    free(one), free(split);
    dense_problem_free(&d);
}

/* One rank's bad input fails every rank's call instead of leaving the others waiting in a
   collective step (the test would hang): a medium with a negative permittivity, then a phi with
   a NaN, on the last rank only; then the handle works again with good inputs on every rank. */
static void one_rank_fails(void) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 21, bad_rank = size - 1, mine_bad = rank == bad_rank;
    const long points = (long)n * n * n;
    dense_problem d;
    build_problem(&d, n, 1);
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.iterations = 11, o.run_until_converged = 0;
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    const long at = idx3(n, n, n / 2, n / 2 + 1, n / 2);
    const double keep = d.eps[0][at];
    if (mine_bad) d.eps[0][at] = -2.0;
    int st = dg_set_dense_medium_d(s, &d.medium);
    if (mine_bad)
        CHECK(st == DG_ERR_BAD_PERMITTIVITY, "bad medium on this rank: status %d (%s)", st,
              dg_last_error(s));
    else
        CHECK(st == DG_ERR_BAD_PERMITTIVITY && strstr(dg_last_error(s), "another MPI rank failed"),
              "bad medium on rank %d: status %d (%s)", bad_rank, st, dg_last_error(s));
    d.eps[0][at] = keep;
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    double *phi = calloc(points, sizeof(double)), *ref = calloc(points, sizeof(double));
    faces(phi, n);
    memcpy(ref, phi, points * sizeof(double));
    if (mine_bad) phi[idx3(n, n, 0, 3, 4)] = NAN;
    dg_result r;
    st = dg_solve_d(s, phi, &r);
    if (mine_bad)
        CHECK(st == DG_ERR_NONFINITE_INPUT, "NaN in phi on this rank: status %d (%s)", st,
              dg_last_error(s));
    else
        CHECK(st == DG_ERR_NONFINITE_INPUT && strstr(dg_last_error(s), "another MPI rank failed"),
              "NaN in phi on rank %d: status %d (%s)", bad_rank, st, dg_last_error(s));
    memcpy(phi, ref, points * sizeof(double));
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    dg_options single = o;
    single.mpi_comm = NULL;
    solve(&d, &single, ref, NULL);
    CHECK(memcmp(ref, phi, points * sizeof(double)) == 0,
          "after the failures: potential differs from one process's");
    dg_destroy(s);
    free(phi), free(ref);
    dense_problem_free(&d);
    if (rank == 0)
        printf("%-40s every rank failed, then solved\n", "one rank's bad medium and phi");
}

/* Ranks given different settings (a parameter file that differs between nodes): another
   iteration count on the last rank, then another salt in its medium.  Every rank's solve is
   refused naming the setting (they ran different numbers of sweeps and waited for each other's
   halos for ever, or solved a mixed medium). */
static void ranks_differ(void) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 21, last = rank == size - 1;
    const long points = (long)n * n * n;
    dense_problem d;
    build_problem(&d, n, 1);
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.iterations = last && size > 1 ? 13 : 11, o.run_until_converged = 0;
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    double *phi = calloc(points, sizeof(double));
    faces(phi, n);
    dg_result r;
    int st = dg_solve_d(s, phi, &r);
    if (size > 1)
        CHECK(st == DG_ERR_INVALID_ARGUMENT && strstr(dg_last_error(s), "iterations is 11"),
              "different iteration counts: status %d (%s)", st, dg_last_error(s));
    else
        CHECK_OK(st, s);
    o.iterations = 11;
    CHECK_OK(dg_set_options(s, &o), s);
    const dg_salt *salts = d.medium.salts;
    if (last && size > 1) {
        dg_salt other = salts[0];
        other.concentration *= 2;
        d.medium.salts = &other;
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        d.medium.salts = salts;
    } else {
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    }
    memset(phi, 0, points * sizeof(double));
    faces(phi, n);
    st = dg_solve_d(s, phi, &r);
    if (size > 1)
        CHECK(st == DG_ERR_INVALID_ARGUMENT && strstr(dg_last_error(s), "salt factor"),
              "different salts: status %d (%s)", st, dg_last_error(s));
    else
        CHECK_OK(st, s);
    dg_destroy(s);
    free(phi);
    dense_problem_free(&d);
    if (rank == 0) printf("%-40s refused on every rank\n", "ranks with different settings");
}

/* dg_create is collective: options that one rank's create refuses (here a negative thread
   count on the last rank) fail every rank's create instead of leaving the others waiting. */
static void one_rank_cannot_create(void) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dg_options o;
    dg_default_options(&o);
    o.backend = backend;
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    if (rank == size - 1) o.num_threads = -5;
    dg_solver s = NULL;
    const int st = dg_create(&s, &o);
    if (rank == size - 1)
        CHECK(st == DG_ERR_INVALID_ARGUMENT, "bad options on this rank: status %d (%s)", st,
              dg_last_error(s));
    else
        CHECK(st == DG_ERR_INVALID_ARGUMENT && strstr(dg_last_error(s), "another MPI rank failed"),
              "bad options on rank %d: status %d (%s)", size - 1, st, dg_last_error(s));
    dg_destroy(s);
    if (rank == 0) printf("%-40s every rank's create failed\n", "one rank's bad options");
}

/* A progress callback that asks to stop on rank 0 only stops every rank at that check: the
   same iteration count and potential as one process stopped there (Newton's method: at the
   step that has taken 30 sweeps or more). */
static int stop_at_30(const dg_progress *p, void *user) {
    (void)user;
    return rank == 0 && p->iteration >= 30;
}

static void one_rank_stops(int newton) {
    const int n = 23;
    const long points = (long)n * n * n;
    charge_scale = newton ? 40.0 : 1.0;
    dense_problem d;
    build_problem(&d, n, 1);
    charge_scale = 1.0;
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.iterations = 200, o.run_until_converged = 0, o.check_interval = 10;
    if (newton) {
        o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_method = DG_NONLINEAR_NEWTON;
        o.solver = DG_SOLVER_SOR, o.iterations = 0, o.max_change_tol = 1e-9;
    }
    o.progress = stop_at_30;
    double *ref = calloc(points, sizeof(double)), *got = calloc(points, sizeof(double));
    faces(ref, n);
    memcpy(got, ref, points * sizeof(double));
    int single_rank = rank;
    rank = 0; /* the single process stops as rank 0 does */
    const dg_result one = solve(&d, &o, ref, NULL);
    rank = single_rank;
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = &world;
    const dg_result split = solve(&d, &o, got, NULL);
    CHECK(one.outcome == DG_OUTCOME_STOPPED && split.outcome == DG_OUTCOME_STOPPED &&
              one.iterations == split.iterations &&
              (newton ? one.iterations >= 30 : one.iterations == 30),
          "stopped by rank 0's callback: %d iterations (%s) vs %d (%s)", one.iterations,
          dg_outcome_string(one.outcome), split.iterations, dg_outcome_string(split.outcome));
    CHECK(memcmp(ref, got, points * sizeof(double)) == 0,
          "stopped by rank 0's callback: potential differs from one process's");
    free(ref), free(got);
    dense_problem_free(&d);
    if (rank == 0)
        printf("%-40s every rank stopped at %d\n",
               newton ? "rank 0's callback stops Newton" : "rank 0's callback stops",
               split.iterations);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *which = getenv("DG_TEST_BACKEND");
    if (which && strcmp(which, "cuda") == 0) {
        int devices = 0;
        if (dg_cuda_device_count(&devices) != DG_OK || devices == 0) {
            if (rank == 0) printf("test_mpi_decomposition: no GPU, skipped\n");
            MPI_Finalize();
            return 77;
        }
        backend = DG_BACKEND_CUDA;
    }
    dg_options o;
    dg_default_options(&o);
    o.iterations = 37, o.run_until_converged = 0, o.check_interval = 10;
    compare("linear PB, 37 iterations, double", 25, &o, 1, DG_PRECISION_DOUBLE);
    compare("linear PB, 37 iterations, float", 25, &o, 1, DG_PRECISION_FLOAT);
    compare("Poisson, 37 iterations, odd x even", 21, &o, 0, DG_PRECISION_DOUBLE);
    o.check_stride = 3;
    compare("linear PB, stride 3", 23, &o, 1, DG_PRECISION_DOUBLE);
    dg_options nl = o;
    nl.check_stride = 1, nl.equation = DG_EQUATION_NONLINEAR_PB, nl.iterations = 20;
    nl.nonlinear_blocks = 4;
    compare("nonlinear PB (DelPhi scheme), 4 blocks", 25, &nl, 1, DG_PRECISION_DOUBLE);
    dg_options conv;
    dg_default_options(&conv);
    conv.max_change_tol = 1e-7;
    compare("linear PB to maxc 1e-7", 25, &conv, 1, DG_PRECISION_DOUBLE);
    /* periodic x and y: the seam steps stay within each plane, on every rank's slab */
    dg_options px = o;
    px.check_stride = 1, px.periodic = DG_PERIODIC_X | DG_PERIODIC_Y;
    compare("linear PB, x and y periodic", 25, &px, 1, DG_PRECISION_DOUBLE);
    compare("linear PB, x and y periodic, float", 25, &px, 1, DG_PRECISION_FLOAT);
    dg_options pp = px;
    pp.periodic = DG_PERIODIC_X;
    compare("Poisson, x periodic, odd x even", 21, &pp, 0, DG_PRECISION_DOUBLE);
    dg_options pnl = nl;
    pnl.periodic = DG_PERIODIC_X;
    compare("nonlinear PB (DelPhi scheme), x periodic", 25, &pnl, 1, DG_PRECISION_DOUBLE);
    dg_options pconv = conv;
    pconv.periodic = DG_PERIODIC_Y;
    compare("linear PB to maxc 1e-7, y periodic", 25, &pconv, 1, DG_PRECISION_DOUBLE);
    /* Newton's method: the step's halos after every colour of its inner sweeps, phi's after
       every update, the norms reduced over the ranks. */
    dg_options nt = newton_options(0, DG_NONLINEAR_TERM_AUTO, 1e-7);
    nt.solver = DG_SOLVER_SOR;
    charge_scale = 40.0;
    compare("Newton, exact term", 25, &nt, 1, DG_PRECISION_DOUBLE);
    compare("Newton, exact term, odd x even", 21, &nt, 1, DG_PRECISION_DOUBLE);
    dg_options ntf = nt;
    ntf.max_change_tol = 1e-3;
    compare("Newton, exact term, float", 25, &ntf, 1, DG_PRECISION_FLOAT);
    dg_options ntp = nt;
    ntp.nonlinear_term = DG_NONLINEAR_TERM_POLYNOMIAL;
    compare("Newton, DelPhi's polynomial", 25, &ntp, 1, DG_PRECISION_DOUBLE);
    dg_options ntx = nt;
    ntx.periodic = DG_PERIODIC_X | DG_PERIODIC_Y;
    compare("Newton, x and y periodic", 25, &ntx, 1, DG_PRECISION_DOUBLE);
    charge_scale = 1.0;
    gouy_chapman_split();
    reuse();
    one_rank_fails();
    ranks_differ();
    one_rank_stops(0);
    one_rank_stops(1);
    one_rank_cannot_create();

    /* A periodic z would wrap across the ranks' slabs: refused by name when created. */
    {
        dg_options z;
        dg_default_options(&z);
        z.backend = backend, z.periodic = DG_PERIODIC_Z;
        MPI_Comm world = MPI_COMM_WORLD;
        z.mpi_comm = &world;
        dg_solver s = NULL;
        const int st = dg_create(&s, &z);
        CHECK(st == DG_ERR_UNSUPPORTED && strstr(dg_last_error(s), "periodic z"),
              "periodic z with mpi_comm: status %d (%s)", st, dg_last_error(s));
        dg_destroy(s);
    }

    /* Errors: more ranks than interior planes. */
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        dense_problem d;
        dense_problem_init(&d, 5, 5, 5, 2.0, 80.0); /* 3 interior planes */
        dg_options e;
        dg_default_options(&e);
        e.backend = backend;
        MPI_Comm world = MPI_COMM_WORLD;
        e.mpi_comm = &world;
        dg_solver s = NULL;
        CHECK_OK(dg_create(&s, &e), s);
        int st = dg_set_dense_medium_d(s, &d.medium);
        if (size > 3)
            CHECK(st == DG_ERR_UNSUPPORTED && strstr(dg_last_error(s), "ranks"),
                  "%d ranks on 3 planes: status %d (%s)", size, st, dg_last_error(s));
        else
            CHECK(st == DG_OK, "%d ranks on 3 planes: %s", size, dg_last_error(s));
        dg_destroy(s);
        dense_problem_free(&d);
    }
    int failures = test_failures, total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    test_failures = total;
    return rank == 0 ? test_finish("test_mpi_decomposition") : (total ? 1 : 0);
}
