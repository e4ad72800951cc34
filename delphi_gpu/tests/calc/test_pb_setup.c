/* The hand-over to the solver: the equation chosen from the parameters, and the
 * dielectric-boundary list taken from the one derivation of the medium against a direct scan
 * of the medium (a point is on the boundary when its six face media are not all equal). */
#include <string.h>

#include "check.h"
#include "pb_solve.h"
#include "solver_internal.h"
#include "test_support.h"

int main(void) {
    dg_calc_params s;
    salt_model salt;
    /* The nonlinear equation needs salt. */
    test_default_params(&s);
    s.solver.equation = DG_EQUATION_NONLINEAR_PB;
    salt_model_from_params(&s, &salt);
    CHECK(!pb_wants_nonlinear(&s, &salt));
    dg_options o;
    pb_solve_options(&s, 0, &o);
    CHECK(o.equation == DG_EQUATION_AUTO);
    s.salt_count = 1, s.salts[0].concentration = 0.1;
    salt_model_from_params(&s, &salt);
    CHECK(pb_wants_nonlinear(&s, &salt));
    CHECK(pb_solve_options(&s, 1, &o) == NULL);
    CHECK(o.equation == DG_EQUATION_NONLINEAR_PB);
    /* Multigrid asked with DelPhi's nonlinear scheme: the SOR, and the reason said; with
       Newton's method, or for the linear runs of the same calculation, multigrid. */
    s.solver.solver = DG_SOLVER_MULTIGRID;
    s.solver.nonlinear_method = DG_NONLINEAR_DELPHI;
    const char *why = pb_solve_options(&s, 1, &o);
    CHECK(o.solver == DG_SOLVER_SOR && why && strstr(why, "DelPhi's nonlinear scheme") &&
          strstr(why, "MULTIGRID"));
    CHECK(pb_solve_options(&s, 0, &o) == NULL && o.solver == DG_SOLVER_MULTIGRID);
    s.solver.nonlinear_method = DG_NONLINEAR_NEWTON;
    CHECK(pb_solve_options(&s, 1, &o) == NULL && o.solver == DG_SOLVER_MULTIGRID);

    /* Boundary list: two overlapping spheres with charges, salt on. */
    const double xyz[6] = {0, 0, 0, 2.6, 0.3, 0}, q[2] = {0.5, -0.25}, r[2] = {1.7, 1.5};
    calc_molecule mol = test_molecule(2, xyz, q, r);
    char msg[512];
    grid_spec g;
    test_default_params(&s);
    s.scale = 3, s.perfil = 50, s.salt_count = 1, s.salts[0].concentration = 0.15;
    CHECK(grid_choose(&s, &mol, &g, msg, sizeof msg) == 0);
    salt_model_from_params(&s, &salt);
    surface_model sm;
    medium_maps m;
    charge_list c;
    CHECK(surface_model_build(&sm, &mol, DG_SURFACE_MOLECULAR, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) == 0);
    CHECK(medium_build(&sm, &g, 1, 2.0, &m, msg, sizeof msg) == 0);
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) == 0);
    pb_medium pm;
    pb_medium_init(&pm, &g, &m, &c, &salt, 2.0, 80.0, 297.3342);
    CHECK(pm.dense.salt_count == 1 && pm.dense.ion_accessible == m.ion_accessible);
    long *boundary = NULL;
    size_t count = 0;
    dg_sparse_counts counts;
    dg_options options;
    dg_default_options(&options);
    options.backend = DG_BACKEND_CPU;
    dg_solver solver = NULL;
    CHECK(dg_create(&solver, &options) == DG_OK);
    CHECK(dg_set_dense_medium_boundary_d(solver, &pm.dense, &counts, &boundary, &count) == DG_OK);
    /* The counts are those of the library's own sparse form of the same medium. */
    dg_sparse_counts direct;
    CHECK(dg_sparse_counts_d(&pm.dense, &direct, msg, sizeof msg) == DG_OK);
    CHECK(direct.boundary_count == counts.boundary_count &&
          direct.boundary_count_odd == counts.boundary_count_odd &&
          direct.charge_count == counts.charge_count &&
          direct.charges_not_interior == counts.charges_not_interior);
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
    /* DelPhi's order: odd points (w even) first, each section in grid order. */
    int ordered = 1;
    for (size_t k = 1; k < count; ++k)
        if ((boundary[k] & 1) == (boundary[k - 1] & 1) ? boundary[k] <= boundary[k - 1]
                                                       : (boundary[k] & 1) == 0)
            ordered = 0;
    CHECK(ordered);
    /* With salt the solve's list also holds salt points next to the solute: never fewer. */
    CHECK((size_t)counts.boundary_count >= count);
    CHECK(counts.charge_count > 0 && counts.charge_count <= 16);
    dg_destroy(solver);
    free(mark);
    free(boundary);
    charge_list_free(&c);
    medium_free(&m);
    surface_model_free(&sm);
    test_molecule_free(&mol);
    CHECK_DONE();
}
