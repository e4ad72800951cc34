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

#endif /* DG_PERIODIC_PROBLEM_H */
