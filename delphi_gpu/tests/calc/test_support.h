/* Helpers for the calculation-layer tests: small molecules and parameters built in code. */
#ifndef DG_CALC_TEST_SUPPORT_H
#define DG_CALC_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_atoms.h"
#include "delphi_gpu/delphi_gpu_calc.h"

/* The library's defaults with DelPhi's default scale 1.2 (the program's when none is given). */
static inline void test_default_params(dg_calc_params *p) {
    dg_calc_default_params(p);
    p->scale = 1.2;
    p->perfil = 0.0; /* the default, 80 */
}

/* A molecule of count atoms (coordinates, charges and radii from the arrays). */
static inline calc_molecule test_molecule(size_t count, const double *xyz, const double *q,
                                          const double *r) {
    calc_molecule m;
    m.atoms = calloc(count + 1, sizeof(calc_atom));
    m.count = count;
    for (size_t i = 0; i < count; ++i) {
        calc_atom *a = &m.atoms[i];
        a->x = xyz[3 * i], a->y = xyz[3 * i + 1], a->z = xyz[3 * i + 2];
        a->charge = q[i], a->radius = r[i];
    }
    return m;
}

static inline void test_molecule_free(calc_molecule *m) {
    free(m->atoms);
    m->atoms = NULL, m->count = 0;
}

/* The same atoms as the public API takes them (arrays owned by the caller). */
static inline dg_atoms test_atoms(size_t count, const double *xyz, const double *q,
                                  const double *r) {
    dg_atoms a = {(long)count, xyz, q, r};
    return a;
}

/* The backend a test's command line asks for: "cuda" (argv[1]) the CUDA backend, anything
 * else the CPU, in *backend.  Returns 0 to go on, or 77 (ctest's skip) after saying so when
 * CUDA is asked for and no device works. */
static inline int test_backend_from_args(int argc, char **argv, const char *test, int *backend) {
    *backend = DG_BACKEND_CPU;
    if (argc < 2 || strcmp(argv[1], "cuda") != 0) return 0;
    int devices = 0;
    if (dg_cuda_device_count(&devices) != DG_OK || devices == 0) {
        printf("%s cuda: SKIPPED (no usable CUDA device)\n", test);
        return 77;
    }
    *backend = DG_BACKEND_CUDA;
    return 0;
}

#endif /* DG_CALC_TEST_SUPPORT_H */
