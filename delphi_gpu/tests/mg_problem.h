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
        dense_problem_sphere(d, c + dx, c + dy, c + dz, radius, 2.0);
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
