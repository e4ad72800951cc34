/* Born ion from the dense maps: a dielectric sphere (radius 2 A, eps 2 inside, 80 outside) with a
 * unit charge at its centre.  The grid-energy difference between the solvated run and a uniform
 * eps-2 run approaches the analytic Born energy epkt q^2/(2a) (1/eps_out - 1/eps_in) as the grid
 * is refined.  One placement of a staircase sphere gives a noisy error (the effective radius
 * jumps with how face midpoints fall), so each spacing averages four sub-grid placements of the
 * ion (charge spread trilinearly, identically in both runs): the error must fall with the
 * spacing and be within 2 % at 4 grid/A. */
#include "test_util.h"

static const double radius = 2.0, eps_in = 2.0, eps_out = 80.0;

/* Grid energy 1/2 sum q phi of a unit charge at grid position (cx,cy,cz), in a sphere or in a
   uniform eps_in medium. */
static double grid_energy(double scale, int n, double cx, double cy, double cz, int sphere) {
    dense_problem d;
    dense_problem_init(&d, n, n, n, scale, sphere ? eps_out : eps_in);
    if (sphere) dense_problem_sphere(&d, cx, cy, cz, radius * scale, eps_in);
    int x0 = (int)floor(cx), y0 = (int)floor(cy), z0 = (int)floor(cz);
    double fx = cx - x0, fy = cy - y0, fz = cz - z0;
    for (int k = 0; k < 8; ++k) { /* trilinear (cloud-in-cell) spreading */
        int dx = k & 1, dy = (k >> 1) & 1, dz = k >> 2;
        d.charge[idx3(n, n, x0 + dx, y0 + dy, z0 + dz)] =
            (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * (dz ? fz : 1 - fz);
    }
    dg_options o;
    dg_default_options(&o);
    o.max_change_tol = 1e-8;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    point_source src = {cx, cy, cz, 1.0, sphere ? eps_out : eps_in, scale, 0.0, 0.0};
    long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    set_faces(phi, n, n, n, point_potential, &src);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "outcome %s", dg_outcome_string(r.outcome));
    double energy = 0.0;
    for (long w = 0; w < points; ++w)
        energy += 0.5 * d.charge[w] * phi[w];
    free(phi);
    dense_problem_free(&d);
    dg_destroy(s);
    return energy;
}

int main(void) {
    const double analytic = EPKT_DEFAULT / (2.0 * radius) * (1.0 / eps_out - 1.0 / eps_in);
    const double offsets[4][3] = {{0, 0, 0}, {0.5, 0.5, 0.5}, {0.25, 0.5, 0.75}, {0.7, 0.2, 0.4}};
    const double scales[3] = {1.0, 2.0, 4.0};
    double errors[3];
    for (int i = 0; i < 3; ++i) {
        int n = 2 * (int)(5.0 * scales[i]) + 1; /* box 10 A wide */
        double mean = 0.0;
        for (int k = 0; k < 4; ++k) {
            double c[3];
            for (int a = 0; a < 3; ++a)
                c[a] = n / 2 + offsets[k][a];
            mean += (grid_energy(scales[i], n, c[0], c[1], c[2], 1) -
                     grid_energy(scales[i], n, c[0], c[1], c[2], 0)) /
                    4.0;
        }
        errors[i] = fabs(mean - analytic) / fabs(analytic);
        printf(
            "scale %.0f grid/A (%d^3): mean solvation %.4f kT, analytic %.4f kT, error %.3f %%\n",
            scales[i], n, mean, analytic, 100 * errors[i]);
    }
    printf("observed order of the error: %.2f (1 to 2 A^-1), %.2f (2 to 4)\n",
           log(errors[0] / errors[1]) / log(2.0), log(errors[1] / errors[2]) / log(2.0));
    CHECK(errors[2] < 0.02, "error at 4 grid/A is %.3f %%", 100 * errors[2]);
    CHECK(errors[1] < errors[0] && errors[2] < errors[1], "error does not fall with the spacing");
    return test_finish("test_born_sphere");
}
