/* Every error path: each bad input must return its status code and a message that names the
 * problem, never crash, never print.  (Options, grid, NaN/Inf, indices, parity, counts,
 * duplicates, permittivity, omega, backend, call order.) */
#include "test_util.h"

enum { N = 9 };
static const long points = (long)N * N * N;

/* Expect `status` from `call` and `needle` in the handle's message. */
#define EXPECT(call, status, solver, needle)                                                       \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        const char *msg_ = dg_last_error(solver);                                                  \
        CHECK(got_ == (status), "%s returned %d (%s), expected %d; message: %s", #call, got_,      \
              dg_status_string(got_), (status), msg_);                                             \
        CHECK(strstr(msg_, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", #call, msg_,        \
              needle);                                                                             \
    } while (0)

/* A valid sparse medium: two boundary points (one odd, one even) and one charge. */
typedef struct sparse_case {
    int bidx[2], qidx[1];
    double db[12], qval[1], sf1[(N * N * N + 1) / 2], sf2[(N * N * N + 1) / 2];
    unsigned char flags[N * N * N];
    dg_sparse_medium_d m;
} sparse_case;

static int half_index(int x, int y, int z) {
    return (int)((idx3(N, N, x, y, z) + 2) / 2);
}

static void sparse_case_init(sparse_case *c) {
    memset(c, 0, sizeof *c);
    c->bidx[0] = half_index(4, 4, 4); /* x+y+z even: DelPhi odd */
    c->bidx[1] = half_index(4, 4, 3); /* even */
    c->qidx[0] = half_index(3, 3, 2); /* odd */
    for (int f = 0; f < 12; ++f)
        c->db[f] = 0.01;
    c->qval[0] = 1.0;
    for (int h = 0; h < (N * N * N + 1) / 2; ++h)
        c->sf1[h] = c->sf2[h] = 1.0 / 6.0;
    dg_sparse_medium_d *m = &c->m;
    m->nx = m->ny = m->nz = N;
    m->index_kind = DG_INDEX_DELPHI_HALF;
    m->boundary_count_odd = 1, m->boundary_count = 2;
    m->boundary_index = c->bidx, m->boundary_weights = c->db;
    m->charge_count_odd = 1, m->charge_count = 1;
    m->charge_index = c->qidx, m->charge_source = c->qval;
    m->salt_model = DG_SALT_NONE;
    m->salt_factor_odd = c->sf1, m->salt_factor_even = c->sf2;
    m->solvent_flag = c->flags;
}

static void options_errors(void) {
    dg_options o;
    dg_solver s = NULL;
#define BAD_OPTION(assign, status, needle)                                                         \
    do {                                                                                           \
        dg_default_options(&o);                                                                    \
        assign;                                                                                    \
        EXPECT(dg_create(&s, &o), status, s, needle);                                              \
        dg_destroy(s);                                                                             \
        s = NULL;                                                                                  \
    } while (0)
    BAD_OPTION(o.omega = 2.0, DG_ERR_BAD_OMEGA, "omega");
    BAD_OPTION(o.omega = -0.5, DG_ERR_BAD_OMEGA, "omega");
    BAD_OPTION(o.omega = NAN, DG_ERR_BAD_OMEGA, "omega");
    BAD_OPTION(o.spectral_radius = 1.0, DG_ERR_BAD_OMEGA, "spectral_radius");
    BAD_OPTION(o.relpar = 2.5, DG_ERR_BAD_OMEGA, "relpar");
    BAD_OPTION(o.backend = 7, DG_ERR_INVALID_ARGUMENT, "backend");
    BAD_OPTION(o.precision = 3, DG_ERR_INVALID_ARGUMENT, "precision");
    BAD_OPTION(o.check_interval = 0, DG_ERR_INVALID_ARGUMENT, "check_interval");
    BAD_OPTION(o.check_stride = 0, DG_ERR_INVALID_ARGUMENT, "check_stride");
    BAD_OPTION(o.max_change_tol = -1.0, DG_ERR_INVALID_ARGUMENT, "max_change_tol");
    BAD_OPTION(o.iterations = -3, DG_ERR_INVALID_ARGUMENT, "iterations");
    BAD_OPTION(o.block_x = 16, DG_ERR_INVALID_ARGUMENT, "block");
    BAD_OPTION(o.struct_size = 4, DG_ERR_INVALID_ARGUMENT, "dg_default_options");
    /* A backend that is not built in, or no device. */
    if (!dg_backend_built(DG_BACKEND_CUDA)) {
        BAD_OPTION(o.backend = DG_BACKEND_CUDA, DG_ERR_BACKEND_NOT_BUILT, "not built with CUDA");
    } else {
        int count = 0;
        dg_cuda_device_count(&count);
        if (count == 0) BAD_OPTION(o.backend = DG_BACKEND_CUDA, DG_ERR_NO_DEVICE, "CUDA");
        BAD_OPTION((o.backend = DG_BACKEND_CUDA, o.device = 99), DG_ERR_NO_DEVICE, "device");
    }
    CHECK(dg_create(NULL, NULL) == DG_ERR_INVALID_ARGUMENT, "dg_create(NULL)");
}

static void grid_and_state_errors(dg_solver s) {
    dense_problem d;
    dense_problem_init(&d, N, N, N, 2.0, 80.0);
    double phi[N * N * N] = {0};
    EXPECT(dg_solve_d(s, phi, NULL), DG_ERR_STATE, s, "no medium");
    double spec;
    EXPECT(dg_estimate_spectral_radius(s, &spec), DG_ERR_STATE, s, "no medium");
    d.medium.nx = 8;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_INVALID_GRID, s, "even");
    d.medium.nx = 3;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_INVALID_GRID, s, "too small");
    d.medium.nx = N;
    d.eps[1][idx3(N, N, 4, 4, 4)] = 0.0;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_BAD_PERMITTIVITY, s, "eps_y");
    d.eps[1][idx3(N, N, 4, 4, 4)] = -2.0;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_BAD_PERMITTIVITY, s, "(4,4,4)");
    d.eps[1][idx3(N, N, 4, 4, 4)] = NAN;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_NONFINITE_INPUT, s, "eps_y");
    d.eps[1][idx3(N, N, 4, 4, 4)] = 80.0;
    d.charge[idx3(N, N, 0, 4, 4)] = 1.0;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_INDEX_OUT_OF_RANGE, s, "face");
    d.charge[idx3(N, N, 0, 4, 4)] = 0.0;
    d.charge[idx3(N, N, 3, 4, 4)] = INFINITY;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_NONFINITE_INPUT, s, "charge");
    d.charge[idx3(N, N, 3, 4, 4)] = 1.0;
    d.medium.scale = 0.0;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_INVALID_ARGUMENT, s, "scale");
    d.medium.scale = 2.0;
    dg_salt bad_salt = {-0.1, 1, 1};
    d.medium.salts = &bad_salt, d.medium.salt_count = 1, d.medium.ion_accessible = d.ions;
    EXPECT(dg_set_dense_medium_d(s, &d.medium), DG_ERR_INVALID_ARGUMENT, s, "salts[0]");
    d.medium.salts = NULL, d.medium.salt_count = 0;
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    phi[idx3(N, N, 8, 2, 2)] = NAN;
    EXPECT(dg_solve_d(s, phi, NULL), DG_ERR_NONFINITE_INPUT, s, "(8,2,2)");
    phi[idx3(N, N, 8, 2, 2)] = 0.0;
    EXPECT(dg_solve_d(s, NULL, NULL), DG_ERR_INVALID_ARGUMENT, s, "phi");
    /* A convergence sample without an interior point could never measure a change (it would
       "converge" at the first check): of the 364 even points of 9^3 a stride of 400 samples
       half-index 1 alone, the face point (3,0,0). */
    dg_options o;
    dg_get_options(s, &o);
    o.check_stride = 400, o.max_change_tol = 1e-6;
    CHECK_OK(dg_set_options(s, &o), s);
    dg_result r;
    EXPECT(dg_solve_d(s, phi, &r), DG_ERR_INVALID_ARGUMENT, s, "check_stride = 400");
    o.check_stride = 60; /* half-indices 1, 61, ...: 61 is the interior point (6,4,1) */
    CHECK_OK(dg_set_options(s, &o), s);
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED && r.max_change > 0.0, "stride 60: outcome %d",
          r.outcome);
    o.check_stride = 1, o.max_change_tol = 0.0;
    memset(phi, 0, sizeof phi);
    /* Nonlinear PB needs salt. */
    o.equation = DG_EQUATION_NONLINEAR_PB;
    CHECK_OK(dg_set_options(s, &o), s);
    EXPECT(dg_solve_d(s, phi, NULL), DG_ERR_INVALID_ARGUMENT, s, "salt");
    o.equation = DG_EQUATION_AUTO;
    o.precision = DG_PRECISION_FLOAT;
    EXPECT(dg_set_options(s, &o), DG_ERR_INVALID_ARGUMENT, s, "precision");
    o.precision = DG_PRECISION_DOUBLE;
    o.omega = 2.5;
    EXPECT(dg_set_options(s, &o), DG_ERR_BAD_OMEGA, s, "omega");
    dense_problem_free(&d);
}

