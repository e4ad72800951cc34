/* Boundary conditions: Debye-Hueckel sums (Coulombic, dipolar) against the formula, focusing
 * interpolation (exact for a linear field) and its refusal of a box outside the source. */
#include <stdlib.h>
#include <string.h>

#include "boundary.h"
#include "check.h"
#include "physics_constants.h"
#include "test_support.h"

static double corner_distance(const phi_map *phi, const double c[3], double p[3]) {
    const double half = 0.5 * (phi->n - 1) / phi->scale;
    double d2 = 0;
    for (int a = 0; a < 3; ++a)
        p[a] = phi->center[a] - half, d2 += (p[a] - c[a]) * (p[a] - c[a]);
    return sqrt(d2);
}

int main(void) {
    char msg[512];
    const double T = 297.3342, epkt = epkt_at(T);
    CHECK_NEAR(epkt, 561.0, 0.01);
    const double centre[3] = {0, 0, 0};
    const double xyz[6] = {0.3, -0.2, 0.1, -1.0, 0.5, 0.0}, q[2] = {1.0, 0.0}, r[2] = {2, 2};
    calc_molecule ion = test_molecule(2, xyz, q, r);
    dg_options options; /* the sums run on this solver's backend */
    dg_default_options(&options);
    options.backend = DG_BACKEND_CPU;
    dg_solver solver = NULL;
    CHECK(dg_create(&solver, &options) == DG_OK);
    phi_map phi;
    CHECK(phi_map_alloc(&phi, 21, 1, 2.0, centre) == 0);
    /* Coulombic, no salt: epkt q / (eps_out r) at the corner (0,0,0). */
    boundary_params bp = {DG_BOUNDARY_COULOMBIC, 80.0, INFINITY, T, NULL, solver};
    CHECK(boundary_apply(&phi, &ion, &bp, msg, sizeof msg) == 0);
    double p[3];
    double rr = corner_distance(&phi, xyz, p);
    CHECK_REL(phi_get(&phi, 0), epkt / (80.0 * rr), 1e-12);
    CHECK(phi_get(&phi, 10 + 21 * (10 + 21 * 10)) == 0.0); /* interior untouched */
    /* With salt: screened by e^(-r/lambda). */
    bp.debye_length = 7.925;
    CHECK(boundary_apply(&phi, &ion, &bp, msg, sizeof msg) == 0);
    CHECK_REL(phi_get(&phi, 0), epkt * exp(-rr / 7.925) / (80.0 * rr), 1e-12);
    /* Dipolar with a single charge is the same sum. */
    double coulombic_face = phi_get(&phi, 20 + 21 * 7 + 21 * 21 * 3);
    bp.kind = DG_BOUNDARY_DIPOLAR;
    CHECK(boundary_apply(&phi, &ion, &bp, msg, sizeof msg) == 0);
    CHECK_REL(phi_get(&phi, 20 + 21 * 7 + 21 * 21 * 3), coulombic_face, 1e-12);
    /* Dipolar with two positive and one negative charge: +1.5 at the positive centroid. */
    const double xyz3[9] = {1, 0, 0, 3, 0, 0, 0, 2, 0}, q3[3] = {0.5, 1.0, -1.0}, r3[3] = {1, 1, 1};
    calc_molecule three = test_molecule(3, xyz3, q3, r3);
    bp.debye_length = INFINITY;
    CHECK(boundary_apply(&phi, &three, &bp, msg, sizeof msg) == 0);
    const double plus[3] = {(0.5 * 1 + 1.0 * 3) / 1.5, 0, 0}, minus[3] = {0, 2, 0};
    double dp = corner_distance(&phi, plus, p), dm = corner_distance(&phi, minus, p);
    CHECK_REL(phi_get(&phi, 0), epkt / 80.0 * (1.5 / dp - 1.0 / dm), 1e-12);
    /* Every face point is set: count the points that are non-zero. */
    size_t set = 0, faces = 21 * 21 * 21 - 19 * 19 * 19;
    for (size_t w = 0; w < 21 * 21 * 21; ++w)
        set += phi_get(&phi, w) != 0.0;
    CHECK(set == faces);
    double fc[6];
    boundary_face_centres(&phi, fc);
    CHECK(fc[0] == phi_get(&phi, 0 + 21 * 10 + 21 * 21 * 10));
    CHECK(fc[5] == phi_get(&phi, 10 + 21 * 10 + 21 * 21 * 20));

    /* Focusing from a coarse float map holding a linear field: exact on the new faces. */
    phi_map coarse;
    const double coarse_centre[3] = {1.0, -1.0, 0.5};
    CHECK(phi_map_alloc(&coarse, 17, 0, 1.0, coarse_centre) == 0);
    for (int z = 0; z < 17; ++z)
        for (int y = 0; y < 17; ++y)
            for (int x = 0; x < 17; ++x) {
                double pos[3] = {x - 8 + 1.0, y - 8 - 1.0, z - 8 + 0.5};
                phi_set(&coarse, (size_t)(x + 17 * (y + 17 * z)),
                        0.5 + 0.25 * pos[0] - 0.125 * pos[1] + 0.0625 * pos[2]);
            }
    phi_map fine;
    const double fine_centre[3] = {0.3, -0.4, 0.2};
    CHECK(phi_map_alloc(&fine, 25, 0, 4.0, fine_centre) == 0);
    boundary_params fb = {DG_BOUNDARY_FOCUSING, 80.0, INFINITY, T, &coarse, solver};
    CHECK(boundary_apply(&fine, &ion, &fb, msg, sizeof msg) == 0);
    double worst = 0;
    for (int z = 0; z < 25; z += 24)
        for (int y = 0; y < 25; ++y)
            for (int x = 0; x < 25; ++x) {
                const double pos[3] = {(x - 12) / 4.0 + 0.3, (y - 12) / 4.0 - 0.4,
                                       (z - 12) / 4.0 + 0.2};
                const double want = 0.5 + 0.25 * pos[0] - 0.125 * pos[1] + 0.0625 * pos[2];
                worst = fmax(worst, fabs(phi_get(&fine, (size_t)(x + 25 * (y + 25 * z))) - want));
            }
    CHECK(worst < 1e-5); /* float map */
    /* A box that sticks out of the source map is refused. */
    fine.center[0] = 7.0;
    CHECK(boundary_apply(&fine, &ion, &fb, msg, sizeof msg) != 0);
    CHECK(strstr(msg, "inside") != NULL);
    fb.focus_source = NULL;
    CHECK(boundary_apply(&fine, &ion, &fb, msg, sizeof msg) != 0);
    bp.kind = 5;
    CHECK(boundary_apply(&phi, &ion, &bp, msg, sizeof msg) != 0);
    phi_map_free(&coarse);
    phi_map_free(&fine);
    phi_map_free(&phi);
    test_molecule_free(&ion);
    test_molecule_free(&three);
    dg_destroy(solver);
    CHECK_DONE();
}
