/* Synthetic prepared problems of the GPU benchmark (see bench_problems.h). */
#include "bench_problems.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"

static unsigned next_random(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* Permittivity of the sphere medium at a point (grid units). */
static double sphere_eps(double x, double y, double z, double c, double radius) {
    const double dx = x - c, dy = y - c, dz = z - c;
    return dx * dx + dy * dy + dz * dz < radius * radius ? 2.0 : 80.0;
}

/* Boundary weights eps_f / D - factor0 of DelPhi's no-salt convention; returns 1 when the
   six face permittivities are not all equal (a boundary point). */
static int face_weights(int x, int y, int z, int n, bench_lists lists, double *w) {
    double eps[6];
    if (lists == BENCH_LISTS_SPHERE) {
        const double c = (n - 1) / 2.0, r = n / 4.0;
        const double mid[6][3] = {{x - 0.5, y, z}, {x + 0.5, y, z}, {x, y - 0.5, z},
                                  {x, y + 0.5, z}, {x, y, z - 0.5}, {x, y, z + 0.5}};
        for (int f = 0; f < 6; ++f)
            eps[f] = sphere_eps(mid[f][0], mid[f][1], mid[f][2], c, r);
    } else {
        unsigned s = (unsigned)(x * 73856093u ^ y * 19349663u ^ z * 83492791u);
        for (int f = 0; f < 6; ++f)
            eps[f] = 2.0 + (next_random(&s) % 79);
    }
    double sum = 0.0;
    int differ = 0;
    for (int f = 0; f < 6; ++f)
        sum += eps[f], differ |= eps[f] != eps[0];
    for (int f = 0; f < 6; ++f)
        w[f] = eps[f] / sum - 1.0 / 6.0;
    return differ;
}

/* Candidate list points of row (y, z): x in [lo0, hi0] and [lo1, hi1] (inclusive). */
static void row_ranges(int y, int z, int n, bench_lists lists, int range[4]) {
    range[0] = 1, range[1] = 0, range[2] = 1, range[3] = 0;
    if (lists == BENCH_LISTS_STRESS) {
        range[0] = 1, range[1] = n - 2;
        return;
    }
    const double c = (n - 1) / 2.0, r = n / 4.0;
    const double d2 = (y - c) * (y - c) + (z - c) * (z - c);
    const double outer = (r + 1.5) * (r + 1.5) - d2, inner = (r - 1.5) * (r - 1.5) - d2;
    if (outer < 0.0) return;
    const double a = sqrt(outer), b = inner > 0.0 ? sqrt(inner) : 0.0;
    int lo = (int)floor(c - a), hi = (int)ceil(c + a);
    if (lo < 1) lo = 1;
    if (hi > n - 2) hi = n - 2;
    if (inner <= 0.0) {
        range[0] = lo, range[1] = hi;
        return;
    }
    range[0] = lo, range[1] = (int)ceil(c - b) < hi ? (int)ceil(c - b) : hi;
    range[2] = (int)floor(c + b) > lo ? (int)floor(c + b) : lo, range[3] = hi;
    if (range[2] <= range[1]) range[2] = range[1] + 1;
}

int bench_build_problem(dg_prepared *p, int n, int salt, bench_lists lists) {
    char message[256];
    if (dg_prepared_init_grid(p, n, n, n, message, sizeof message) != DG_OK) {
        fprintf(stderr, "bench: %s\n", message);
        return -1;
    }
    const double c = (n - 1) / 2.0, r = n / 4.0;
    const int lattice = 13; /* charges on a lattice inside the sphere */
    int nb[2] = {0, 0}, nq[2] = {0, 0};
    double w[6];
    for (int pass = 0; pass < 2; ++pass) { /* count, then fill */
        if (pass == 1 && dg_prepared_alloc_lists(p, nb, nq) != DG_OK) goto no_memory;
        int kb[2] = {0, 0}, kq[2] = {0, 0};
        for (int z = 1; z < n - 1 && lists != BENCH_LISTS_NONE; ++z)
            for (int y = 1; y < n - 1; ++y) {
                int range[4];
                row_ranges(y, z, n, lists, range);
                for (int part = 0; part < 2; ++part)
                    for (int x = range[2 * part]; x <= range[2 * part + 1]; ++x) {
                        if (lists == BENCH_LISTS_STRESS && (x + 2 * y + 3 * z) % 7 != 0) continue;
                        if (!face_weights(x, y, z, n, lists, w)) continue;
                        const long wf = x + (long)n * (y + (long)n * z);
                        const int col = (int)(wf & 1);
                        if (pass == 1) {
                            p->boundary_index[col][kb[col]] = (int)(wf / 2);
                            memcpy(p->boundary_weight[col] + 6L * kb[col], w, sizeof w);
                        }
                        kb[col]++;
                    }
                if (z % lattice || y % lattice) continue;
                for (int x = lattice; x < n - 1; x += lattice) {
                    const double d2 = (x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c);
                    if (d2 >= (r - 2.0) * (r - 2.0)) continue;
                    const long wf = x + (long)n * (y + (long)n * z);
                    const int col = (int)(wf & 1);
                    if (pass == 1) {
                        p->charge_index[col][kq[col]] = (int)(wf / 2);
                        p->charge_source[col][kq[col]] = 0.5 - ((x * 7 + y * 3 + z) % 10) / 10.0;
                    }
                    kq[col]++;
                }
            }
        if (pass == 0) memcpy(nb, kb, sizeof nb), memcpy(nq, kq, sizeof nq);
    }
    if (salt) {
        if (dg_prepared_alloc_flags(p) != DG_OK) goto no_memory;
        p->has_salt = 1;
        p->factor[1] = 1.0 / (6.0 + 0.01); /* (kappa h)^2 = 0.01 */
        const double rs = r + 3.0;
#pragma omp parallel for schedule(static)
        for (int z = 0; z < n; ++z)
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x) {
                    const long wf = x + (long)n * (y + (long)n * z);
                    const double d2 = (x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c);
                    p->flag[wf & 1][wf / 2] = d2 > rs * rs;
                }
        p->nonlinear_ready = 1;
        p->nonlinear_coefficient = 0.01;
        p->chi[0] = 0.0, p->chi[1] = -0.05, p->chi[2] = 0.0, p->chi[3] = -0.0025;
    }
    return 0;
no_memory:
    fprintf(stderr, "bench: out of host memory for a %d^3 problem\n", n);
    dg_prepared_free(p);
    return -1;
}

double *bench_initial_phi(int n) {
    const long points = (long)n * n * n;
    double *phi = calloc(points, sizeof *phi);
    if (!phi) return NULL;
    unsigned seed = 17u;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y) {
            const int face_row = z == 0 || y == 0 || z == n - 1 || y == n - 1;
            for (int x = 0; x < n; x += face_row || x == n - 1 ? 1 : n - 1)
                phi[x + (long)n * (y + (long)n * z)] =
                    2.0 * (next_random(&seed) % 100000) / 100000.0 - 1.0;
        }
    return phi;
}
