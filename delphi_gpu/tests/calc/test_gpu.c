/* The calculation layer on the CUDA backend (label gpu; exit 77 without a device): one handle
 * keeps its solver through a two-run solvation, new positions and new charges, and every
 * result equals a fresh handle's (the autotuned shape does not change results) and agrees
 * with the CPU backend.  The boundary sums run on the handle's backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_support.h"

#define ATOMS 60

static void make_atoms(double *xyz, double *q, double *r) {
    for (int i = 0; i < ATOMS; ++i) { /* a compact random-looking cluster, deterministic */
        xyz[3 * i] = 6.0 * sin(1.3 * i), xyz[3 * i + 1] = 5.0 * cos(0.7 * i);
        xyz[3 * i + 2] = 4.0 * sin(0.31 * i + 1.0);
        q[i] = (i % 3 == 0 ? 0.5 : -0.25) * (i % 2 ? 1 : -1), r[i] = 1.4 + 0.05 * (i % 5);
    }
}

/* A two-run calculation; rp and cp get the reaction-field and Coulombic potentials at the
 * atoms (on the calculation's backend). */
static int run(int backend, const double *xyz, const double *q, const double *r,
               dg_calc_result *out, double *rp, double *cp) {
    dg_calc_params p;
    dg_calc_default_params(&p);
    p.scale = 2.0, p.perfil = 60;
    p.energies = DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
    p.solvation_two_run = 1;
    p.solver.backend = backend;
    p.solver.max_change_tol = 1e-6;
    dg_calc c = NULL;
    int st = dg_calc_create(&c, &p);
    const dg_atoms atoms = {ATOMS, xyz, q, r};
    if (st == DG_OK) st = dg_calc_set_atoms(c, &atoms);
    if (st == DG_OK) st = dg_calc_run(c, out);
    if (st == DG_OK) st = dg_calc_reaction_potentials_at(c, xyz, ATOMS, rp);
    if (st == DG_OK) st = dg_calc_coulombic_potentials_at(c, xyz, ATOMS, cp);
    if (st != DG_OK) fprintf(stderr, "run: %s\n", dg_calc_last_error(c));
    dg_calc_destroy(c);
    return st;
}

int main(void) {
    int devices = 0;
    if (dg_cuda_device_count(&devices) != DG_OK || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    double xyz[3 * ATOMS], q[ATOMS], r[ATOMS];
    make_atoms(xyz, q, r);
    dg_calc_result cpu, gpu, warm;
    double rp_cpu[ATOMS], cp_cpu[ATOMS], rp_gpu[ATOMS], cp_gpu[ATOMS];
    CHECK(run(DG_BACKEND_CPU, xyz, q, r, &cpu, rp_cpu, cp_cpu) == DG_OK);
    CHECK(run(DG_BACKEND_CUDA, xyz, q, r, &gpu, rp_gpu, cp_gpu) == DG_OK);
    CHECK(gpu.backend == DG_BACKEND_CUDA);
    printf("grid %d^3: grid energy cpu %.8f gpu %.8f; reaction field cpu %.8f gpu %.8f\n",
           gpu.grid.n, cpu.energies.grid, gpu.energies.grid, cpu.energies.reaction_field,
           gpu.energies.reaction_field);
    CHECK_REL(gpu.energies.grid, cpu.energies.grid, 1e-6);
    CHECK_REL(gpu.energies.reaction_field, cpu.energies.reaction_field, 1e-5);
    CHECK_REL(gpu.energies.solvation_two_run, cpu.energies.solvation_two_run, 1e-5);
    /* Site sums on the device: the Coulombic ones the CPU's (the same terms in the same order);
       the reaction field's from the device's own solve, half their charge-weighted sum its
       energy. */
    double rsum = 0.0, rdiff = 0.0, rmax = 0.0;
    int unequal = 0;
    for (int i = 0; i < ATOMS; ++i) {
        CHECK_REL(cp_gpu[i], cp_cpu[i], 1e-13);
        unequal += cp_gpu[i] != cp_cpu[i];
        rsum += 0.5 * q[i] * rp_gpu[i];
        rdiff = fmax(rdiff, fabs(rp_gpu[i] - rp_cpu[i])), rmax = fmax(rmax, fabs(rp_cpu[i]));
    }
    printf("reaction potentials at the atoms: largest |cpu - gpu| %.3g of max %.3g kT/e; "
           "Coulombic potentials not bitwise equal: %d of %d\n",
           rdiff, rmax, unequal, ATOMS);
    CHECK_REL(rsum, gpu.energies.reaction_field, 1e-12);
    CHECK(rdiff <= 1e-5 * rmax);

    /* One handle, warm: frames and charges equal fresh handles on the same grid. */
    dg_calc_params p;
    dg_calc_default_params(&p);
    p.grid_size = gpu.grid.n, p.scale = gpu.grid.scale, p.perfil = 0;
    p.center_mode = DG_CENTER_ABSOLUTE;
    memcpy(p.center, gpu.grid.center, sizeof p.center);
    p.energies = DG_ENERGY_GRID | DG_ENERGY_REACTION_FIELD;
    p.solvation_two_run = 1;
    p.solver.backend = DG_BACKEND_CUDA;
    p.solver.max_change_tol = 1e-6;
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = {ATOMS, xyz, q, r};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    CHECK(dg_calc_run(c, &warm) == DG_OK);
    double moved[3 * ATOMS];
    for (int i = 0; i < 3 * ATOMS; ++i)
        moved[i] = xyz[i] + 0.05 * sin(i);
    for (int frame = 0; frame < 2; ++frame) {
        CHECK(dg_calc_set_positions(c, frame ? xyz : moved) == DG_OK);
        CHECK(dg_calc_run(c, &warm) == DG_OK);
        dg_calc f = NULL;
        dg_calc_result fresh;
        const dg_atoms now = {ATOMS, frame ? xyz : moved, q, r};
        CHECK(dg_calc_create(&f, &p) == DG_OK && dg_calc_set_atoms(f, &now) == DG_OK);
        CHECK(dg_calc_run(f, &fresh) == DG_OK);
        dg_calc_destroy(f);
        CHECK(warm.energies.grid == fresh.energies.grid);
        CHECK(warm.energies.reaction_field == fresh.energies.reaction_field);
        CHECK(warm.energies.solvation_two_run == fresh.energies.solvation_two_run);
        CHECK(warm.solve.iterations == fresh.solve.iterations);
    }
    dg_calc_destroy(c);
    CHECK_DONE();
}
