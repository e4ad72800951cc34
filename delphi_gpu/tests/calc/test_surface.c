/* Surfaces and the medium: sphere volume, the SES of two spheres against its analytic torus,
 * the grid marking against single-point classification, the ion-accessibility map. */
#include <string.h>

#include "check.h"
#include "medium.h"
#include "physics_constants.h"
#include "test_support.h"

static grid_spec cube(int n, double scale) {
    grid_spec g;
    memset(&g, 0, sizeof g);
    g.n = n, g.scale = scale;
    return g;
}

int main(void) {
    char msg[512];
    /* One sphere, radius 3, scale 4: the solute midpoints of each face set fill 4/3 pi r^3
       to within the lattice-counting error (well under 1 % here). */
    const double o[3] = {0.1, -0.2, 0.05}, q1[1] = {1}, r1[1] = {3};
    calc_molecule sphere = test_molecule(1, o, q1, r1);
    grid_spec g = cube(41, 4.0);
    const double exact = 4.0 / 3.0 * M_PI * 27.0;
    for (int kind = 0; kind < 2; ++kind) {
        surface_model sm;
        CHECK(surface_model_build(&sm, &sphere, kind, 1.4, SURFACE_CIRCLE_DOTS, msg, sizeof msg) ==
              0);
        medium_maps m;
        CHECK(medium_build(&sm, &g, 1, 2.0, &m, msg, sizeof msg) == 0);
        for (int a = 0; a < 3; ++a)
            CHECK_REL(m.solute_faces[a] / 64.0, exact, 0.01);
        CHECK(m.reentrant_points == 0); /* a single sphere has no re-entrant region */
        /* Ion-accessible: farther than 3 + 2 A from the centre. */
        size_t expected = 0;
        for (int z = 0; z < 41; ++z)
            for (int y = 0; y < 41; ++y)
                for (int x = 0; x < 41; ++x) {
                    const double dx = (x - 20) / 4.0 - o[0], dy = (y - 20) / 4.0 - o[1],
                                 dz = (z - 20) / 4.0 - o[2];
                    const int open = dx * dx + dy * dy + dz * dz >= 25.0;
                    expected += (size_t)open;
                    if (m.ion_accessible[x + 41 * (y + 41 * z)] != open) {
                        CHECK(!"ion map differs from the distance rule");
                        z = y = x = 41;
                    }
                }
        CHECK(m.ion_accessible_points == expected);
        medium_free(&m);
        surface_model_free(&sm);
    }

    /* Two spheres of radius 1.5 whose surfaces are 0.2 A apart, probe 1.4.  In the mid-plane
       the probe touching both sits at height sqrt(2.9^2 - 1.6^2) = 2.4187, so the SES
       (re-entrant torus) reaches up to 2.4187 - 1.4 = 1.0187 A there. */
    const double xyz2[6] = {0, 0, 0, 3.2, 0, 0}, q2[2] = {0.5, -0.5}, r2[2] = {1.5, 1.5};
    calc_molecule pair = test_molecule(2, xyz2, q2, r2);
    surface_model ses, vdw;
    CHECK(surface_model_build(&ses, &pair, DG_SURFACE_MOLECULAR, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) == 0);
    CHECK(surface_model_build(&vdw, &pair, DG_SURFACE_VDW, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) == 0);
    const double top = sqrt(2.9 * 2.9 - 1.6 * 1.6) - 1.4;
    for (double angle = 0; angle < 6.3; angle += 0.7) {
        const double below[3] = {1.6, (top - 0.05) * cos(angle), (top - 0.05) * sin(angle)};
        const double above[3] = {1.6, (top + 0.05) * cos(angle), (top + 0.05) * sin(angle)};
        CHECK(surface_point_inside(&ses, below) == 1);
        CHECK(surface_point_inside(&ses, above) == 0);
        CHECK(surface_point_inside(&vdw, below) == 0);
    }
    const double centre_gap[3] = {1.6, 0, 0}, inside_atom[3] = {0.5, 0.5, 0.5},
                 contact[3] = {-1.55, 0, 0}, far[3] = {1.6, 5, 0};
    CHECK(surface_point_inside(&ses, centre_gap) == 1);
    CHECK(surface_point_inside(&ses, inside_atom) == 1);
    CHECK(surface_point_inside(&ses, contact) == 0); /* just outside, on the convex side */
    CHECK(surface_point_inside(&ses, far) == 0);
    /* Projection: onto the sphere on the convex side, onto the probe sphere in the groove. */
    double s[3];
    const double near_contact[3] = {-1.3, 0.2, 0.1};
    CHECK(surface_project(&ses, near_contact, 1.0, s) == 0);
    CHECK_NEAR(sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]), 1.5, 1e-9);
    const double groove[3] = {1.6, 0.9, 0};
    CHECK(surface_project(&ses, groove, 1.0, s) == 0);
    CHECK_NEAR(s[0], 1.6, 0.05);
    CHECK_NEAR(s[1], top, 0.03);
    /* The grid marking agrees with point-by-point classification on every midpoint. */
    grid_spec g2 = cube(31, 5.0);
    g2.center[0] = 1.6;
    medium_maps m;
    CHECK(medium_build(&ses, &g2, 0, 0.0, &m, msg, sizeof msg) == 0);
    CHECK(m.ion_accessible == NULL);
    CHECK(m.reentrant_points > 0);
    long mismatches = 0;
    for (int a = 0; a < 3; ++a)
        for (int z = 0; z < 31; ++z)
            for (int y = 0; y < 31; ++y)
                for (int x = 0; x < 31; ++x) {
                    const double p[3] = {grid_position(&g2, 0, x + (a == 0) * 0.5),
                                         grid_position(&g2, 1, y + (a == 1) * 0.5),
                                         grid_position(&g2, 2, z + (a == 2) * 0.5)};
                    mismatches += surface_point_inside(&ses, p) != m.face[a][x + 31 * (y + 31 * z)];
                }
    CHECK(mismatches == 0);
    medium_free(&m);
    surface_model_free(&ses);
    surface_model_free(&vdw);
    /* Bad radius named with its atom (1-based). */
    pair.atoms[1].radius = -1;
    surface_model bad;
    CHECK(surface_model_build(&bad, &pair, DG_SURFACE_MOLECULAR, 1.4, 0.4, msg, sizeof msg) != 0);
    CHECK(strstr(msg, "atom 2 ") != NULL);
    test_molecule_free(&pair);
    test_molecule_free(&sphere);
    CHECK_DONE();
}
