/* The DelPhi-native sparse form and the dense-map form of the same problem give the same answer:
 * dense maps -> dg_sparse_from_dense (DelPhi's idpos/db/iqpos/qval/sf1/sf2) -> solve, with salt
 * as per-point factors and as a solvent flag, with half and full indices, float and double
 * arrays; and the exported arrays follow DelPhi's conventions (docs/SOLVER.md, "Data layout"). */
#include "test_util.h"

enum { N = 29, C = 14 };
static const long points = (long)N * N * N;

static double *solve_dense(const dense_problem *d) {
    dg_options o;
    dg_default_options(&o);
    o.iterations = 80;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    double *phi = calloc(points, sizeof *phi);
    CHECK_OK(dg_solve_d(s, phi, NULL), s);
    dg_destroy(s);
    return phi;
}

#define SOLVE_SPARSE(SUFFIX, medium)                                                               \
    do {                                                                                           \
        dg_options o;                                                                              \
        dg_default_options(&o);                                                                    \
        o.iterations = 80;                                                                         \
        dg_solver s = make_cpu_solver(&o);                                                         \
        CHECK_OK(dg_set_sparse_medium_##SUFFIX(s, medium), s);                                     \
        result = calloc(points, sizeof *result);                                                   \
        CHECK_OK(dg_solve_d(s, result, NULL), s);                                                  \
        dg_destroy(s);                                                                             \
    } while (0)

static void compare(const char *what, const double *a, const double *b, double tolerance) {
    double ref, diff = max_abs_diff(a, b, points, &ref);
    printf("%-44s max |difference| / max |phi| = %.2e\n", what, diff / ref);
    CHECK(diff / ref <= tolerance, "%s: %.2e", what, diff / ref);
}

static void check_case(int with_salt) {
    dense_problem d;
    dense_problem_init(&d, N, N, N, 2.0, 80.0);
    dense_problem_sphere(&d, C, C, C, 5.0, 2.0);
    if (with_salt) dense_problem_salt(&d, C, C, C, 7.0, 0.15);
    d.charge[idx3(N, N, C, C, C)] = 1.0;
    d.charge[idx3(N, N, C + 2, C + 1, C)] = -0.5;
    d.charge[idx3(N, N, C, C - 5, C)] = 0.25; /* on the dielectric boundary */
    double *dense = solve_dense(&d), *result = NULL;

    dg_sparse_counts counts;
    CHECK_OK(dg_sparse_counts_d(&d.medium, &counts, NULL, 0), NULL);
    int nb = counts.boundary_count, nq = counts.charge_count;
    long half = (points + 1) / 2;
    int *bidx = malloc(nb * sizeof(int)), *qidx = malloc(nq * sizeof(int));
    double *db = malloc(6L * nb * sizeof(double)), *qval = malloc(nq * sizeof(double));
    double *sf1 = malloc(half * sizeof(double)), *sf2 = malloc(half * sizeof(double));
    dg_sparse_medium_d m;
    CHECK_OK(dg_sparse_from_dense_d(&d.medium, bidx, db, qidx, qval, sf1, sf2, &m, NULL, 0), NULL);
    printf("%s: %d boundary points (%d odd), %d charged points (%d odd)\n",
           with_salt ? "salt" : "no salt", nb, m.boundary_count_odd, nq, m.charge_count_odd);
    CHECK(nb > 100 && m.boundary_count_odd > 0 && m.boundary_count_odd < nb, "boundary counts");
    CHECK(nq == 3, "charged points %d", nq);

    /* DelPhi's conventions: half-index from the 1-based linear index; odd entries first;
       sum of db is 0 without salt and 1 - debfct/D <= 1 with salt; sf 0 at boundary points. */
    for (int k = 0; k < nb; ++k) {
        int odd = k < m.boundary_count_odd;
        long w1 = 2L * bidx[k] - (odd ? 1 : 0); /* 1-based linear index */
        long w = w1 - 1;
        int x = (int)(w % N), y = (int)((w / N) % N), z = (int)(w / (N * N));
        CHECK((w1 & 1) == odd && ((x + 1 + y + 1 + z + 1) & 1) == odd, "entry %d parity", k);
        CHECK((w1 + 1) / 2 == bidx[k], "entry %d half-index", k);
        double sum = 0.0;
        for (int f = 0; f < 6; ++f)
            sum += db[6 * k + f];
        if (!with_salt) CHECK(fabs(sum) < 1e-12, "no-salt db sum %g at entry %d", sum, k);
        if (with_salt) {
            CHECK(sum > 0.0 && sum <= 1.0 + 1e-12, "salt db sum %g at entry %d", sum, k);
            CHECK((odd ? sf1 : sf2)[bidx[k] - 1] == 0.0, "sf not 0 at boundary entry %d", k);
        }
    }

    SOLVE_SPARSE(d, &m);
    compare(with_salt ? "salt: sparse (sf1/sf2) vs dense" : "no salt: sparse vs dense", result,
            dense, 1e-12);
    free(result);
    if (with_salt) { /* the same salt as a 1-byte solvent flag and one factor */
        dg_sparse_medium_d flagged = m;
        flagged.salt_model = DG_SALT_FLAG;
        flagged.solvent_flag = d.ions;
        SOLVE_SPARSE(d, &flagged);
        compare("salt: sparse (solvent flag) vs dense", result, dense, 1e-12);
        free(result);
    }
    /* Full 0-based indices instead of DelPhi's half-indices. */
    int *bfull = malloc(nb * sizeof(int)), *qfull = malloc(nq * sizeof(int));
    for (int k = 0; k < nb; ++k)
        bfull[k] = 2 * (bidx[k] - 1) + (k < m.boundary_count_odd ? 0 : 1);
    for (int k = 0; k < nq; ++k)
        qfull[k] = 2 * (qidx[k] - 1) + (k < m.charge_count_odd ? 0 : 1);
    dg_sparse_medium_d full = m;
    full.index_kind = DG_INDEX_FULL, full.boundary_index = bfull, full.charge_index = qfull;
    SOLVE_SPARSE(d, &full);
    compare("full indices vs dense", result, dense, 1e-12);
    free(result);
    /* Float arrays (DelPhi's single-precision build), double arithmetic. */
    float *dbf = malloc(6L * nb * sizeof(float)), *qvalf = malloc(nq * sizeof(float));
    float *sf1f = malloc(half * sizeof(float)), *sf2f = malloc(half * sizeof(float));
    float *epsf[3], *chargef = malloc(points * sizeof(float));
    for (int a = 0; a < 3; ++a) {
        epsf[a] = malloc(points * sizeof(float));
        for (long w = 0; w < points; ++w)
            epsf[a][w] = (float)d.eps[a][w];
    }
    for (long w = 0; w < points; ++w)
        chargef[w] = (float)d.charge[w];
    dg_dense_medium_f densef = {0};
    densef.nx = densef.ny = densef.nz = N;
    densef.scale = d.medium.scale, densef.temperature = d.medium.temperature;
    densef.eps_x = epsf[0], densef.eps_y = epsf[1], densef.eps_z = epsf[2];
    densef.charge = chargef;
    densef.ion_accessible = d.medium.ion_accessible;
    densef.salts = d.medium.salts, densef.salt_count = d.medium.salt_count;
    densef.epsilon_solvent = d.medium.epsilon_solvent;
    dg_sparse_medium_f mf;
    CHECK_OK(dg_sparse_from_dense_f(&densef, bidx, dbf, qidx, qvalf, sf1f, sf2f, &mf, NULL, 0),
             NULL);
    SOLVE_SPARSE(f, &mf);
    compare("float sparse arrays vs dense", result, dense, 1e-5);
    free(result);
    free(bidx), free(qidx), free(db), free(qval), free(sf1), free(sf2), free(bfull), free(qfull);
    free(dbf), free(qvalf), free(sf1f), free(sf2f), free(dense), free(chargef);
    for (int a = 0; a < 3; ++a)
        free(epsf[a]);
    dense_problem_free(&d);
}

int main(void) {
    check_case(0);
    check_case(1);
    return test_finish("test_sparse_vs_dense");
}
