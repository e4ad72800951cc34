/* CPU vs CUDA backend through the public API: the same medium and the same fixed number of
 * iterations must give the same potential, max|dphi| / max|phi| <= 1e-10 in double and 1e-5 in
 * float, on: a linear boundary potential, a Coulomb point charge, a dielectric (Born)
 * sphere from dense maps, a Debye-Hueckel sphere in salt, nonlinear PB, and a cluster of spheres
 * with thousands of boundary and charged points (dense and DelPhi's sparse form).  Grids are
 * odd, not cubic and not multiples of the block.  Every case runs with the library's choice of
 * sweep kernel (the autotune, which runs each candidate for a few iterations), with the
 * one-plane kernel (cuda_sweep.cuh) forced at prefetch depths 1 to 3 and the
 * two-planes-per-barrier kernel (cuda_sweep_pair.cuh) at depths 1 and 2, on several block
 * shapes, and (float only) the kernel of 2 or 4 pairs per thread (cuda_sweep_wide.cuh)
 * forced in both layouts on five; the forced runs must equal the CPU backend bit for bit.
 * Exits 77 (skipped) without a usable GPU. */
#include "gpu_test.h"

#include "cuda_backend.h"
#include "solver_internal.h"

/* planes = 0: the library's choice; else forced after the medium is set.  width > 1: float
   only. */
typedef struct sweep_variant {
    const char *name;
    int planes, depth, block_x, block_y, width, segments;
} sweep_variant;

static const sweep_variant variants[] = {
    {"autotune", 0, 0, 0, 0, 1, 0},
    {"1 plane d1 16x16", 1, 1, 0, 0, 1, 0},
    {"1 plane d2 32x8", 1, 2, 32, 8, 1, 0},
    {"1 plane d3 66x15", 1, 3, 66, 15, 1, 0},
    {"2 planes d1 16x16", 2, 1, 0, 0, 1, 0},
    {"2 planes d2 66x15", 2, 2, 66, 15, 1, 0},
    {"2 adjacent pairs d2 16x16", 1, 2, 0, 0, 2, 0},
    {"2 adjacent pairs d3 34x30", 1, 3, 34, 30, 2, 0},
    {"4 adjacent pairs d1 32x8", 1, 1, 32, 8, 4, 0},
    {"2 segments d2 5x7", 1, 2, 5, 7, 2, 1},
    {"4 segments d2 16x16", 1, 2, 0, 0, 4, 1},
};
static const sweep_variant *variant = &variants[0];

static void force_variant(dg_solver s) {
    dg_error err = {0};
    dg_cuda_info info;
    /* 1 plane first: every depth has a 1-plane kernel. */
    if (dg_cuda_set_pairs_per_thread(s->backend_state, 1, 0, &err) != DG_OK ||
        dg_cuda_set_planes_per_barrier(s->backend_state, 1, &err) != DG_OK ||
        dg_cuda_set_prefetch_depth(s->backend_state, variant->depth, &err) != DG_OK ||
        dg_cuda_set_planes_per_barrier(s->backend_state, variant->planes, &err) != DG_OK ||
        dg_cuda_set_pairs_per_thread(s->backend_state, variant->width, variant->segments, &err) !=
            DG_OK ||
        dg_cuda_get_info(s->backend_state, &info, &err) != DG_OK) {
        fprintf(stderr, "FAIL: forcing %s: %s\n", variant->name, err.message);
        exit(1);
    }
    const int bx = variant->block_x ? variant->block_x : 16;
    const int by = variant->block_y ? variant->block_y : 16;
    CHECK(info.planes == variant->planes && info.depth == variant->depth &&
              info.width == variant->width && info.segments == variant->segments && !info.tuning &&
              info.block_x == bx && info.block_y == by,
          "%s: in use %dx%d depth %d, %d planes, %d pairs, tuning %d", variant->name, info.block_x,
          info.block_y, info.depth, info.planes, info.width, info.tuning);
}

static const double scale = 2.0, molar = 0.15, exclusion = 3.0;

static double linear(double x, double y, double z, const void *params) {
    (void)params;
    return 1.0 + 0.3 * x - 0.2 * y + 0.1 * z;
}

static void check(const char *label, int precision, double rel) {
    const char *name = precision == DG_PRECISION_DOUBLE ? "double" : "float";
    CHECK(rel <= gpu_tolerance(precision), "%s (%s, %s): relative difference %.3e > %.0e", label,
          name, variant->name, rel, gpu_tolerance(precision));
    if (variant->planes)
        CHECK(rel == 0.0, "%s (%s, %s): relative difference %.3e, not bit for bit", label, name,
              variant->name, rel);
}

static void options_for(dg_options *o, int precision, int iterations) {
    dg_default_options(o);
    o->precision = precision;
    o->iterations = iterations;
    o->run_until_converged = 0;
    o->block_x = variant->block_x, o->block_y = variant->block_y;
}

static void linear_potential(int precision) {
    const int nx = 21, ny = 25, nz = 19;
    const long n = (long)nx * ny * nz;
    dg_sparse_medium_d m = {0};
    m.nx = nx, m.ny = ny, m.nz = nz;
    m.index_kind = DG_INDEX_DELPHI_HALF;
    double *phi = malloc(n * sizeof *phi);
    set_faces(phi, nx, ny, nz, linear, NULL);
    dg_options o;
    options_for(&o, precision, 60);
    gpu_medium gm = {NULL, &m};
    check("linear boundary potential", precision,
          gpu_compare("linear boundary potential", &o, &gm, phi, n, 0));
    /* The other array type: float arrays in double precision and vice versa. */
    check("linear potential, other array type", precision,
          gpu_compare("linear potential, other array type", &o, &gm, phi, n,
                      precision == DG_PRECISION_DOUBLE));
    free(phi);
}

