/* The DelPhi-convention entry point with mixed_precision (the kit's DELPHI_GPU_PRECISION=mixed):
 * a single-precision call (REAL = float) with a max-change criterion below float's resolution
 *  - by default (stock behaviour) runs to its iteration limit, not converged (no early stop at
 *    float's resolution, which the library's own float solves make);
 *  - with mixed_precision = 1 converges, in the double call's iteration count (within one check
 *    interval), to the double call's potential up to float rounding of the result.
 * Problem: a uniform no-salt 33^3 grid, one source at the centre, zero faces. */
#include "delphi_gpu/delphi_compat.h"
#include "test_util.h"

enum { N = 33, C = 16 };

static int run(int is_double, int mixed, double *out, dg_delphi_report *report) {
    const long n = (long)N * N * N;
    const long w = C + (long)N * (C + (long)N * C);
    int iqpos = (int)((w + 2) / 2); /* DelPhi's 1-based half-index of the centre (odd point) */
    const double pi = 3.14159265358979323846, rho = cos(pi / (N - 1));
    dg_delphi_control c;
    dg_delphi_default_control(&c);
    c.igrid = N, c.nlit = 3000, c.automatic = 1, c.maxc = 1e-6, c.backend = DG_BACKEND_CPU;
    c.mixed_precision = mixed;
    int st;
    if (is_double) {
        double *phi = calloc(n, sizeof *phi), qval = 10.0;
        st = dg_delphi_itit_d(NULL, NULL, NULL, NULL, &iqpos, &qval, 0, 0, 1, 1, rho * rho, 0, phi,
                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
                              NULL, &c, report);
        for (long i = 0; i < n; ++i)
            out[i] = phi[i];
        free(phi);
    } else {
        float *phi = calloc(n, sizeof *phi), qval = 10.0f;
        st = dg_delphi_itit_f(NULL, NULL, NULL, NULL, &iqpos, &qval, 0, 0, 1, 1, (float)(rho * rho),
                              0, phi, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, 0, NULL, &c, report);
        for (long i = 0; i < n; ++i)
            out[i] = phi[i];
        free(phi);
    }
    if (st != DG_OK) fprintf(stderr, "itit: %s\n", report->message);
    return st;
}

int main(void) {
    const long n = (long)N * N * N;
    double *d = malloc(n * sizeof *d), *f = malloc(n * sizeof *f), *m = malloc(n * sizeof *m);
    dg_delphi_report rd, rf, rm;
    CHECK(run(1, 0, d, &rd) == DG_OK, "double call");
    CHECK(run(0, 0, f, &rf) == DG_OK, "float call");
    CHECK(run(0, 1, m, &rm) == DG_OK, "float call, mixed precision");
    d[0] = f[0] = m[0] = 0.0; /* itit's mark on phimap(1,1,1) */
    double ref = 0.0, diff = max_abs_diff(m, d, n, &ref);
    printf("double %d iterations (%s); float %d (%s); float arrays, mixed %d (%s); "
           "max |mixed - double| %.2e of max %.2f\n",
           rd.result.iterations, dg_outcome_string(rd.result.outcome), rf.result.iterations,
           dg_outcome_string(rf.result.outcome), rm.result.iterations,
           dg_outcome_string(rm.result.outcome), diff, ref);
    CHECK(rd.result.outcome == DG_OUTCOME_CONVERGED, "double: %s",
          dg_outcome_string(rd.result.outcome));
    CHECK(rf.result.outcome != DG_OUTCOME_FLOAT_RESOLUTION, "float: %s",
          dg_outcome_string(rf.result.outcome));
    CHECK(rm.result.outcome == DG_OUTCOME_CONVERGED && rm.result.precision == DG_PRECISION_MIXED,
          "mixed: %s, precision %d", dg_outcome_string(rm.result.outcome), rm.result.precision);
    CHECK(abs(rm.result.iterations - rd.result.iterations) <= 10, "mixed %d vs double %d",
          rm.result.iterations, rd.result.iterations);
    /* float rounding of the returned values (6e-8 relative) dominates */
    CHECK(diff <= 2e-7 * ref, "max |mixed - double| %.3e", diff);
    dg_delphi_control bad;
    dg_delphi_default_control(&bad);
    CHECK(bad.mixed_precision == 0, "default");
    free(d), free(f), free(m);
    return test_finish("test_delphi_compat_mixed");
}