static void sparse_errors(dg_solver s) {
    sparse_case c;
    sparse_case_init(&c);
    CHECK_OK(dg_set_sparse_medium_d(s, &c.m), s); /* the baseline is valid */
    const int good = c.bidx[0];
    c.bidx[0] = 0;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INDEX_OUT_OF_RANGE, s, "boundary_index[0]");
    c.bidx[0] = (N * N * N + 1) / 2 + 1;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INDEX_OUT_OF_RANGE, s, "out of range");
    c.bidx[0] = 1; /* the corner: a face point */
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INDEX_OUT_OF_RANGE, s, "face point");
    c.bidx[0] = good;
    c.m.boundary_count_odd = 2, c.bidx[1] = good; /* the same odd point twice */
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_COUNT_MISMATCH, s, "twice");
    sparse_case_init(&c);
    c.m.boundary_count_odd = 3;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_COUNT_MISMATCH, s, "boundary counts");
    c.m.boundary_count_odd = 1, c.m.charge_count = -1;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_COUNT_MISMATCH, s, "charge counts");
    c.m.charge_count = 1;
    c.db[7] = NAN;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_NONFINITE_INPUT, s, "boundary_weights[7]");
    c.db[7] = -0.5; /* -0.5 + 1/6 < 0: negative permittivity */
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_BAD_PERMITTIVITY, s, "permittivity");
    c.db[7] = 0.01;
    c.qval[0] = INFINITY;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_NONFINITE_INPUT, s, "charge_source[0]");
    c.qval[0] = 1.0;
    /* Full indices: wrong parity section. */
    int full[2] = {(int)idx3(N, N, 4, 4, 3), (int)idx3(N, N, 4, 4, 4)};
    c.m.index_kind = DG_INDEX_FULL, c.m.boundary_index = full;
    int qfull[1] = {(int)idx3(N, N, 3, 3, 2)};
    c.m.charge_index = qfull;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_WRONG_PARITY, s, "section");
    full[0] = (int)idx3(N, N, 4, 4, 4), full[1] = (int)idx3(N, N, 4, 4, 3);
    CHECK_OK(dg_set_sparse_medium_d(s, &c.m), s);
    full[1] = (int)points;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INDEX_OUT_OF_RANGE, s, "full index");
    /* Salt models. */
    sparse_case_init(&c);
    c.m.salt_model = DG_SALT_PER_POINT;
    c.sf1[half_index(2, 2, 2) - 1] = 0.1; /* a third value besides 1/6 and ... */
    c.sf2[half_index(2, 2, 3) - 1] = 0.05;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_UNSUPPORTED, s, "more than two");
    c.sf2[half_index(2, 2, 3) - 1] = 1.0 / 6.0;
    c.sf1[half_index(2, 2, 2) - 1] = NAN;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_NONFINITE_INPUT, s, "salt_factor_odd");
    c.sf1[half_index(2, 2, 2) - 1] = 1.0 / 6.0;
    c.m.salt_model = DG_SALT_FLAG, c.m.salt_factor = -1.0;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_BAD_PERMITTIVITY, s, "salt_factor");
    c.m.salt_factor = 0.16;
    c.m.solvent_flag = NULL;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INVALID_ARGUMENT, s, "solvent_flag");
    c.m.solvent_flag = c.flags, c.m.nonlinear_coefficient = NAN;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_NONFINITE_INPUT, s, "nonlinear");
    c.m.nonlinear_coefficient = 0.0, c.m.index_kind = 5;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INVALID_ARGUMENT, s, "index_kind");
    c.m.index_kind = DG_INDEX_DELPHI_HALF, c.m.boundary_weights = NULL;
    EXPECT(dg_set_sparse_medium_d(s, &c.m), DG_ERR_INVALID_ARGUMENT, s, "NULL");
    EXPECT(dg_set_sparse_medium_d(s, NULL), DG_ERR_INVALID_ARGUMENT, s, "NULL");
}

int main(void) {
    options_errors();
    dg_solver s = make_cpu_solver(NULL);
    grid_and_state_errors(s);
    dg_destroy(s);
    s = make_cpu_solver(NULL);
    sparse_errors(s);
    dg_destroy(s);
    /* Functions tolerate NULL handles. */
    CHECK(dg_solve_d(NULL, NULL, NULL) == DG_ERR_INVALID_ARGUMENT, "solve(NULL)");
    CHECK(strlen(dg_last_error(NULL)) > 0, "dg_last_error(NULL) is empty");
    dg_destroy(NULL);
    return test_finish("test_errors");
}
