/* Whether the prepared medium repeats across its periodic faces, as multigrid's symmetric form
 * needs (mg.h, dg_mg_seam_mismatch).
 *
 * Every coefficient of the scaled form is C_if = eps_f / D_i (one permittivity per face), so a
 * link is symmetric in the D-weighted product when both ends see the same permittivity: inside
 * the grid by construction, across the seam of a periodic axis only when the medium repeats
 * (the face between points 0 and 1 equals the one between n-2 and n-1).  Along a line of the
 * axis, D(n-2) / D(1) is the product of C(v, up) / C(v+1, down) over v = 1 .. n-3; the seam
 * link is symmetric when C(1, down) D(1) = C(n-2, up) D(n-2), i.e. when
 * log C(1, down) - log C(n-2, up) equals that product's logarithm.  Away from the boundary
 * points a point's coefficients are its uniform factor in every direction, whose terms cancel
 * along the line except at its two ends, so the sums need only the boundary lists and the line
 * ends: O(boundary points + n^2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mg.h"

/* Beyond rounding (float-rounded weights summed along a line): a permittivity that differs by
   0.01 % across the seam. */
#define SEAM_TOLERANCE 1e-4

/* Axis a's lines: line l = i + (first other dimension) j, with (i, j) the other two coordinates
   in the order x, y, z; its point at coordinate v along a is line_point(p, a, l) + v stride. */
static void other_axes(int a, int *b, int *c) {
    *b = a == 0 ? 1 : 0;
    *c = a == 2 ? 1 : 2;
}

static long line_point(const dg_prepared *p, int a, long l) {
    const int dims[3] = {p->nx, p->ny, p->nz};
    const long strides[3] = {1, p->nx, (long)p->nx * p->ny};
    int b, c;
    other_axes(a, &b, &c);
    return (l % dims[b]) * strides[b] + (l / dims[b]) * strides[c];
}

static double uniform(const dg_prepared *p, long w) {
    return p->factor[p->has_salt && p->flag[w & 1][w >> 1] ? 1 : 0];
}

int dg_mg_seam_mismatch(const dg_prepared *p, char *where, size_t size) {
    if (where && size) where[0] = '\0';
    const int dims[3] = {p->nx, p->ny, p->nz};
    const long strides[3] = {1, p->nx, (long)p->nx * p->ny};
    int found = 0;
    for (int a = 0; a < 3 && !found; ++a) {
        if (!(p->periodic & (1 << a))) continue;
        int b, c;
        other_axes(a, &b, &c);
        const int n = dims[a];
        const long lines = (long)dims[b] * dims[c];
        double *sum = malloc((size_t)lines * sizeof(double));  /* log D(n-2) - log D(1) */
        double *down = malloc((size_t)lines * sizeof(double)); /* C(1, down) */
        double *up = malloc((size_t)lines * sizeof(double));   /* C(n-2, up) */
        if (!sum || !down || !up) {
            free(sum), free(down), free(up);
            return -1;
        }
        /* every point uniform first: only the line's ends count, + log f(1) - log f(n-2) */
        for (long l = 0; l < lines; ++l) {
            const long w1 = line_point(p, a, l) + strides[a], w2 = w1 + (long)(n - 3) * strides[a];
            down[l] = uniform(p, w1), up[l] = uniform(p, w2);
            sum[l] = log(down[l]) - log(up[l]);
        }
        /* then the boundary points' own coefficients in place of their uniform factor */
        for (int k_colour = 0; k_colour < 2; ++k_colour)
            for (int k = 0; k < p->boundary_count[k_colour]; ++k) {
                const long w = 2L * p->boundary_index[k_colour][k] + k_colour;
                const long xyz[3] = {w % p->nx, (w / p->nx) % p->ny, w / strides[2]};
                const int v = (int)xyz[a];
                const long l = xyz[b] + (long)dims[b] * xyz[c];
                const double *weight = p->boundary_weight[k_colour] + 6L * k;
                const double f = uniform(p, w), cu = f + weight[2 * a + 1], cd = f + weight[2 * a];
                if (v <= n - 3) sum[l] += log(cu) - log(f);
                if (v >= 2) sum[l] -= log(cd) - log(f);
                if (v == 1) down[l] = cd;
                if (v == n - 2) up[l] = cu;
            }
        for (long l = 0; l < lines && !found; ++l) {
            const long i = l % dims[b], j = l / dims[b];
            if (i < 1 || i > dims[b] - 2 || j < 1 || j > dims[c] - 2) continue; /* a face line */
            const double gap = log(down[l]) - log(up[l]) - sum[l];
            if (!(fabs(gap) <= SEAM_TOLERANCE)) {
                found = 1;
                if (where && size)
                    snprintf(where, size,
                             "the medium does not repeat across the periodic %c faces: on the "
                             "line %c = %ld, %c = %ld the face before point 1 has %.6g times "
                             "the permittivity of the face after point %d",
                             "xyz"[a], "xyz"[b], i, "xyz"[c], j, exp(gap), n - 2);
            }
        }
        free(sum), free(down), free(up);
    }
    return found;
}
