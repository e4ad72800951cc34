/* Downstream use of the installed library: solve a tiny Coulomb problem. */
#include <stdio.h>

#include <delphi_gpu/delphi_gpu.h>

int main(void) {
    enum { N = 9 };
    static double eps[N * N * N], charge[N * N * N], phi[N * N * N];
    for (int i = 0; i < N * N * N; ++i)
        eps[i] = 2.0;
    charge[4 + N * (4 + N * 4)] = 1.0;
    dg_dense_medium_d m = {0};
    m.nx = m.ny = m.nz = N;
    m.scale = 1.0;
    m.eps_x = m.eps_y = m.eps_z = eps;
    m.charge = charge;
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    o.max_change_tol = 1e-8;
    dg_solver s = NULL;
    dg_result r;
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = dg_set_dense_medium_d(s, &m);
    if (st == DG_OK) st = dg_solve_d(s, phi, &r);
    if (st != DG_OK || r.outcome != DG_OUTCOME_CONVERGED || !(phi[5 + N * (4 + N * 4)] > 0.0)) {
        fprintf(stderr, "consumer: %s\n", dg_last_error(s));
        dg_destroy(s);
        return 1;
    }
    printf("consumer: delphi-gpu %s solved in %d iterations\n", dg_version_string(), r.iterations);
    dg_destroy(s);
    return 0;
}
