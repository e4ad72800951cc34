/* The spectral-radius estimate against the exact Gauss-Seidel spectral radius of the uniform
 * operator (the lowest Laplacian mode is its exact eigenvector), with and without salt, on a
 * non-cubic grid; and DelPhi's iteration estimate. */
#include "test_util.h"

static double estimate(dense_problem *d) {
    dg_solver s = make_cpu_solver(NULL);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    double spec = -1.0;
    CHECK_OK(dg_estimate_spectral_radius(s, &spec), s);
    dg_destroy(s);
    return spec;
}

int main(void) {
    const double pi = 3.14159265358979323846;
    const int nx = 17, ny = 23, nz = 29;
    const double mean_cos = (cos(pi / (nx - 1)) + cos(pi / (ny - 1)) + cos(pi / (nz - 1))) / 3.0;

    dense_problem d;
    dense_problem_init(&d, nx, ny, nz, 1.5, 80.0);
    double spec = estimate(&d);
    double exact = mean_cos * mean_cos;
    printf("Poisson: estimate %.15f, exact %.15f\n", spec, exact);
    CHECK(fabs(spec - exact) < 1e-12, "Poisson spectral radius %.15f vs %.15f", spec, exact);

    /* Salt everywhere: the Jacobi factor becomes 6 * eps'/(6 eps' + debfct) * mean cos. */
    dense_problem_salt(&d, -1e3, -1e3, -1e3, 0.0, 0.15);
    spec = estimate(&d);
    double h_over_lambda = debye_kappa(0.15, 80.0) / 1.5;
    double jacobi = 6.0 / (6.0 + h_over_lambda * h_over_lambda) * mean_cos;
    printf("salt: estimate %.15f, exact %.15f\n", spec, jacobi * jacobi);
    CHECK(fabs(spec - jacobi * jacobi) < 1e-12, "salt spectral radius %.15f vs %.15f", spec,
          jacobi * jacobi);
    /* Same ionic strength from other salts: 2:2 at 0.0375 M and 2:1 at 0.05 M are I = 0.15 M. */
    const dg_salt others[2] = {{0.0375, 2, 2}, {0.05, 2, 1}};
    for (int i = 0; i < 2; ++i) {
        d.medium.salts = &others[i];
        double other = estimate(&d);
        printf("%d:%d salt at %.4f M: %.15f\n", others[i].cation_valence, others[i].anion_valence,
               others[i].concentration, other);
        CHECK(fabs(other - spec) < 1e-14, "%d:%d salt: ionic strength wrong (%.15f vs %.15f)",
              others[i].cation_valence, others[i].anion_valence, other, spec);
    }
    dense_problem_free(&d);

    /* DelPhi's iteration estimate int(7.8 / ln(1 + sqrt(1 - spec))). */
    CHECK(dg_estimate_iterations(0.99) == (int)(7.8 / log(1.1)), "estimate for 0.99: %d",
          dg_estimate_iterations(0.99));
    CHECK(dg_estimate_iterations(0.9984) == (int)(7.8 / log(1.04)), "estimate for 0.9984: %d",
          dg_estimate_iterations(0.9984));
    return test_finish("test_spectral_radius");
}
