/* A unit point charge in a uniform dielectric (eps 2) on a 49^3 grid at 2 grid/A, Coulomb
 * boundary values: away from the charge the potential must follow Coulomb's law,
 * phi = epkt q / (eps r).  The 7-point lattice Green's function is 1/(4 pi r) times
 * 1 + (5 (x^4+y^4+z^4)/r^4 - 3)/(8 r^2) + O(r^-4) (r in grid units): with that correction the
 * error must be small (0.06 % from 8 grid units out, the rest being the O(r^-4) term and
 * the plain-Coulomb boundary values); without it Coulomb's law holds to 1.5 %
 * from 5 and 0.3 % from 10 grid units. */
#include "test_util.h"

int main(void) {
    const int n = 49, c = 24;
    const double scale = 2.0, eps = 2.0;
    const long points = (long)n * n * n;
    dense_problem d;
    dense_problem_init(&d, n, n, n, scale, eps);
    d.charge[idx3(n, n, c, c, c)] = 1.0;
    dg_options o;
    dg_default_options(&o);
    o.max_change_tol = 1e-9;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    point_source src = {c, c, c, 1.0, eps, scale, 0.0, 0.0};
    double *phi = malloc(points * sizeof *phi);
    set_faces(phi, n, n, n, point_potential, &src);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "outcome %s", dg_outcome_string(r.outcome));
    double worst_near = 0.0, worst_far = 0.0, worst_lattice = 0.0;
    for (int z = 1; z < n - 1; ++z)
        for (int y = 1; y < n - 1; ++y)
            for (int x = 1; x < n - 1; ++x) {
                double rg = sqrt((double)(x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c));
                if (rg < 5.0) continue;
                double exact = point_potential(x, y, z, &src);
                double rel = fabs(phi[idx3(n, n, x, y, z)] - exact) / exact;
                if (rg < 10.0 && rel > worst_near) worst_near = rel;
                if (rg >= 10.0 && rel > worst_far) worst_far = rel;
                double x4 = pow(x - c, 4) + pow(y - c, 4) + pow(z - c, 4);
                double lattice = exact * (1.0 + (5.0 * x4 / pow(rg, 4) - 3.0) / (8.0 * rg * rg));
                rel = fabs(phi[idx3(n, n, x, y, z)] - lattice) / lattice;
                if (rg >= 8.0 && rel > worst_lattice) worst_lattice = rel;
            }
    printf("%d iterations; worst relative error vs Coulomb 5-10 grid units: %.4f %%, beyond 10: "
           "%.4f %%; vs lattice-corrected Coulomb beyond 8: %.4f %%\n",
           r.iterations, 100 * worst_near, 100 * worst_far, 100 * worst_lattice);
    CHECK(worst_near < 0.015, "error %.4f %% within 5..10 grid units", 100 * worst_near);
    CHECK(worst_far < 0.003, "error %.4f %% beyond 10 grid units", 100 * worst_far);
    CHECK(worst_lattice < 0.0006, "error %.4f %% vs the lattice-corrected law",
          100 * worst_lattice);
    /* The potential at the charge's neighbours is finite and of the right size. */
    double next = phi[idx3(n, n, c + 1, c, c)], exact_next = point_potential(c + 1, c, c, &src);
    CHECK(next > 0.5 * exact_next && next < 1.5 * exact_next, "next to the charge %g vs %g", next,
          exact_next);
    free(phi);
    dense_problem_free(&d);
    dg_destroy(s);
    return test_finish("test_coulomb");
}
