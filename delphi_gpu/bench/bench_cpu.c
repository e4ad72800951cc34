/* CPU-backend benchmark: grid-point updates per second for a dielectric sphere with charges
 * (Poisson) and the same in 0.15 M salt (linear PB), float and double, on grids 65^3..257^3.
 * Usage: dg_bench_cpu [--sizes 65,97,129,193,257] [--iterations 20] [--threads N]
 * Prints a table; a benchmark, not a test. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu.h"

typedef struct bench_problem {
    int n;
    unsigned char *media[3], *ions;
    long *charge_index;
    double *charge_value;
    dg_salt salt;
    double medium_epsilon[2];
} bench_problem;

/* A sphere of eps 2 (radius n/4) in eps 80 with 64 charges inside; ions beyond radius + 2. */
static int build(bench_problem *b, int n) {
    memset(b, 0, sizeof *b);
    b->n = n;
    const long points = (long)n * n * n;
    const double c = (n - 1) / 2.0, radius = n / 4.0;
    for (int a = 0; a < 3; ++a)
        if (!(b->media[a] = malloc(points))) return 0;
    if (!(b->ions = malloc(points))) return 0;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                long w = x + (long)n * (y + (long)n * z);
                double dx = x - c, dy = y - c, dz = z - c;
                double mids[3] = {(dx + 0.5) * (dx + 0.5) + dy * dy + dz * dz,
                                  dx * dx + (dy + 0.5) * (dy + 0.5) + dz * dz,
                                  dx * dx + dy * dy + (dz + 0.5) * (dz + 0.5)};
                for (int a = 0; a < 3; ++a)
                    b->media[a][w] = mids[a] < radius * radius;
                b->ions[w] = dx * dx + dy * dy + dz * dz > (radius + 2) * (radius + 2);
            }
    b->charge_index = malloc(64 * sizeof(long));
    b->charge_value = malloc(64 * sizeof(double));
    if (!b->charge_index || !b->charge_value) return 0;
    srand(7);
    for (int k = 0; k < 64; ++k) {
        int x = (int)(c + (rand() / (double)RAND_MAX - 0.5) * radius);
        int y = (int)(c + (rand() / (double)RAND_MAX - 0.5) * radius);
        int z = (int)(c + (rand() / (double)RAND_MAX - 0.5) * radius);
        b->charge_index[k] = x + (long)n * (y + (long)n * z);
        b->charge_value[k] = k % 2 ? -1.0 : 1.0;
    }
    b->medium_epsilon[0] = 80.0, b->medium_epsilon[1] = 2.0;
    b->salt = (dg_salt){0.15, 1, 1};
    return 1;
}

static void release(bench_problem *b) {
    for (int a = 0; a < 3; ++a)
        free(b->media[a]);
    free(b->ions), free(b->charge_index), free(b->charge_value);
}

/* Run `iterations` (after 2 warm-up iterations); returns updates per second or 0 on error. */
static double run(const bench_problem *b, int precision, int salt, int iterations, int threads) {
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    o.precision = precision;
    o.num_threads = threads;
    o.spectral_radius = 0.999; /* skip the estimate: it is set-up, not iteration */
    dg_solver s = NULL;
    double rate = 0.0;
    dg_dense_medium_d m = {0};
    m.nx = m.ny = m.nz = b->n;
    m.scale = 2.0;
    m.medium_x = b->media[0], m.medium_y = b->media[1], m.medium_z = b->media[2];
    m.medium_epsilon = b->medium_epsilon, m.medium_count = 2;
    m.charge_list_index = b->charge_index, m.charge_list_value = b->charge_value;
    m.charge_list_count = 64;
    m.epsilon_solvent = 80.0;
    if (salt) m.ion_accessible = b->ions, m.salts = &b->salt, m.salt_count = 1;
    const long points = (long)b->n * b->n * b->n;
    double *phi = calloc(points, sizeof *phi);
    dg_result r;
    if (!phi || dg_create(&s, &o) != DG_OK || dg_set_dense_medium_d(s, &m) != DG_OK) goto done;
    o.iterations = 2;
    if (dg_set_options(s, &o) != DG_OK || dg_solve_d(s, phi, &r) != DG_OK) goto done;
    o.iterations = iterations;
    if (dg_set_options(s, &o) != DG_OK || dg_solve_d(s, phi, &r) != DG_OK) goto done;
    rate = (double)(b->n - 2) * (b->n - 2) * (b->n - 2) * iterations / r.solve_seconds;
done:
    if (rate == 0.0) fprintf(stderr, "dg_bench_cpu: %s\n", dg_last_error(s));
    dg_destroy(s);
    free(phi);
    return rate;
}

int main(int argc, char **argv) {
    int sizes[16] = {65, 97, 129, 193, 257}, nsizes = 5, iterations = 20, threads = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *t = strtok(argv[++i], ","); t && nsizes < 16; t = strtok(NULL, ","))
                sizes[nsizes++] = atoi(t);
        } else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            iterations = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--sizes 65,129,...] [--iterations N] [--threads N]\n",
                    argv[0]);
            return 1;
        }
    }
    printf("delphi-gpu %s CPU backend, %d iterations per measurement, threads %s\n",
           dg_version_string(), iterations, threads ? argv[argc - 1] : "OpenMP default");
    printf("%6s %-8s %-7s %14s %12s\n", "grid", "equation", "prec", "Mupdates/s", "ms/iter");
    for (int i = 0; i < nsizes; ++i) {
        bench_problem b;
        if (sizes[i] < 5 || sizes[i] % 2 == 0 || !build(&b, sizes[i])) {
            fprintf(stderr, "dg_bench_cpu: cannot build a %d^3 problem\n", sizes[i]);
            return 1;
        }
        for (int salt = 0; salt < 2; ++salt)
            for (int precision = DG_PRECISION_FLOAT; precision >= DG_PRECISION_DOUBLE;
                 --precision) {
                double rate = run(&b, precision, salt, iterations, threads);
                if (rate == 0.0) return 1;
                double interior = (double)(sizes[i] - 2) * (sizes[i] - 2) * (sizes[i] - 2);
                printf("%4d^3 %-8s %-7s %14.1f %12.3f\n", sizes[i], salt ? "PB" : "Poisson",
                       precision == DG_PRECISION_FLOAT ? "float" : "double", rate / 1e6,
                       1e3 * interior / rate);
            }
        release(&b);
    }
    return 0;
}
