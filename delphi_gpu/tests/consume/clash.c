/* A program with functions of its own named like internal functions of the library (its grid
 * placement, salt model and surface test): linked with the static library it neither fails to
 * link nor has the library call them (they abort). */
#include <stdio.h>
#include <stdlib.h>

#include <delphi_gpu/delphi_gpu_calc.h>

int grid_choose(void) {
    abort();
}
int salt_model_from_params(void) {
    abort();
}
int surface_shell_point_outside(void) {
    abort();
}
int memory_check(void) {
    abort();
}

int main(void) {
    const double xyz[6] = {0, 0, 0, 3, 0, 0}, charge[2] = {1, -1}, radius[2] = {2, 2};
    dg_calc_params p;
    dg_calc_default_params(&p);
    p.scale = 2.0;
    p.salt_count = 1;
    p.salts[0].concentration = 0.15;
    p.solver.backend = DG_BACKEND_CPU;
    dg_calc c = NULL;
    dg_calc_result r;
    int st = dg_calc_create(&c, &p);
    const dg_atoms atoms = {2, xyz, charge, radius};
    if (st == DG_OK) st = dg_calc_set_atoms(c, &atoms);
    if (st == DG_OK) st = dg_calc_run(c, &r);
    if (st != DG_OK || !(r.energies.grid > 0.0)) {
        fprintf(stderr, "consumer_clash: %s\n", c ? dg_calc_last_error(c) : "create failed");
        dg_calc_destroy(c);
        return 1;
    }
    printf("consumer_clash: grid energy %.4f kT\n", r.energies.grid);
    dg_calc_destroy(c);
    return 0;
}
