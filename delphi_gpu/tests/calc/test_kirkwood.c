/* Kirkwood sphere: a dielectric sphere (radius a = 4 A, eps_in 2) in eps_out 80 holding three
 * off-centre point charges, against the analytic series of the reaction-field energy
 *   W = (epkt/2) sum_kl q_k q_l sum_n (n+1)(e1-e2) / (e1 (n e1 + (n+1) e2))
 *                                     (b_k b_l)^n / a^(2n+1) P_n(cos g_kl)
 * (b: distances from the centre, g: angles between the charges).  Grid 4 points/A.
 * Tolerance 1 %: the charges sit 2.2-2.9 A (9-12 grid spacings) inside the surface, so the
 * induced charge pattern is smooth and the remaining error is the O(h^2) discretisation of the
 * sphere and of the trilinearly spread charges; measured error well below that.  The same 1 %
 * (of the largest) for the reaction-field potential at six points inside the sphere
 * (dg_calc_reaction_potentials_at, DelPhi's site(r)) against the series' epkt sum_l q_l G(x, r_l);
 * measured 0.15 %, and exact at the centre, where only the total induced charge enters. */
#include <string.h>

#include <math.h>
#include "check.h"
#include "physics_constants.h"
#include "test_support.h"

/* Legendre polynomials P_0..P_nmax at x. */
static void legendre(double x, int nmax, double *p) {
    p[0] = 1.0;
    if (nmax > 0) p[1] = x;
    for (int n = 2; n <= nmax; ++n)
        p[n] = ((2.0 * n - 1) * x * p[n - 1] - (n - 1.0) * p[n - 2]) / n;
}

/* The reaction-field Green's function of the sphere between two points inside it (1/A):
 * sum_n (n+1)(e1-e2) / (e1 (n e1 + (n+1) e2)) (b_u b_v)^n / a^(2n+1) P_n(cos g). */
static double kirkwood_green(const double *u, const double *v, double a, double e1, double e2) {
    enum { NMAX = 200 };
    double p[NMAX + 1];
    const double bu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double bv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const double c = bu > 0 && bv > 0 ? (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (bu * bv) : 1.0;
    legendre(c, NMAX, p);
    double sum = 0.0, ratio = 1.0 / a;
    for (int n = 0; n <= NMAX; ++n) {
        sum += (n + 1.0) * (e1 - e2) / (e1 * (n * e1 + (n + 1.0) * e2)) * ratio * p[n];
        ratio *= bu * bv / (a * a);
        if (ratio < 1e-16) break;
    }
    return sum;
}

static double kirkwood_energy(const double *xyz, const double *q, int count, double a, double e1,
                              double e2, double epkt) {
    double total = 0.0;
    for (int k = 0; k < count; ++k)
        for (int l = 0; l < count; ++l)
            total += q[k] * q[l] * kirkwood_green(xyz + 3 * k, xyz + 3 * l, a, e1, e2);
    return 0.5 * epkt * total;
}

int main(void) {
    /* atom 1: the sphere (no charge); atoms 2-4: point charges of radius 0 (no volume). */
    const double xyz[12] = {0, 0, 0, 1.5, 0, 0, -0.5, 1.2, 0.3, 0.1, -0.8, -1.6};
    const double q[4] = {0.0, 1.0, -0.5, 0.7}, r[4] = {4.0, 0, 0, 0};
    dg_calc_params s;
    test_default_params(&s);
    s.epsilon_in = 2.0, s.epsilon_out = 80.0;
    s.scale = 4.0, s.perfil = 40.0; /* 20 A box, 81^3 */
    s.boundary = DG_BOUNDARY_COULOMBIC;
    s.solver.max_change_tol = 1e-6;
    s.solver.backend = DG_BACKEND_CPU;
    s.energies = DG_ENERGY_GRID | DG_ENERGY_REACTION_FIELD;
    dg_calc calc = NULL;
    int st = dg_calc_create(&calc, &s);
    const dg_atoms atoms = test_atoms(4, xyz, q, r);
    if (st == DG_OK) st = dg_calc_set_atoms(calc, &atoms);
    dg_calc_result res;
    if (st == DG_OK) st = dg_calc_run(calc, &res);
    if (st != DG_OK) fprintf(stderr, "dg_calc: %s\n", dg_calc_last_error(calc));
    CHECK(st == DG_OK);
    const double exact = kirkwood_energy(xyz + 3, q + 1, 3, 4.0, 2.0, 80.0, epkt_at(s.temperature));
    const double rf = res.energies.reaction_field;
    printf("grid %d^3, iterations %d, induced charge %.6f e (Gauss %.6f)\n", res.grid.n,
           res.solve.iterations, res.induced_charge, res.expected_induced_charge);
    printf("corrected reaction field %.5f kT, Kirkwood series %.5f kT (%.3f %%)\n", rf, exact,
           100.0 * (rf / exact - 1.0));
    CHECK(res.grid.n == 81);
    CHECK_REL(rf, exact, 0.01);
    CHECK(isnan(res.energies.coulombic) && isnan(res.energies.solvation_two_run));
    /* DelPhi's site(r): the induced charges' potential at points inside the sphere (the charges
       and three others) against the series, epkt sum_l q_l G(x, r_l). */
    const double points[18] = {1.5, 0, 0, -0.5, 1.2, 0.3, 0.1,  -0.8, -1.6,
                               0,   0, 0, 1.0,  1.0, 1.0, -2.0, 0.5,  1.5};
    double rp[6], worst = 0.0, largest = 0.0;
    CHECK(dg_calc_reaction_potentials_at(calc, points, 6, rp) == DG_OK);
    for (int i = 0; i < 6; ++i) {
        double series = 0.0;
        for (int l = 1; l < 4; ++l)
            series += q[l] * kirkwood_green(points + 3 * i, xyz + 3 * l, 4.0, 2.0, 80.0);
        series *= epkt_at(s.temperature);
        printf("reaction potential at (%g, %g, %g): %.5f kT/e, series %.5f\n", points[3 * i],
               points[3 * i + 1], points[3 * i + 2], rp[i], series);
        worst = fmax(worst, fabs(rp[i] - series)), largest = fmax(largest, fabs(series));
    }
    CHECK(worst <= 0.01 * largest);
    /* Sanity of the series itself: a centred charge gives the Born term only. */
    const double centre[3] = {0, 0, 0}, one = 1.0;
    CHECK_REL(kirkwood_energy(centre, &one, 1, 4.0, 2.0, 80.0, 561.0),
              0.5 * 561.0 / 4.0 * (1.0 / 80.0 - 1.0 / 2.0), 1e-12);
    dg_calc_destroy(calc);
    CHECK_DONE();
}
