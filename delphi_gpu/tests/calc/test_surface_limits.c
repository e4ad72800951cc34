/* Limits of the surface model: 70 000 atoms at one point (the neighbour counts would overflow
 * int and then the heap) give a clear error naming the limit, and atoms spread very far apart
 * do not make the cell list ask for an absurd number of cells. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "surface.h"
#include "test_support.h"

static calc_molecule cloud(size_t n, double spread) {
    double *xyz = calloc(3 * n, sizeof *xyz), *q = calloc(n, sizeof *q), *r = calloc(n, sizeof *r);
    for (size_t i = 0; i < n; ++i) {
        r[i] = 1.5;
        xyz[3 * i] = spread * (double)(i % 7), xyz[3 * i + 1] = spread * (double)(i % 5);
        xyz[3 * i + 2] = spread * (double)(i % 3);
    }
    calc_molecule m = test_molecule(n, xyz, q, r);
    free(xyz), free(q), free(r);
    return m;
}

int main(void) {
    char msg[512] = "";
    calc_molecule crowd = cloud(70000, 0.0);
    surface_model sm;
    CHECK(surface_model_build(&sm, &crowd, DG_SURFACE_MOLECULAR, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) != 0);
    CHECK(strstr(msg, "10000") != NULL && strstr(msg, "limit") != NULL);
    printf("70000 atoms at one point: %s\n", msg);
    test_molecule_free(&crowd);

    /* A few atoms a kilometre apart in three directions: built, with a small cell list. */
    calc_molecule far = cloud(30, 1.0e7);
    msg[0] = '\0';
    CHECK(surface_model_build(&sm, &far, DG_SURFACE_MOLECULAR, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) == 0);
    CHECK((double)sm.atoms.dim[0] * sm.atoms.dim[1] * sm.atoms.dim[2] <= 1048576.0);
    surface_model_free(&sm);
    test_molecule_free(&far);
    CHECK_DONE();
}
