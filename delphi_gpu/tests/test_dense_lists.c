/* The dense medium's lists built on several threads keep the serial order: the charged points
 * (colour 0 then 1, each in grid order, from a dense charge map) and the dielectric boundary list
 * of dg_set_dense_medium_boundary_d (colour 0 then 1, each in grid order). */
#include <omp.h>

#include "solver_internal.h"
#include "test_util.h"

int main(void) {
    omp_set_num_threads(4);
    const int n = 81;
    const double c = (n - 1) / 2.0;
    dense_problem d;
    dense_problem_init(&d, n, n, n, 1.0, 80.0);
    dense_problem_sphere(&d, c, c, c, 22.0, 2.0);
    const long points = (long)n * n * n;
    long charged = 0;
    for (long w = 0; w < points; ++w) {
        const int x = (int)(w % n), y = (int)(w / n % n), z = (int)(w / ((long)n * n));
        const double r2 = (x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c);
        if (r2 < 18.0 * 18.0 && w % 3 == 0) d.charge[w] = 0.1 * (1 + w % 5), ++charged;
    }
    CHECK(charged > 4096);

    /* Charged points: the expected order, then the library's (1-based half-indices). */
    dg_sparse_counts counts;
    char msg[512];
    CHECK(dg_sparse_counts_d(&d.medium, &counts, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(counts.charge_count == charged);
    int *expect = malloc((charged + 1) * sizeof *expect), k = 0;
    for (int colour = 0; colour < 2; ++colour)
        for (long w = colour; w < points; w += 2)
            if (d.charge[w] != 0.0) expect[k++] = (int)(w / 2) + 1;
    int *bindex = malloc(((size_t)counts.boundary_count + 1) * sizeof *bindex);
    double *bweight = malloc(((size_t)counts.boundary_count + 1) * 6 * sizeof *bweight);
    int *cindex = malloc((charged + 1) * sizeof *cindex);
    double *csource = malloc((charged + 1) * sizeof *csource);
    dg_sparse_medium_d sparse;
    CHECK(dg_sparse_from_dense_d(&d.medium, bindex, bweight, cindex, csource, NULL, NULL, &sparse,
                                 msg, sizeof msg) == DG_OK,
          "%s", msg);
    CHECK(memcmp(cindex, expect, charged * sizeof *cindex) == 0, "charge list order");
    CHECK(sparse.charge_count_odd == counts.charge_count_odd);

    /* Dielectric boundary list, several threads. */
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU, o.num_threads = 4;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    long *boundary = NULL;
    size_t count = 0;
    CHECK_OK(dg_set_dense_medium_boundary_d(s, &d.medium, &counts, &boundary, &count), s);
    CHECK(count > 4096, "%zu boundary points", count);
    size_t at = 0, wrong = 0;
    for (int colour = 0; colour < 2; ++colour)
        for (long w = colour; w < points; w += 2) {
            const int x = (int)(w % n), y = (int)(w / n % n), z = (int)(w / ((long)n * n));
            if (x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1) continue;
            const double e = d.eps[0][w];
            const int jump = d.eps[0][w - 1] != e || d.eps[1][w] != e || d.eps[1][w - n] != e ||
                             d.eps[2][w] != e || d.eps[2][w - (long)n * n] != e;
            if (jump) wrong += at >= count || boundary[at++] != w;
        }
    CHECK(wrong == 0 && at == count, "%zu of %zu boundary entries out of place", wrong, count);
    free(boundary), free(expect), free(bindex), free(bweight), free(cindex), free(csource);
    dg_destroy(s);
    dense_problem_free(&d);
    return test_finish("test_dense_lists");
}
