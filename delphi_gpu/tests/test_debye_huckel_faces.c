/* dg_debye_huckel_faces_*: the Debye-Hueckel sum at every face point of a non-cubic grid, with
 * and without screening, against a direct evaluation; interior points untouched; float output
 * is the rounded double; bad input rejected with a message. */
#include "test_util.h"

enum { NX = 9, NY = 11, NZ = 13, CHARGES = 40 };

static double direct(int x, int y, int z, const double *pos, const double *q, double coefficient,
                     double inverse_length) {
    double sum = 0.0;
    for (int i = 0; i < CHARGES; ++i) {
        double dx = x - pos[3 * i], dy = y - pos[3 * i + 1], dz = z - pos[3 * i + 2];
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        sum += q[i] * (inverse_length > 0 ? exp(-inverse_length * r) : 1.0) / r;
    }
    return coefficient * sum;
}

int main(void) {
    const long n = (long)NX * NY * NZ;
    double pos[3 * CHARGES], q[CHARGES];
    srand(11);
    for (int i = 0; i < CHARGES; ++i) {
        pos[3 * i] = 1.5 + 6.0 * rand() / RAND_MAX;
        pos[3 * i + 1] = 1.5 + 8.0 * rand() / RAND_MAX;
        pos[3 * i + 2] = 1.5 + 10.0 * rand() / RAND_MAX;
        q[i] = (i % 3 ? 1.0 : -2.0) * rand() / RAND_MAX;
    }
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    double *phi = malloc(n * sizeof *phi);
    float *phif = malloc(n * sizeof *phif);
    const double inverse_lengths[2] = {0.0, 0.126};
    for (int s = 0; s < 2; ++s) {
        const double coefficient = 2.0 * EPKT_DEFAULT / 80.0, kappa = inverse_lengths[s];
        for (long w = 0; w < n; ++w)
            phi[w] = -7.0, phif[w] = -7.0f;
        char msg[256];
        CHECK_OK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, q, CHARGES, coefficient, kappa, phi,
                                         msg, sizeof msg),
                 NULL);
        CHECK_OK(dg_debye_huckel_faces_f(&o, NX, NY, NZ, pos, q, CHARGES, coefficient, kappa, phif,
                                         msg, sizeof msg),
                 NULL);
        double worst = 0.0;
        int faces = 0, interior_ok = 1, float_ok = 1;
        for (int z = 0; z < NZ; ++z)
            for (int y = 0; y < NY; ++y)
                for (int x = 0; x < NX; ++x) {
                    long w = idx3(NX, NY, x, y, z);
                    int face = !x || !y || !z || x == NX - 1 || y == NY - 1 || z == NZ - 1;
                    if (!face) {
                        interior_ok &= phi[w] == -7.0 && phif[w] == -7.0f;
                        continue;
                    }
                    double exact = direct(x, y, z, pos, q, coefficient, kappa);
                    double rel = fabs(phi[w] - exact) / fabs(exact);
                    if (rel > worst || isnan(rel)) worst = rel;
                    float_ok &= phif[w] == (float)phi[w];
                    faces++;
                }
        printf("inverse length %.3f: %d face points, worst relative difference %.2e\n", kappa,
               faces, worst);
        CHECK(faces == n - (NX - 2) * (NY - 2) * (NZ - 2), "face points %d", faces);
        CHECK(worst < 1e-13, "face values differ from the direct sum by %.2e", worst);
        CHECK(interior_ok, "an interior point was changed");
        CHECK(float_ok, "float output is not the rounded double");
    }
    /* Bad input. */
    char msg[256];
    double bad_q[CHARGES];
    memcpy(bad_q, q, sizeof q);
    bad_q[5] = NAN;
    CHECK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, bad_q, CHARGES, 1.0, 0.0, phi, msg,
                                  sizeof msg) == DG_ERR_NONFINITE_INPUT &&
              strstr(msg, "charge 5"),
          "NaN charge: %s", msg);
    CHECK(dg_debye_huckel_faces_d(&o, 8, NY, NZ, pos, q, CHARGES, 1.0, 0.0, phi, msg, sizeof msg) ==
              DG_ERR_INVALID_GRID,
          "even grid: %s", msg);
    CHECK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, q, CHARGES, 1.0, -1.0, phi, msg,
                                  sizeof msg) == DG_ERR_NONFINITE_INPUT,
          "negative inverse length: %s", msg);
    CHECK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, q, -1, 1.0, 0.0, phi, msg, sizeof msg) ==
              DG_ERR_COUNT_MISMATCH,
          "negative count: %s", msg);
    CHECK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, q, CHARGES, 1.0, 0.0, NULL, msg,
                                  sizeof msg) == DG_ERR_INVALID_ARGUMENT,
          "NULL phi: %s", msg);
    o.omega = 3.0;
    CHECK(dg_debye_huckel_faces_d(&o, NX, NY, NZ, pos, q, CHARGES, 1.0, 0.0, phi, msg,
                                  sizeof msg) == DG_ERR_BAD_OMEGA,
          "bad options: %s", msg);
    free(phi), free(phif);
    return test_finish("test_debye_huckel_faces");
}
