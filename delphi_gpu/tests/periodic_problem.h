/* Problems with periodic axes (dg_options.periodic) for the library's and the CUDA backend's
 * tests: a charged sheet whose discrete solution is known exactly, and a charged dielectric
 * sphere in salt that crosses the periodic boundary, built so that its medium is periodic (the
 * minimum image along the periodic axis, period n-2 spacings) and can be shifted along it. */
#ifndef DG_PERIODIC_PROBLEM_H
#define DG_PERIODIC_PROBLEM_H

#include "test_util.h"

/* Interior index i (1..n-2) shifted by s along a period of n-2 points. */
static inline int periodic_shift(int i, int s, int n) {
    const int period = n - 2;
    return 1 + ((i - 1 + s) % period + period) % period;
}

/* A sheet of charge q at every interior point of plane x = x0, uniform permittivity eps, zero
   faces: with y and z periodic the potential depends on x alone and the discrete solution is
   piecewise linear, phi(x0) = 4 pi scale q epkt / eps / (1/x0 + 1/(nx-1-x0)). */
static inline double sheet_exact(int nx, int x0, double scale, double q, double eps, int x) {
    const double epkt = 166804.4928 / 297.3342; /* the library's, at its default temperature */
    const double peak = FOUR_PI * scale * q * epkt / eps / (1.0 / x0 + 1.0 / (nx - 1 - x0));
    return x <= x0 ? peak * x / x0 : peak * (nx - 1 - x) / (nx - 1 - x0);
}

static inline void sheet_problem(dense_problem *d, int nx, int ny, int nz, int x0, double scale,
                                 double q, double eps) {
    dense_problem_init(d, nx, ny, nz, scale, eps);
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y)
            d->charge[idx3(nx, ny, x0, y, z)] = q;
}

/* Largest |face point - its image| over the faces of the periodic axes (other coordinates
   interior). */
static inline double periodic_face_gap(const double *phi, int nx, int ny, int nz, int periodic) {
    double gap = 0.0;
    const int n[3] = {nx, ny, nz};
    for (int a = 0; a < 3; ++a) {
        if (!(periodic & (1 << a))) continue;
        const int u = n[(a + 1) % 3], v = n[(a + 2) % 3];
        for (int j = 1; j < v - 1; ++j)
            for (int i = 1; i < u - 1; ++i) {
                int lo[3], hi[3], img_lo[3], img_hi[3];
                lo[a] = 0, hi[a] = n[a] - 1, img_lo[a] = n[a] - 2, img_hi[a] = 1;
                lo[(a + 1) % 3] = hi[(a + 1) % 3] = img_lo[(a + 1) % 3] = img_hi[(a + 1) % 3] = i;
                lo[(a + 2) % 3] = hi[(a + 2) % 3] = img_lo[(a + 2) % 3] = img_hi[(a + 2) % 3] = j;
                const double d0 = fabs(phi[idx3(nx, ny, lo[0], lo[1], lo[2])] -
                                       phi[idx3(nx, ny, img_lo[0], img_lo[1], img_lo[2])]);
                const double d1 = fabs(phi[idx3(nx, ny, hi[0], hi[1], hi[2])] -
                                       phi[idx3(nx, ny, img_hi[0], img_hi[1], img_hi[2])]);
                gap = d0 > gap ? d0 : gap;
                gap = d1 > gap ? d1 : gap;
            }
    }
    return gap;
}

/* Minimum-image offset along an axis of period `period` (grid units). */
static inline double min_image(double d, double period) {
    return d - period * floor(d / period + 0.5);
}

/* A sphere of permittivity 2 (radius r, centre c in grid units) in water (80) with mobile ions
   outside r + 2 (0.15 M), charges +1 and -0.5 inside; periodic along z (period nz-2), the
   distances along z taken to the nearest image.  The medium's z coordinate of a point z is
   z - 1 (interior points 1..nz-2 are one period). */
static inline void sphere_problem(dense_problem *d, int nx, int ny, int nz, double cx, double cy,
                                  double cz, double r) {
    dense_problem_init(d, nx, ny, nz, 2.0, 80.0);
    const double period = nz - 2;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const long w = idx3(nx, ny, x, y, z);
                const double mid[3][3] = {{x + 0.5, y, z}, {x, y + 0.5, z}, {x, y, z + 0.5}};
                for (int a = 0; a < 3; ++a) {
                    const double dx = mid[a][0] - cx, dy = mid[a][1] - cy;
                    const double dz = min_image(mid[a][2] - cz, period);
                    if (dx * dx + dy * dy + dz * dz < r * r) d->eps[a][w] = 2.0;
                }
                const double dz = min_image(z - cz, period);
                const double dist2 = (x - cx) * (x - cx) + (y - cy) * (y - cy) + dz * dz;
                d->ions[w] = dist2 >= (r + 2.0) * (r + 2.0);
            }
    d->salt.concentration = 0.15, d->salt.cation_valence = 1, d->salt.anion_valence = 1;
    d->medium.ion_accessible = d->ions;
    d->medium.salts = &d->salt;
    d->medium.salt_count = 1;
    /* two charges at whole grid points inside the sphere, placed by the same minimum image */
    const int icx = (int)lround(cx), icy = (int)lround(cy), icz = (int)lround(cz);
    d->charge[idx3(nx, ny, icx, icy, periodic_shift(icz, 0, nz))] = 1.0;
    d->charge[idx3(nx, ny, icx + 1, icy, periodic_shift(icz, 1, nz))] = -0.5;
}

