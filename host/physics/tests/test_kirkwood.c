/* Kirkwood sphere: a dielectric sphere (radius a = 4 A, eps_in 2) in eps_out 80 holding three
 * off-centre point charges, against the analytic series of the reaction-field energy
 *   W = (epkt/2) sum_kl q_k q_l sum_n (n+1)(e1-e2) / (e1 (n e1 + (n+1) e2))
 *                                     (b_k b_l)^n / a^(2n+1) P_n(cos g_kl)
 * (b: distances from the centre, g: angles between the charges).  Grid 4 points/A.
 * Tolerance 1 %: the charges sit 2.2-2.9 A (9-12 grid spacings) inside the surface, so the
 * induced charge pattern is smooth and the remaining error is the O(h^2) discretisation of the
 * sphere and of the trilinearly spread charges; measured error well below that. */
#include <string.h>

#include "calculation.h"
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

static double kirkwood_energy(const double *xyz, const double *q, int count, double a, double e1,
                              double e2, double epkt) {
    enum { NMAX = 200 };
    double p[NMAX + 1], total = 0.0;
    for (int k = 0; k < count; ++k)
        for (int l = 0; l < count; ++l) {
            const double *u = xyz + 3 * k, *v = xyz + 3 * l;
            const double bk = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            const double bl = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            const double c =
                bk > 0 && bl > 0 ? (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (bk * bl) : 1.0;
            legendre(c, NMAX, p);
            double sum = 0.0, ratio = 1.0 / a;
            for (int n = 0; n <= NMAX; ++n) {
                sum += (n + 1.0) * (e1 - e2) / (e1 * (n * e1 + (n + 1.0) * e2)) * ratio * p[n];
                ratio *= bk * bl / (a * a);
                if (ratio < 1e-16) break;
            }
            total += q[k] * q[l] * sum;
        }
    return 0.5 * epkt * total;
}

int main(void) {
    /* atom 1: the sphere (no charge); atoms 2-4: point charges of radius 0 (no volume). */
    const double xyz[12] = {0, 0, 0, 1.5, 0, 0, -0.5, 1.2, 0.3, 0.1, -0.8, -1.6};
    const double q[4] = {0.0, 1.0, -0.5, 0.7}, r[4] = {4.0, 0, 0, 0};
    molecule mol = test_molecule(4, xyz, q, r);
    run_settings s;
    test_default_settings(&s);
    s.indi = 2.0, s.exdi = 80.0;
    s.scale = 4.0, s.scale_given = 1;
    s.perfil = 40.0, s.perfil_given = 1; /* 20 A box, 81^3 */
    s.bndcon = BC_COULOMBIC;
    s.maxc = 1e-6;
    s.backend = DG_BACKEND_CPU;
    s.energy_grid = s.energy_solvation = 1;
    calc_input in = {&s, &mol, NULL, 0, NULL};
    calc_result res;
    const int st = calc_run(&in, NULL, &res);
    if (st != CALC_OK) fprintf(stderr, "calc_run: %s\n", res.message);
    CHECK(st == CALC_OK);
    const double exact = kirkwood_energy(xyz + 3, q + 1, 3, 4.0, 2.0, 80.0, epkt_at(s.temperature));
    printf("grid %d^3, iterations %d, induced charge %.6f e (Gauss %.6f)\n", res.grid.n,
           res.solve.iterations, res.rf.total_induced_charge, res.rf.expected_induced_charge);
    printf("corrected reaction field %.5f kT, Kirkwood series %.5f kT (%.3f %%)\n",
           res.energy_reaction_field, exact, 100.0 * (res.energy_reaction_field / exact - 1.0));
    CHECK(res.grid.n == 81);
    CHECK_REL(res.energy_reaction_field, exact, 0.01);
    /* Sanity of the series itself: a centred charge gives the Born term only. */
    const double centre[3] = {0, 0, 0}, one = 1.0;
    CHECK_REL(kirkwood_energy(centre, &one, 1, 4.0, 2.0, 80.0, 561.0),
              0.5 * 561.0 / 4.0 * (1.0 / 80.0 - 1.0 / 2.0), 1e-12);
    calc_result_free(&res);
    test_molecule_free(&mol);
    CHECK_DONE();
}
