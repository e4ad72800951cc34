/* Helpers for the library's unit tests: the common checks (dg_check.h), CHECK_OK for library
 * calls, analytic constants, problem builders. */
#ifndef DG_TEST_UTIL_H
#define DG_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu.h"
#include "dg_check.h"

#define EPKT_DEFAULT 561.0 /* 166804.4928 / 297.3342: potential of 1 e at 1 A in vacuum, kT/e */
#define FOUR_PI      12.566370614359172

#define CHECK_OK(call, solver)                                                                     \
    do {                                                                                           \
        int check_status_ = (call);                                                                \
        if (check_status_ != DG_OK) {                                                              \
            fprintf(stderr, "FAIL %s:%d: %s returned %d (%s): %s\n", __FILE__, __LINE__, #call,    \
                    check_status_, dg_status_string(check_status_), dg_last_error(solver));        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline int test_finish(const char *name) {
    return dg_check_report(name);
}

static inline long idx3(int nx, int ny, int x, int y, int z) {
    return x + (long)nx * (y + (long)ny * z);
}

/* A dense medium with per-face permittivity arrays (double), all set to eps. */
typedef struct dense_problem {
    int nx, ny, nz;
    double *eps[3];
    double *charge;
    unsigned char *ions;
    dg_salt salt;
    dg_dense_medium_d medium;
} dense_problem;

static inline void dense_problem_init(dense_problem *d, int nx, int ny, int nz, double scale,
                                      double eps) {
    memset(d, 0, sizeof *d);
    d->nx = nx, d->ny = ny, d->nz = nz;
    long n = (long)nx * ny * nz;
    for (int a = 0; a < 3; ++a) {
        d->eps[a] = malloc(n * sizeof(double));
        for (long i = 0; i < n; ++i)
            d->eps[a][i] = eps;
    }
    d->charge = calloc(n, sizeof(double));
    d->ions = calloc(n, 1);
    d->medium.nx = nx, d->medium.ny = ny, d->medium.nz = nz;
    d->medium.scale = scale;
    d->medium.eps_x = d->eps[0], d->medium.eps_y = d->eps[1], d->medium.eps_z = d->eps[2];
    d->medium.charge = d->charge;
    d->medium.epsilon_solvent = 80.0;
}

/* Face midpoints inside a sphere (grid units, centre c) get eps_in. */
static inline void dense_problem_sphere(dense_problem *d, double cx, double cy, double cz,
                                        double radius_grid, double eps_in) {
    for (int z = 0; z < d->nz; ++z)
        for (int y = 0; y < d->ny; ++y)
            for (int x = 0; x < d->nx; ++x) {
                long w = idx3(d->nx, d->ny, x, y, z);
                const double mid[3][3] = {{x + 0.5, y, z}, {x, y + 0.5, z}, {x, y, z + 0.5}};
                for (int a = 0; a < 3; ++a) {
                    double dx = mid[a][0] - cx, dy = mid[a][1] - cy, dz = mid[a][2] - cz;
                    if (dx * dx + dy * dy + dz * dz < radius_grid * radius_grid)
                        d->eps[a][w] = eps_in;
                }
            }
}

/* Mobile ions allowed farther than radius_grid from the centre; salt in mol/L (1:1). */
static inline void dense_problem_salt(dense_problem *d, double cx, double cy, double cz,
                                      double radius_grid, double molar) {
    for (int z = 0; z < d->nz; ++z)
        for (int y = 0; y < d->ny; ++y)
            for (int x = 0; x < d->nx; ++x) {
                double dx = x - cx, dy = y - cy, dz = z - cz;
                d->ions[idx3(d->nx, d->ny, x, y, z)] =
                    dx * dx + dy * dy + dz * dz >= radius_grid * radius_grid;
            }
    d->salt.concentration = molar, d->salt.cation_valence = 1, d->salt.anion_valence = 1;
    d->medium.ion_accessible = d->ions;
    d->medium.salts = &d->salt;
    d->medium.salt_count = 1;
}

static inline void dense_problem_free(dense_problem *d) {
    for (int a = 0; a < 3; ++a)
        free(d->eps[a]);
    free(d->charge), free(d->ions);
}

/* Fill the six faces of phi with f(x, y, z) (grid units), interior with 0. */
typedef double (*field_fn)(double x, double y, double z, const void *params);
static inline void set_faces(double *phi, int nx, int ny, int nz, field_fn f, const void *params) {
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                int face = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                phi[idx3(nx, ny, x, y, z)] = face ? f(x, y, z, params) : 0.0;
            }
}

/* Coulomb / Debye-Hueckel potential of a point charge (kT/e) at grid coordinates. */
typedef struct point_source {
    double cx, cy, cz, charge, eps, scale, kappa, exclusion; /* kappa 1/A, exclusion A */
} point_source;

static inline double point_potential(double x, double y, double z, const void *params) {
    const point_source *s = params;
    double r =
        sqrt((x - s->cx) * (x - s->cx) + (y - s->cy) * (y - s->cy) + (z - s->cz) * (z - s->cz)) /
        s->scale;
    if (s->kappa == 0.0) return EPKT_DEFAULT * s->charge / (s->eps * r);
    return EPKT_DEFAULT * s->charge * exp(s->kappa * (s->exclusion - r)) /
           (s->eps * r * (1.0 + s->kappa * s->exclusion));
}

/* Inverse Debye length (1/A) of a 1:1 salt, DelPhi's formula at 297.3342 K. */
static inline double debye_kappa(double molar, double eps_out) {
    return 1.0 / (0.01990076 * sqrt(297.3342 * eps_out / molar));
}

static inline double max_abs_diff(const double *a, const double *b, long n, double *max_ref) {
    double m = 0.0, r = 0.0;
    for (long i = 0; i < n; ++i) {
        double d = fabs(a[i] - b[i]);
        if (d > m || isnan(d)) m = d;
        if (fabs(b[i]) > r) r = fabs(b[i]);
    }
    if (max_ref) *max_ref = r;
    return m;
}

/* Create a CPU solver with options tweaked by the caller. */
static inline dg_solver make_cpu_solver(const dg_options *base) {
    dg_options o;
    if (base)
        o = *base;
    else
        dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    return s;
}

#endif /* DG_TEST_UTIL_H */
