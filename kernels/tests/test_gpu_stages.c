/* The stage operations on the CUDA backend against the CPU backend: pair sums (full and upper
 * triangle, with left-out close pairs) for sizes around the kernel's tile of 256, and the field
 * sums against the host's, bit for bit. */
#include "gpu_test.h"
#include "stages.h"

static double uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

static void run(int backend, const dg_pair_request *r, double *out, long *skipped) {
    dg_options o;
    dg_default_options(&o);
    o.backend = backend;
    char msg[512];
    const int st = dg_stage_pair_potentials(&o, r, out, skipped, msg, sizeof msg);
    if (st != DG_OK) {
        fprintf(stderr, "FAIL: backend %d: %s (%s)\n", backend, dg_status_string(st), msg);
        exit(1);
    }
}

static void compare(const char *what, const dg_pair_request *r) {
    const size_t n = (size_t)r->target_count + 1;
    double *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    long cpu_skipped = -1, gpu_skipped = -2;
    run(DG_BACKEND_CPU, r, cpu, &cpu_skipped);
    run(DG_BACKEND_CUDA, r, gpu, &gpu_skipped);
    double worst = 0.0;
    long differ = 0;
    for (long k = 0; k < r->target_count; ++k) {
        differ += cpu[k] != gpu[k];
        worst = fmax(worst, fabs(cpu[k] - gpu[k]) / (fabs(cpu[k]) + 1e-3));
    }
    CHECK(cpu_skipped == gpu_skipped, "%s: %ld vs %ld pairs left out", what, cpu_skipped,
          gpu_skipped);
    CHECK(worst <= 1e-12, "%s: relative difference %.3g", what, worst);
    printf("%s: %ld targets x %ld sources, %ld sums not bitwise equal, worst relative %.3g\n", what,
           r->target_count, r->source_count, differ, worst);
    free(cpu), free(gpu);
}

/* The fields on a CUDA solver's backend against the host's (dg_stage_pair_fields_on with no
   solver): the same expression in the same order, so the same bits. */
static void compare_fields(const char *what, const dg_pair_request *r) {
    const size_t n = 3 * (size_t)r->target_count + 1;
    double *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    long cpu_skipped = -1, gpu_skipped = -2;
    char msg[512];
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CUDA;
    dg_solver s = NULL;
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = dg_stage_pair_fields_on(s, r, gpu, &gpu_skipped, msg, sizeof msg);
    CHECK(st == DG_OK, "%s: CUDA fields: %s (%s)", what, dg_status_string(st), msg);
    st = dg_stage_pair_fields_on(NULL, r, cpu, &cpu_skipped, msg, sizeof msg);
    CHECK(st == DG_OK, "%s: host fields: %s (%s)", what, dg_status_string(st), msg);
    dg_destroy(s);
    long differ = 0;
    for (size_t k = 0; k + 1 < n; ++k)
        differ += memcmp(&cpu[k], &gpu[k], sizeof cpu[k]) != 0;
    CHECK(cpu_skipped == gpu_skipped, "%s: %ld vs %ld pairs left out", what, cpu_skipped,
          gpu_skipped);
    CHECK(differ == 0, "%s: %ld field components not bitwise equal", what, differ);
    printf("%s: fields at %ld targets x %ld sources, %ld components differ\n", what,
           r->target_count, r->source_count, differ);
    free(cpu), free(gpu);
}

int main(int argc, char **argv) {
    gpu_require_device("test_gpu_stages");
    const int quick = argc > 1 && strcmp(argv[1], "quick") == 0; /* under compute-sanitizer */
    const long sizes[][2] = {{0, 10}, {1, 1}, {255, 257}, {256, 256}, {1000, 3001}, {20000, 7000}};
    unsigned seed = 777u;
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0] - (quick ? 1 : 0); ++c) {
        const long atoms = sizes[c][1], points = sizes[c][0];
        double *xyz = malloc((size_t)(3 * atoms + 3) * sizeof *xyz);
        double *q = malloc((size_t)(atoms + 1) * sizeof *q);
        double *sites = malloc((size_t)(3 * points + 3) * sizeof *sites);
        for (long i = 0; i < atoms; ++i) {
            for (int a = 0; a < 3; ++a)
                xyz[3 * i + a] = 60.0 * uniform(&seed);
            q[i] = uniform(&seed) - 0.5;
        }
        for (long k = 0; k < points; ++k)
            for (int a = 0; a < 3; ++a)
                sites[3 * k + a] = 64.0 * uniform(&seed) - 2.0;
        if (atoms > 300 && points > 300)
            for (int a = 0; a < 3; ++a) /* coincident: atoms 290/7, site 260 on atom 9 */
                xyz[870 + a] = xyz[21 + a], sites[780 + a] = xyz[27 + a];
        char what[64];
        const dg_pair_request self = {xyz, atoms, xyz, q, atoms, 1, 1e-6};
        snprintf(what, sizeof what, "upper triangle %ld", atoms);
        compare(what, &self);
        const dg_pair_request field = {sites, points, xyz, q, atoms, 0, 1e-9};
        snprintf(what, sizeof what, "targets x sources %ld", c);
        compare(what, &field);
        compare_fields(what, &field);
        free(xyz), free(q), free(sites);
    }
    return test_finish("test_gpu_stages");
}
