/* CPU against CUDA on the bundled protein (examples/1ubq, linear PB, double precision).
 * Skipped (exit 77) when dg_cuda_device_count reports no device.  The two backends sum in a
 * different order, so the potentials differ by rounding and the convergence checks may stop
 * a check interval apart: energies must agree to 1e-5 relative, site potentials to 1e-3 kT/e,
 * iteration counts to within two check intervals.  The Debye-fraction column (site(deb)) comes
 * from ion maps that the backends build bit for bit alike: equal, with salt (the run's map)
 * and without (a map built for the column); the salt column (site(i)) follows the potential;
 * the Coulombic field of site(cf) is the same sums on both, bit for bit; site(rf)'s owners of
 * the induced charges are the same, its forces within 0.01 kT/A (the solves' rounding). */
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
    CHECK(run_program(cpu, 0, (char *)prm, "--quiet", "--backend", "cpu", "--set",
                      "site(i,deb,rf,cf)", NULL) == EXIT_OK);
    CHECK(run_program(gpu, 0, (char *)prm, "--quiet", "--backend", "cuda", "--set",
                      "site(i,deb,rf,cf)", NULL) == EXIT_OK);
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
    CHECK(a->site_salt && b->site_salt && a->site_debye && b->site_debye);
    if (a->site_salt && b->site_salt && a->site_debye && b->site_debye) {
        double salt = 0;
        for (size_t i = 0; i < a->site_count; ++i)
            salt = fmax(salt, fabs(a->site_salt[i] - b->site_salt[i]));
        CHECK(salt < 0.3e-3); /* 2 I = 0.3 M times the potentials' difference */
        CHECK(memcmp(a->site_debye, b->site_debye, a->site_count * sizeof(double)) == 0);
    }
    /* site(cf): the Coulombic field's sums, the same expression in the same order. */
    CHECK(a->site_coulombic_field && b->site_coulombic_field);
    if (a->site_coulombic_field && b->site_coulombic_field)
        CHECK(memcmp(a->site_coulombic_field, b->site_coulombic_field,
                     3 * a->site_count * sizeof(double)) == 0);
    /* site(rf): the same owners; the induced charges follow the two solves' potentials. */
    CHECK(a->atom_reaction_force && b->atom_reaction_force && a->rf.owner && b->rf.owner);
    if (a->atom_reaction_force && b->atom_reaction_force && a->rf.owner && b->rf.owner) {
        CHECK(a->rf.boundary_points == b->rf.boundary_points &&
              memcmp(a->rf.owner, b->rf.owner, a->rf.boundary_points * sizeof(int)) == 0);
        double force = 0;
        for (size_t i = 0; i < 3 * a->site_count; ++i)
            force = fmax(force, fabs(a->atom_reaction_force[i] - b->atom_reaction_force[i]));
        printf("largest reaction-field force difference %.3g kT/A\n", force);
        CHECK(force < 1e-2);
    }
    pipeline_free(cpu);
    pipeline_free(gpu);
    /* Without salt the fractions come from a map of their own, on each backend. */
    CHECK(run_program(cpu, 0, (char *)prm, "--quiet", "--backend", "cpu", "--salt", "0", "--set",
                      "site(deb)", NULL) == EXIT_OK);
    CHECK(run_program(gpu, 0, (char *)prm, "--quiet", "--backend", "cuda", "--salt", "0", "--set",
                      "site(deb)", NULL) == EXIT_OK);
    a = cpu->result, b = gpu->result;
    CHECK(a->site_debye && b->site_debye && a->site_count == b->site_count);
    if (a->site_debye && b->site_debye && a->site_count == b->site_count)
        CHECK(memcmp(a->site_debye, b->site_debye, a->site_count * sizeof(double)) == 0);
    pipeline_free(cpu);
    pipeline_free(gpu);
    free(cpu), free(gpu);
    CHECK_DONE();
}