/* One charge at the centre of a sphere of eps_in (radius 0: uniform eps 2), optional salt. */
static void sphere_case(const char *label, int precision, double radius_grid, double charge,
                        int salt, int equation, int iterations) {
    const int nx = 33, ny = 35, nz = 31, cx = 16, cy = 17, cz = 15;
    const long n = (long)nx * ny * nz;
    dense_problem d;
    const double eps_out = radius_grid > 0 ? 80.0 : 2.0;
    dense_problem_init(&d, nx, ny, nz, scale, eps_out);
    if (radius_grid > 0) dense_problem_sphere(&d, cx, cy, cz, radius_grid, 2.0);
    if (salt) dense_problem_salt(&d, cx, cy, cz, exclusion * scale, molar);
    d.charge[idx3(nx, ny, cx, cy, cz)] = charge;
    point_source src = {cx,
                        cy,
                        cz,
                        charge,
                        eps_out,
                        scale,
                        salt ? debye_kappa(molar, eps_out) : 0.0,
                        salt ? exclusion : 0.0};
    double *phi = malloc(n * sizeof *phi);
    set_faces(phi, nx, ny, nz, point_potential, &src);
    dg_options o;
    options_for(&o, precision, iterations);
    o.equation = equation;
    o.nonlinear_blocks = 6;
    gpu_medium gm = {&d.medium, NULL};
    check(label, precision, gpu_compare(label, &o, &gm, phi, n, precision == DG_PRECISION_FLOAT));
    dense_problem_free(&d);
    free(phi);
}

/* Many spheres and charges in salt: thousands of boundary and charged points. */
static void cluster_case(int precision) {
    const int nx = 65, ny = 67, nz = 63;
    const long n = (long)nx * ny * nz;
    dense_problem d;
    dense_problem_init(&d, nx, ny, nz, scale, 80.0);
    sphere_cluster c;
    cluster_make(&c, &d, 300, 2.0, 12345u);
    dense_problem_salt(&d, nx / 2.0, ny / 2.0, nz / 2.0, 0.0, 0.1);
    /* Ions everywhere outside the spheres' permittivity region. */
    for (long w = 0; w < n; ++w)
        d.ions[w] = d.eps[0][w] > 2.0 && d.eps[1][w] > 2.0;
    dg_sparse_counts counts;
    char message[256] = "";
    CHECK(dg_sparse_counts_d(&d.medium, &counts, message, sizeof message) == DG_OK, "%s", message);
    printf("cluster: %d boundary points, %d charged points\n", counts.boundary_count,
           counts.charge_count);
    CHECK(counts.boundary_count >= 2000 && counts.charge_count >= 1000,
          "cluster too small: %d boundary, %d charged", counts.boundary_count, counts.charge_count);
    /* Random boundary values and initial guess (not zeros: they hide layout errors). */
    double *phi = malloc(n * sizeof *phi);
    unsigned seed = 777u;
    for (long w = 0; w < n; ++w)
        phi[w] = cluster_random(&seed) - 0.5;
    dg_options o;
    options_for(&o, precision, 60);
    gpu_medium dense = {&d.medium, NULL};
    check("cluster (dense, salt)", precision,
          gpu_compare("cluster (dense, salt)", &o, &dense, phi, n, 0));

    /* The same medium in DelPhi's sparse form (half-indices, db, sf1/sf2). */
    int *bi = malloc((counts.boundary_count + 1) * sizeof *bi);
    double *bw = malloc((6 * (size_t)counts.boundary_count + 1) * sizeof *bw);
    int *qi = malloc((counts.charge_count + 1) * sizeof *qi);
    double *qv = malloc((counts.charge_count + 1) * sizeof *qv);
    double *sf1 = malloc(((n + 1) / 2) * sizeof *sf1), *sf2 = malloc(((n + 1) / 2) * sizeof *sf2);
    dg_sparse_medium_d sparse;
    CHECK(dg_sparse_from_dense_d(&d.medium, bi, bw, qi, qv, sf1, sf2, &sparse, message,
                                 sizeof message) == DG_OK,
          "%s", message);
    gpu_medium delphi = {NULL, &sparse};
    check("cluster (DelPhi sparse form)", precision,
          gpu_compare("cluster (DelPhi sparse form)", &o, &delphi, phi, n, 1));
    free(bi), free(bw), free(qi), free(qv), free(sf1), free(sf2), free(phi);
    cluster_free(&c);
    dense_problem_free(&d);
}

int main(void) {
    gpu_require_device("test_gpu_agreement");
    const int precisions[2] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        variant = &variants[v];
        gpu_after_medium = variant->planes ? force_variant : NULL;
        printf("== sweep kernel: %s\n", variant->name);
        for (int i = 0; i < 2; ++i) {
            const int p = precisions[i];
            if (variant->width > 1 && p == DG_PRECISION_DOUBLE) continue; /* float kernels */
            linear_potential(p);
            sphere_case("Coulomb point charge", p, 0.0, 1.0, 0, DG_EQUATION_AUTO, 80);
            sphere_case("Born sphere (dense maps)", p, 6.0, 1.0, 0, DG_EQUATION_AUTO, 100);
            sphere_case("Debye-Hueckel sphere in salt", p, 6.0, 1.0, 1, DG_EQUATION_AUTO, 100);
            sphere_case("nonlinear PB (5 e in salt)", p, 4.0, 5.0, 1, DG_EQUATION_NONLINEAR_PB, 40);
            cluster_case(p);
        }
    }
    return test_finish("test_gpu_agreement");
}
