/* CPU against CUDA on the bundled protein (examples/1ubq, linear PB, double precision).
 * Skipped (exit 77) when dg_cuda_device_count reports no device.  The two backends sum in a
 * different order, so the potentials differ by rounding and the convergence checks may stop
 * a check interval apart: energies must agree to 1e-5 relative, site potentials to 1e-3 kT/e,
 * iteration counts to within two check intervals. */
#include <math.h>
#include <string.h>

#include "app_test.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

int main(void) {
    int devices = 0;
    if (dg_cuda_device_count(&devices) != DG_OK || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    pipeline *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
    const char *prm = EXAMPLES_DIR "/1ubq/run.prm";
    CHECK(run_program(cpu, 0, (char *)prm, "--quiet", "--backend", "cpu", NULL) == EXIT_OK);
    CHECK(run_program(gpu, 0, (char *)prm, "--quiet", "--backend", "cuda", NULL) == EXIT_OK);
    const calc_result *a = cpu->result, *b = gpu->result;
    CHECK(a->solve.backend == DG_BACKEND_CPU && b->solve.backend == DG_BACKEND_CUDA);
    printf("iterations cpu %d, cuda %d; grid energy %.6f / %.6f; reaction field %.6f / %.6f\n",
           a->solve.iterations, b->solve.iterations, a->energy_grid, b->energy_grid,
           a->energy_reaction_field, b->energy_reaction_field);
    CHECK(abs(a->solve.iterations - b->solve.iterations) <= 20);
    CHECK_REL(b->energy_grid, a->energy_grid, 1e-5);
    CHECK_REL(b->energy_reaction_field, a->energy_reaction_field, 1e-5);
    double worst = 0;
    for (size_t i = 0; i < a->site_count && i < b->site_count; ++i)
        worst = fmax(worst, fabs(a->site_potential[i] - b->site_potential[i]));
    printf("largest site potential difference %.3g kT/e\n", worst);
    CHECK(worst < 1e-3);
    pipeline_free(cpu);
    pipeline_free(gpu);
    free(cpu), free(gpu);
    CHECK_DONE();
}
