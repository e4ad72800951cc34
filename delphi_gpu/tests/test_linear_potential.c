/* A linear potential on the faces, no charges, uniform permittivity: the interior must
 * reproduce it to round-off (a linear function is discrete-harmonic), on a non-cubic grid,
 * in double and float, from the dense and the sparse form. */
#include "test_util.h"

static double linear(double x, double y, double z, const void *params) {
    (void)params;
    return 1.0 + 0.3 * x - 0.2 * y + 0.1 * z;
}

static double solve_and_compare(int precision, int use_sparse) {
    const int nx = 21, ny = 25, nz = 19;
    const long n = (long)nx * ny * nz;
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.max_change_tol = precision == DG_PRECISION_DOUBLE ? 1e-13 : 1e-5; /* float: ~ulp of 9 */
    dg_solver s = make_cpu_solver(&o);
    dense_problem d;
    dense_problem_init(&d, nx, ny, nz, 2.0, 4.0);
    if (use_sparse) {
        dg_sparse_medium_d m = {0};
        m.nx = nx, m.ny = ny, m.nz = nz;
        m.index_kind = DG_INDEX_DELPHI_HALF;
        CHECK_OK(dg_set_sparse_medium_d(s, &m), s);
    } else {
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    }
    double *phi = malloc(n * sizeof *phi), *exact = malloc(n * sizeof *exact);
    set_faces(phi, nx, ny, nz, linear, NULL);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                exact[idx3(nx, ny, x, y, z)] = linear(x, y, z, NULL);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "outcome %s after %d iterations",
          dg_outcome_string(r.outcome), r.iterations);
    double ref = 0.0, err = max_abs_diff(phi, exact, n, &ref);
    printf("precision %s, %s form: %d iterations, max |phi - linear| = %.3e (max %.2f)\n",
           precision == DG_PRECISION_DOUBLE ? "double" : "float", use_sparse ? "sparse" : "dense",
           r.iterations, err, ref);
    dense_problem_free(&d);
    free(phi), free(exact);
    dg_destroy(s);
    return err / ref;
}

int main(void) {
    CHECK(solve_and_compare(DG_PRECISION_DOUBLE, 0) < 1e-11, "double, dense");
    CHECK(solve_and_compare(DG_PRECISION_DOUBLE, 1) < 1e-11, "double, sparse");
    CHECK(solve_and_compare(DG_PRECISION_FLOAT, 0) < 2e-5, "float, dense");
    return test_finish("test_linear_potential");
}
