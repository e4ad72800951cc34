/* The DelPhi-convention entry point with periodic axes (iper(1..3), DelPhi's pbx/pby/pbz): a
 * sheet of charges on plane x = X0 with y and z periodic, uniform medium, zero faces.  The
 * potential depends on x alone and is exactly piecewise linear; the returned phimap holds it on
 * the interior and on the wrapped y and z faces, as DelPhi's remap of its half grids does.  The
 * voltage drops (iper(4..6)) are refused by name.  Without periodic axes the same call is far
 * from the sheet's solution (the check can fail). */
#include "delphi_gpu/delphi_compat.h"
#include "test_util.h"

enum { N = 25, X0 = 8 };

static int run(int periodic_yz, int drop, double *phi, dg_delphi_report *report) {
    const double source = 0.05; /* qval: added as omega * qval, DelPhi's 1/6-scaled charge */
    int iqpos[(N - 2) * (N - 2)];
    double qval[(N - 2) * (N - 2)];
    int count = 0, odd = 0;
    for (int colour = 0; colour < 2; ++colour) /* DelPhi lists odd points (w even) first */
        for (int z = 1; z < N - 1; ++z)
            for (int y = 1; y < N - 1; ++y) {
                const long w = X0 + (long)N * (y + (long)N * z);
                if ((int)(w & 1) != colour) continue;
                iqpos[count] = (int)(w / 2 + 1), qval[count] = source, ++count;
                odd += colour == 0;
            }
    const double pi = 3.14159265358979323846;
    const double rho = (cos(pi / (N - 1)) + (periodic_yz ? 2.0 : 2.0 * cos(pi / (N - 1)))) / 3.0;
    dg_delphi_control c;
    dg_delphi_default_control(&c);
    c.igrid = N, c.nlit = 5000, c.automatic = 1, c.maxc = 2e-7, c.backend = DG_BACKEND_CPU;
    c.periodic[1] = c.periodic[2] = periodic_yz;
    c.periodic[3 + 2] = drop;
    const int st = dg_delphi_itit_d(NULL, NULL, NULL, NULL, iqpos, qval, 0, 0, odd, count,
                                    rho * rho, 0, phi, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                    NULL, NULL, NULL, NULL, 0, NULL, &c, report);
    if (st != DG_OK) fprintf(stderr, "itit: %s\n", report->message);
    return st;
}

/* The sheet's discrete solution: second difference -6 source at X0, zero at x = 0 and N-1. */
static double exact(int x) {
    const double peak = 6.0 * 0.05 / (1.0 / X0 + 1.0 / (N - 1 - X0));
    return x <= X0 ? peak * x / X0 : peak * (N - 1 - x) / (N - 1 - X0);
}

static double worst_error(const double *phi, int faces) {
    double worst = 0.0;
    for (int z = 0; z < N; ++z)
        for (int y = 0; y < N; ++y)
            for (int x = 1; x < N - 1; ++x) {
                const int fy = y == 0 || y == N - 1, fz = z == 0 || z == N - 1;
                if ((fy && fz) || (faces != (fy || fz))) continue;
                if (x == 1 && y == 1 && z == 1) continue;
                const double e = fabs(phi[x + (long)N * (y + (long)N * z)] - exact(x));
                worst = e > worst ? e : worst;
            }
    return worst / exact(X0);
}

int main(void) {
    const long n = (long)N * N * N;
    double *phi = calloc((size_t)n, sizeof *phi);
    dg_delphi_report r;
    CHECK(run(1, 0, phi, &r) == DG_OK, "periodic y, z");
    const double interior = worst_error(phi, 0), faces = worst_error(phi, 1);
    printf("y, z periodic: %s after %d iterations, peak %.6f, relative error %.2e interior, "
           "%.2e wrapped faces\n",
           dg_outcome_string(r.result.outcome), r.result.iterations, exact(X0), interior, faces);
    CHECK(r.result.outcome == DG_OUTCOME_CONVERGED, "outcome %s",
          dg_outcome_string(r.result.outcome));
    CHECK(interior < 1e-5 && faces < 1e-5, "errors %.3e, %.3e", interior, faces);

    memset(phi, 0, (size_t)n * sizeof *phi);
    CHECK(run(0, 0, phi, &r) == DG_OK, "fixed faces");
    printf("fixed faces: relative error %.2e\n", worst_error(phi, 0));
    CHECK(worst_error(phi, 0) > 0.1, "fixed faces give another potential");

    memset(phi, 0, (size_t)n * sizeof *phi);
    CHECK(run(1, 1, phi, &r) == DG_ERR_UNSUPPORTED, "the voltage drop is refused");
    CHECK(strstr(r.message, "voltage drop") != NULL, "message: %s", r.message);
    for (long i = 0; i < n; ++i)
        if (phi[i] != 0.0) {
            CHECK(0, "a refused call changed phimap");
            break;
        }
    free(phi);
    return test_finish("test_delphi_compat_periodic");
}
