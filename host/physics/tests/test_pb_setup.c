/* The hand-over to the library: DelPhi settings -> dg_options, and the dielectric-boundary
 * list from the library's sparse form (half-index decoding) against a direct scan of the
 * medium (a point is on the boundary when its six face media are not all equal). */
#include <string.h>

#include "check.h"
#include "pb_solve.h"
#include "test_support.h"

int main(void) {
    run_settings s;
    dg_options o;
    char note[256];
    /* Automatic mode: iteration estimate, run until a criterion holds (library rule -1). */
    test_default_settings(&s);
    s.maxc = 1e-4, s.conint = 5, s.confra = 2;
    pb_options_from_settings(&s, 0, &o, note, sizeof note);
    CHECK(o.iterations == 0 && o.run_until_converged == -1);
    CHECK(o.max_change_tol == 1e-4 && o.rms_change_tol == 0 && o.norm_change_tol == 0);
    CHECK(o.check_interval == 5 && o.check_stride == 2);
    CHECK(o.spectral_radius == 0.0 && o.relpar == 0.0);
    CHECK(o.equation == DG_EQUATION_AUTO);
    /* linit switches automatic mode off; autoc= turns it on again. */
    s.linit = 300, s.linit_given = 1, s.autoc = 0;
    pb_options_from_settings(&s, 0, &o, note, sizeof note);
    CHECK(o.iterations == 300 && o.run_until_converged == 0);
    s.autoc = 1;
    pb_options_from_settings(&s, 0, &o, note, sizeof note);
    CHECK(o.iterations == 300 && o.run_until_converged == 1);
    /* relfac is the spectral radius; relpar fixes the nonlinear relaxation. */
    s.relfac = 0.99, s.relfac_given = 1, s.relpar = 0.5, s.relpar_given = 1;
    s.backend = DG_BACKEND_CPU, s.precision = DG_PRECISION_FLOAT, s.threads = 3;
    pb_options_from_settings(&s, 0, &o, note, sizeof note);
    CHECK(o.spectral_radius == 0.99 && o.relpar == 0.5);
    CHECK(o.backend == DG_BACKEND_CPU && o.precision == DG_PRECISION_FLOAT && o.num_threads == 3);
    /* nonit <= 20 becomes 30 blocks, as DelPhi; the nonlinear equation needs salt. */
    s.nonit = 10;
    pb_options_from_settings(&s, 1, &o, note, sizeof note);
    CHECK(o.equation == DG_EQUATION_NONLINEAR_PB && o.nonlinear_blocks == 30 && note[0]);
    s.nonit = 45;
    pb_options_from_settings(&s, 1, &o, note, sizeof note);
    CHECK(o.nonlinear_blocks == 45 && !note[0]);
    salt_model salt;
    salt_model_from_settings(&s, &salt);
    CHECK(!pb_wants_nonlinear(&s, &salt));
    s.salt = 0.1;
    salt_model_from_settings(&s, &salt);
    CHECK(pb_wants_nonlinear(&s, &salt));

    /* Boundary list: two overlapping spheres with charges, salt on. */
    const double xyz[6] = {0, 0, 0, 2.6, 0.3, 0}, q[2] = {0.5, -0.25}, r[2] = {1.7, 1.5};
    molecule mol = test_molecule(2, xyz, q, r);
    char msg[512];
    grid_spec g;
    test_default_settings(&s);
    s.scale = 3, s.scale_given = 1, s.perfil = 50, s.perfil_given = 1, s.salt = 0.15;
    CHECK(grid_choose(&s, &mol, &g, msg, sizeof msg) == 0);
    salt_model_from_settings(&s, &salt);
    surface_model sm;
    medium_maps m;
    charge_list c;
    CHECK(surface_model_build(&sm, &mol, SURFACE_MOLECULAR, 1.4, SURFACE_DOT_SPACING, msg,
                              sizeof msg) == 0);
    CHECK(medium_build(&sm, &g, 1, 2.0, &m, msg, sizeof msg) == 0);
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) == 0);
    pb_medium pm;
    pb_medium_init(&pm, &g, &m, &c, &salt, 2.0, 80.0, 297.3342);
    CHECK(pm.dense.salt_count == 1 && pm.dense.ion_accessible == m.ion_accessible);
    long *boundary = NULL;
    size_t count = 0;
    dg_sparse_counts counts;
    CHECK(pb_boundary_points(&pm.dense, &boundary, &count, &counts, msg, sizeof msg) == DG_OK);
    const int n = g.n;
    const long stride[3] = {1, n, (long)n * n};
    size_t expected = 0;
    unsigned char *mark = calloc((size_t)n * n * n, 1);
    for (int z = 1; z < n - 1; ++z)
        for (int y = 1; y < n - 1; ++y)
            for (int x = 1; x < n - 1; ++x) {
                const long w = x + (long)n * (y + (long)n * z);
                int differ = 0;
                for (int a = 0; a < 3; ++a)
                    differ |=
                        m.face[a][w] != m.face[0][w] || m.face[a][w - stride[a]] != m.face[0][w];
                if (differ) mark[w] = 1, ++expected;
            }
    CHECK(count == expected && count > 100);
    size_t matched = 0;
    for (size_t k = 0; k < count; ++k)
        matched += boundary[k] >= 0 && mark[boundary[k]] == 1;
    CHECK(matched == count);
    /* With salt the solve's list also holds salt points next to the solute: never fewer. */
    CHECK((size_t)counts.boundary_count >= count);
    CHECK(counts.charge_count > 0 && counts.charge_count <= 16);
    free(mark);
    free(boundary);
    charge_list_free(&c);
    medium_free(&m);
    surface_model_free(&sm);
    test_molecule_free(&mol);
    CHECK_DONE();
}
