/* The plane-by-plane spectral-radius estimate (dg_spectral_radius) is bitwise the whole-grid one
 * (dg_spectral_radius_scratch) for any thread count: dielectric boundaries, salt, non-cubic
 * grids, more threads than planes, periodic axes; and a prepared problem with an unsorted list
 * falls back. */
#include "solver_internal.h"
#include "test_util.h"

static void compare(dense_problem *d, const char *label, int periodic) {
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    o.periodic = periodic;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    double whole = -1.0;
    CHECK(dg_spectral_radius_scratch(&s->prep, 2, &whole) == DG_OK);
    const int threads[4] = {1, 2, 3, 16};
    for (int i = 0; i < 4; ++i) {
        double planes = -2.0;
        CHECK(dg_spectral_radius(&s->prep, threads[i], &planes) == DG_OK);
        CHECK(memcmp(&planes, &whole, sizeof whole) == 0, "%s, %d threads: %.17g vs %.17g", label,
              threads[i], planes, whole);
    }
    CHECK(whole > 0.5 && whole < 1.0, "%s: %.17g", label, whole);
    /* Unsorted lists: the whole-grid form (same value, the lists' order does not matter to it
       except in the order of the even boundary terms, so swap two odd entries only). */
    if (s->prep.boundary_count[0] > 2) {
        dg_prepared *p = &s->prep;
        int t = p->boundary_index[0][0];
        p->boundary_index[0][0] = p->boundary_index[0][1], p->boundary_index[0][1] = t;
        for (int f = 0; f < 6; ++f) {
            double w = p->boundary_weight[0][f];
            p->boundary_weight[0][f] = p->boundary_weight[0][6 + f];
            p->boundary_weight[0][6 + f] = w;
        }
        double swapped = -3.0;
        CHECK(dg_spectral_radius(&s->prep, 3, &swapped) == DG_OK);
        CHECK(memcmp(&swapped, &whole, sizeof whole) == 0, "%s, unsorted: %.17g vs %.17g", label,
              swapped, whole);
    }
    dg_destroy(s);
}

int main(void) {
    dense_problem d;
    dense_problem_init(&d, 25, 19, 31, 1.3, 80.0);
    dense_problem_sphere(&d, 12.0, 9.5, 14.0, 6.5, 2.0);
    compare(&d, "dielectric sphere", 0);
    dense_problem_salt(&d, 12.0, 9.5, 14.0, 7.5, 0.15);
    compare(&d, "sphere and salt", 0);
    /* periodic axes: the constant mode along them, the wrapped face points */
    static const int periodic[4] = {DG_PERIODIC_Z, DG_PERIODIC_X, DG_PERIODIC_X | DG_PERIODIC_Y,
                                    DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z};
    for (int i = 0; i < 4; ++i)
        compare(&d, "sphere and salt, periodic", periodic[i]);
    dense_problem_free(&d);
    dense_problem_init(&d, 41, 7, 5, 1.0, 4.0); /* 3 interior planes, up to 16 threads */
    dense_problem_sphere(&d, 20.0, 3.0, 2.0, 2.5, 80.0);
    compare(&d, "flat grid", 0);
    compare(&d, "flat grid, periodic x, y, z", DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z);
    dense_problem_free(&d);
    return test_finish("test_spectral_planes");
}
