/* A protein-like test medium for the multigrid tests and benchmark: a cluster of overlapping
 * spheres of eps 2 in eps 80 (about a third of the box wide), unit charges of alternating
 * sign at points inside, optional 0.15 M salt outside an exclusion shell, Coulomb face values.
 * Deterministic (a fixed linear congruential sequence), scaled with the grid. */
#ifndef DG_MG_PROBLEM_H
#define DG_MG_PROBLEM_H

#include "test_util.h"

static inline double mg_problem_random(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

typedef struct mg_faces {
    int count;
    double x[16], y[16], z[16], q[16], scale;
} mg_faces;

static inline double mg_problem_face(double x, double y, double z, const void *params) {
    const mg_faces *f = params;
    double v = 0.0;
    for (int i = 0; i < f->count; ++i) {
        double r = sqrt((x - f->x[i]) * (x - f->x[i]) + (y - f->y[i]) * (y - f->y[i]) +
                        (z - f->z[i]) * (z - f->z[i])) /
                   f->scale;
        v += EPKT_DEFAULT * f->q[i] / (80.0 * r);
    }
    return v;
}

/* Face midpoints within radius of (cx,cy,cz) get eps 2 (dense_problem_sphere on the sphere's
   bounding box only, so that 769^3 grids build in seconds). */
static inline void mg_problem_sphere(dense_problem *d, double cx, double cy, double cz,
                                     double radius) {
    const int z0 = (int)fmax(0.0, floor(cz - radius) - 1);
    const int z1 = (int)fmin(d->nz - 1.0, ceil(cz + radius) + 1);
    const int y0 = (int)fmax(0.0, floor(cy - radius) - 1);
    const int y1 = (int)fmin(d->ny - 1.0, ceil(cy + radius) + 1);
    const int x0 = (int)fmax(0.0, floor(cx - radius) - 1);
    const int x1 = (int)fmin(d->nx - 1.0, ceil(cx + radius) + 1);
#pragma omp parallel for schedule(static)
    for (int z = z0; z <= z1; ++z)
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                long w = idx3(d->nx, d->ny, x, y, z);
                const double mid[3][3] = {{x + 0.5, y, z}, {x, y + 0.5, z}, {x, y, z + 0.5}};
                for (int a = 0; a < 3; ++a) {
                    double ex = mid[a][0] - cx, ey = mid[a][1] - cy, ez = mid[a][2] - cz;
                    if (ex * ex + ey * ey + ez * ez < radius * radius) d->eps[a][w] = 2.0;
                }
            }
}

/* Build the medium on an n^3 grid (n odd) and fill phi's faces; phi interior is 0. */
static inline void mg_problem_build(dense_problem *d, double *phi, int n, int salt,
                                    mg_faces *faces) {
    const double scale = (n - 1) / 48.0; /* the box is 48 A wide whatever the grid */
    dense_problem_init(d, n, n, n, scale, 80.0);
    unsigned state = 12345u;
    const double c = (n - 1) / 2.0;
    for (int i = 0; i < 12; ++i) { /* spheres of 4..7 A radius within 8 A of the centre */
        double dx = (mg_problem_random(&state) - 0.5) * 16 * scale,
               dy = (mg_problem_random(&state) - 0.5) * 16 * scale,
               dz = (mg_problem_random(&state) - 0.5) * 16 * scale;
        double radius = (4.0 + 3.0 * mg_problem_random(&state)) * scale;
        mg_problem_sphere(d, c + dx, c + dy, c + dz, radius);
    }
    if (salt) dense_problem_salt(d, c, c, c, 15.0 * scale, 0.15);
    faces->count = 16, faces->scale = scale;
    for (int i = 0; i < 16; ++i) { /* charges on grid points within 6 A of the centre */
        int x = (int)lround(c + (mg_problem_random(&state) - 0.5) * 12 * scale);
        int y = (int)lround(c + (mg_problem_random(&state) - 0.5) * 12 * scale);
        int z = (int)lround(c + (mg_problem_random(&state) - 0.5) * 12 * scale);
        double q = i % 2 ? -1.0 : 1.0;
        d->charge[idx3(n, n, x, y, z)] += q;
        faces->x[i] = x, faces->y[i] = y, faces->z[i] = z, faces->q[i] = q;
    }
    set_faces(phi, n, n, n, mg_problem_face, faces);
}

/* Grid energy 1/2 sum q phi (kT). */
static inline double mg_problem_energy(const dense_problem *d, const double *phi) {
    double e = 0.0;
    for (long w = 0; w < (long)d->nx * d->ny * d->nz; ++w)
        if (d->charge[w] != 0.0) e += 0.5 * d->charge[w] * phi[w];
    return e;
}

#endif /* DG_MG_PROBLEM_H */
