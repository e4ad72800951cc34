/* Debye-Hueckel boundary values on the GPU against the CPU backend (dg_debye_huckel_faces_*):
 * a non-cubic grid whose face count is not a multiple of the block, more charges than one
 * shared-memory tile, with and without screening; double to 1e-12 relative (exp and sqrt may
 * round differently), float to one float rounding of that. */
#include "gpu_test.h"

enum { NX = 45, NY = 37, NZ = 29, CHARGES = 1000 };

int main(void) {
    gpu_require_device("test_gpu_faces");
    const long n = (long)NX * NY * NZ;
    double *pos = malloc(3 * CHARGES * sizeof *pos), *q = malloc(CHARGES * sizeof *q);
    srand(5);
    for (int i = 0; i < CHARGES; ++i) {
        pos[3 * i] = 2.0 + (NX - 4.0) * rand() / RAND_MAX;
        pos[3 * i + 1] = 2.0 + (NY - 4.0) * rand() / RAND_MAX;
        pos[3 * i + 2] = 2.0 + (NZ - 4.0) * rand() / RAND_MAX;
        q[i] = (i % 2 ? 1.0 : -1.0) * (0.1 + rand() / (double)RAND_MAX);
    }
    dg_options cpu, gpu;
    dg_default_options(&cpu);
    cpu.backend = DG_BACKEND_CPU;
    gpu = cpu;
    gpu.backend = DG_BACKEND_CUDA;
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    float *af = calloc(n, sizeof *af), *bf = calloc(n, sizeof *bf);
    const double inverse_lengths[2] = {0.0, 0.25};
    for (int s = 0; s < 2; ++s) {
        char msg[512];
        const double c = 14.0, k = inverse_lengths[s];
        CHECK_OK(dg_debye_huckel_faces_d(&cpu, NX, NY, NZ, pos, q, CHARGES, c, k, a, msg, 512),
                 NULL);
        int st = dg_debye_huckel_faces_d(&gpu, NX, NY, NZ, pos, q, CHARGES, c, k, b, msg, 512);
        CHECK(st == DG_OK, "CUDA faces: %s", msg);
        CHECK_OK(dg_debye_huckel_faces_f(&cpu, NX, NY, NZ, pos, q, CHARGES, c, k, af, msg, 512),
                 NULL);
        st = dg_debye_huckel_faces_f(&gpu, NX, NY, NZ, pos, q, CHARGES, c, k, bf, msg, 512);
        CHECK(st == DG_OK, "CUDA faces (float): %s", msg);
        double ref, diff = max_abs_diff(b, a, n, &ref), worst_float = 0.0;
        for (long w = 0; w < n; ++w) {
            double d = fabs((double)bf[w] - (double)af[w]) / (fabs((double)af[w]) + 1e-30);
            if (d > worst_float || isnan(d)) worst_float = d;
        }
        printf("inverse length %.2f: double max |GPU - CPU| / max |phi| = %.2e, float worst "
               "relative %.2e\n",
               k, diff / ref, worst_float);
        CHECK(ref > 0.0 && diff / ref <= 1e-12, "double faces differ by %.2e", diff / ref);
        CHECK(worst_float <= 1.2e-7, "float faces differ by %.2e", worst_float);
    }
    free(pos), free(q), free(a), free(b), free(af), free(bf);
    return test_finish("test_gpu_faces");
}