/* Gouy-Chapman: a plane of charge density sigma (e/A^2) in a z:z salt of 0.1 M (z = valence),
   uniform permittivity, ions everywhere, x and y periodic (5 points a side: a period of 3; the
   plane is infinite), z faces half_width away.  The nonlinear PB equation
   phi'' = (kappa^2 / z) sinh(z phi) (phi in kT/e, kappa from the ionic strength z^2 c) has the
   exact solution phi(d) = (4 / z) artanh(gamma exp(-kappa d)) at distance d,
   gamma = tanh(z phi0 / 4), with the surface potential phi0 = (2 / z) asinh(pi EPKT sigma z /
   (eps kappa)) from the field's jump at the plane (Grahame's equation).  The finite-difference
   plane charge reproduces the jump to O(h^2). */
typedef struct gouy_chapman {
    int nx, ny, nz, z0, valence;
    double scale, kappa, phi0, gamma;
} gouy_chapman;

/* The medium of plane z0 = nz / 2 at scale (points per A), and g's parameters. */
static inline void gouy_chapman_problem(dense_problem *d, double scale, int valence,
                                        gouy_chapman *g) {
    const double eps = 80.0, molar = 0.1, sigma = 0.0172, half_width = 40.0, pi = 3.14159265358979;
    const double z = valence;
    g->nx = g->ny = 5, g->nz = (int)lround(2.0 * half_width * scale) + 1, g->z0 = g->nz / 2;
    g->valence = valence, g->scale = scale, g->kappa = debye_kappa(z * z * molar, eps);
    g->phi0 = 2.0 / z * asinh(pi * EPKT_DEFAULT * sigma * z / (eps * g->kappa));
    g->gamma = tanh(z * g->phi0 / 4.0);
    dense_problem_init(d, g->nx, g->ny, g->nz, scale, eps);
    dense_problem_salt(d, 0.0, 0.0, 0.0, 0.0, molar); /* ions at every point */
    d->salt.cation_valence = d->salt.anion_valence = valence;
    for (int y = 1; y < g->ny - 1; ++y)
        for (int x = 1; x < g->nx - 1; ++x)
            d->charge[idx3(g->nx, g->ny, x, y, g->z0)] = sigma / (scale * scale);
}

/* The exact potential at plane z. */
static inline double gouy_chapman_exact(const gouy_chapman *g, int z) {
    const double u = g->gamma * exp(-g->kappa * abs(z - g->z0) / g->scale);
    return 2.0 / g->valence * log((1.0 + u) / (1.0 - u));
}

/* A start (malloc'ed; NULL when out of memory): the z faces at the exact potential, everything
   else 0 (x and y wrap). */
static inline double *gouy_chapman_start(const gouy_chapman *g) {
    const long plane = (long)g->nx * g->ny;
    double *phi = malloc((size_t)(plane * g->nz) * sizeof *phi);
    for (long i = 0; phi && i < plane * g->nz; ++i) {
        const int z = (int)(i / plane);
        phi[i] = z == 0 || z == g->nz - 1 ? gouy_chapman_exact(g, z) : 0.0;
    }
    return phi;
}

/* Newton's method with the periodic axes, the ionic term and max change tol (solver AUTO: the
   SOR on these tests' grids, on either backend; docs/MULTIGRID.md). */
static inline dg_options newton_options(int periodic, int term, double tol) {
    dg_options o;
    dg_default_options(&o);
    o.periodic = periodic;
    o.equation = DG_EQUATION_NONLINEAR_PB;
    o.nonlinear_method = DG_NONLINEAR_NEWTON;
    o.nonlinear_term = term;
    o.max_change_tol = tol;
    return o;
}

/* max |phi - exact| over the interior, relative to phi0. */
static inline double gouy_chapman_error(const gouy_chapman *g, const double *phi) {
    double worst = 0.0;
    for (int z = 1; z < g->nz - 1; ++z)
        for (int y = 1; y < g->ny - 1; ++y)
            for (int x = 1; x < g->nx - 1; ++x)
                worst =
                    fmax(worst, fabs(phi[idx3(g->nx, g->ny, x, y, z)] - gouy_chapman_exact(g, z)));
    return worst / g->phi0;
}

#endif /* DG_PERIODIC_PROBLEM_H */
