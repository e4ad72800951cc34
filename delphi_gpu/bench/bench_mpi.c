/* Benchmark of the MPI domain decomposition: one protein-like medium (a low-dielectric sphere
 * with charges in salt) on an n^3 grid, a fixed number of linear PB iterations, split over the
 * ranks of MPI_COMM_WORLD.  Prints the best of three solve times (the slowest rank's), the time
 * per iteration, grid-point updates per second, the halo bytes exchanged per iteration and the
 * solver choice (which names the halo path).
 *
 *   mpirun -np P dg_bench_mpi [n] [iterations] [cpu|cuda] [float|double]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) | 1 : 129;
    const int iterations = argc > 2 ? atoi(argv[2]) : 100;
    const int cuda = argc > 3 && strcmp(argv[3], "cuda") == 0;
    const int is_float = argc > 4 && strcmp(argv[4], "float") == 0;
    const long points = (long)n * n * n;
    unsigned char *medium[3], *ions = malloc(points);
    float *charge = calloc(points, sizeof(float));
    const double c = (n - 1) / 2.0, radius = n / 4.0;
    for (int a = 0; a < 3; ++a)
        medium[a] = malloc(points);
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = x + (long)n * (y + (long)n * z);
                const double mid[3][3] = {{x + 0.5, y, z}, {x, y + 0.5, z}, {x, y, z + 0.5}};
                for (int a = 0; a < 3; ++a) {
                    const double dx = mid[a][0] - c, dy = mid[a][1] - c, dz = mid[a][2] - c;
                    medium[a][w] = dx * dx + dy * dy + dz * dz < radius * radius;
                }
                const double dx = x - c, dy = y - c, dz = z - c;
                ions[w] = dx * dx + dy * dy + dz * dz >= (radius + 2) * (radius + 2);
                if (((x * 7 + y * 3 + z) % 97) == 0 && !ions[w] &&
                    dx * dx + dy * dy + dz * dz < (radius - 2) * (radius - 2))
                    charge[w] = (x + y) % 2 ? 0.5f : -0.5f;
            }
    const double epsilon[2] = {80.0, 2.0};
    dg_salt salt = {0.15, 1, 1};
    dg_dense_medium_f m;
    memset(&m, 0, sizeof m);
    m.nx = m.ny = m.nz = n, m.scale = 2.0;
    m.medium_x = medium[0], m.medium_y = medium[1], m.medium_z = medium[2];
    m.medium_epsilon = epsilon, m.medium_count = 2;
    m.charge = charge, m.ion_accessible = ions, m.salts = &salt, m.salt_count = 1;
    m.epsilon_solvent = 80.0;
    dg_options o;
    dg_default_options(&o);
    o.backend = cuda ? DG_BACKEND_CUDA : DG_BACKEND_CPU;
    o.precision = is_float ? DG_PRECISION_FLOAT : DG_PRECISION_DOUBLE;
    o.iterations = iterations, o.run_until_converged = 0;
    MPI_Comm world = MPI_COMM_WORLD;
    o.mpi_comm = size > 1 ? &world : NULL;
    int devices = 0;
    if (cuda && dg_cuda_device_count(&devices) == DG_OK && devices > 0) o.device = rank % devices;
    dg_solver s = NULL;
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = dg_set_dense_medium_f(s, &m);
    float *phi = calloc(points, sizeof(float));
    dg_result r;
    double first = 0.0; /* the warm-up (autotune, spectral radius): the slowest rank's */
    if (st == DG_OK) st = dg_solve_f(s, phi, &r);
    if (st == DG_OK) {
        double t = r.setup_seconds + r.solve_seconds;
        MPI_Allreduce(&t, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    double best = INFINITY;
    for (int repeat = 0; st == DG_OK && repeat < 3; ++repeat) {
        memset(phi, 0, points * sizeof(float));
        MPI_Barrier(MPI_COMM_WORLD);
        st = dg_solve_f(s, phi, &r);
        double t = r.solve_seconds, slowest = 0.0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best) best = slowest;
    }
    if (st != DG_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, dg_last_error(s));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        const double halo = 2.0 * (size - 1) * (double)n * n * (is_float ? 4 : 8);
        printf("ranks %d  grid %d^3  %s %s  %d iterations  %.4f s  %.3f ms/iteration  "
               "%.2f G updates/s  halo %.1f MB/iteration\n",
               size, n, cuda ? "cuda" : "cpu", is_float ? "float" : "double", r.iterations, best,
               1e3 * best / r.iterations,
               (double)(n - 2) * (n - 2) * (n - 2) * r.iterations / best / 1e9, halo / 1e6);
        printf("  %s; first solve %.4f s (set-up and solve)\n", dg_solver_choice(s), first);
    }
    dg_destroy(s);
    for (int a = 0; a < 3; ++a)
        free(medium[a]);
    free(ions), free(charge), free(phi);
    MPI_Finalize();
    return 0;
}
