/* The seam lists of periodic axes (prepared.h): for each colour, the interior points that lie
 * on point 1 of one or more periodic axes, grouped by how many, with the coefficient of their
 * neighbour across each of those faces. */
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "prepared.h"

static int compare_int(const void *a, const void *b) {
    const int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The seam set of the 0-based point (x, y, z): bit a when it is point 1 along periodic axis a. */
static unsigned seam_set(const dg_prepared *p, int x, int y, int z) {
    return ((p->periodic & DG_PERIODIC_X) && x == 1 ? 1u : 0u) |
           ((p->periodic & DG_PERIODIC_Y) && y == 1 ? 2u : 0u) |
           ((p->periodic & DG_PERIODIC_Z) && z == 1 ? 4u : 0u);
}

static int popcount3(unsigned set) {
    return (int)(set & 1u) + (int)((set >> 1) & 1u) + (int)((set >> 2) & 1u);
}

/* Each interior point with a non-empty seam set, of colour c, in order of step then index. */
static int build_colour(dg_prepared *p, int c) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    long count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        long e = 0;
        for (int k = 1; k <= p->seam_steps; ++k) {
            if (pass == 1) p->seam_start[c][k - 1] = (int)e;
            /* the points on seams lie on planes x = 1, y = 1 or z = 1: visit the interior and
               keep those whose set has k members */
            for (int z = 1; z < nz - 1; ++z)
                for (int y = 1; y < ny - 1; ++y) {
                    /* a row on a y or z seam whole; elsewhere only its point x = 1 */
                    const int row = ((p->periodic & DG_PERIODIC_Z) && z == 1) ||
                                    ((p->periodic & DG_PERIODIC_Y) && y == 1);
                    if (!row && !(p->periodic & DG_PERIODIC_X)) continue;
                    for (int x = 1; x < (row ? nx - 1 : 2); ++x) {
                        const unsigned set = seam_set(p, x, y, z);
                        if (!set || popcount3(set) != k || ((x + y + z) & 1) != c) continue;
                        if (pass == 1) {
                            const long w = x + (long)nx * (y + (long)ny * z);
                            const long h = w >> 1;
                            const int salt = p->has_salt && p->flag[c][h];
                            p->seam_index[c][e] = (int)h;
                            p->seam_axes[c][e] = (unsigned char)set;
                            for (int a = 0; a < 3; ++a)
                                p->seam_coef[c][3 * e + a] =
                                    (set >> a) & 1u ? p->factor[salt ? 1 : 0] : 0.0;
                        }
                        ++e;
                    }
                }
        }
        if (pass == 0) {
            count = e;
            p->seam_index[c] = malloc((size_t)(count + 1) * sizeof(int));
            p->seam_axes[c] = malloc((size_t)(count + 1));
            p->seam_coef[c] = malloc((size_t)(3 * count + 1) * sizeof(double));
            if (!p->seam_index[c] || !p->seam_axes[c] || !p->seam_coef[c])
                return DG_ERR_OUT_OF_MEMORY;
        } else {
            p->seam_start[c][p->seam_steps] = (int)e;
        }
    }
    /* boundary points on a seam: add their weight toward the face (x-, y- or z-) */
    int *sorted = malloc((size_t)(count + 1) * 2 * sizeof(int)); /* (index, entry) pairs */
    if (!sorted) return DG_ERR_OUT_OF_MEMORY;
    for (long e = 0; e < count; ++e)
        sorted[2 * e] = p->seam_index[c][e], sorted[2 * e + 1] = (int)e;
    qsort(sorted, (size_t)count, 2 * sizeof(int), compare_int);
    for (int k = 0; k < p->boundary_count[c]; ++k) {
        const int h = p->boundary_index[c][k];
        long lo = 0, hi = count - 1;
        while (lo <= hi) {
            const long mid = (lo + hi) / 2;
            if (sorted[2 * mid] < h)
                lo = mid + 1;
            else if (sorted[2 * mid] > h)
                hi = mid - 1;
            else {
                const int e = sorted[2 * mid + 1];
                for (int a = 0; a < 3; ++a)
                    if ((p->seam_axes[c][e] >> a) & 1u)
                        p->seam_coef[c][3 * e + a] += p->boundary_weight[c][6 * k + 2 * a];
                break;
            }
        }
    }
    free(sorted);
    return DG_OK;
}

void dg_prepared_wrap(const dg_prepared *p, void *grid, size_t elem_size, int threads) {
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    char *g = grid;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (pairs > 16384)
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        for (int i = 0; i < 2; ++i)
            memcpy(g + (size_t)face[i] * elem_size, g + (size_t)image[i] * elem_size, elem_size);
    }
}

int dg_prepared_build_seams(dg_prepared *p) {
    p->seam_steps = popcount3((unsigned)p->periodic & 7u);
    if (!p->seam_steps) return DG_OK;
    for (int c = 0; c < 2; ++c) {
        const int st = build_colour(p, c);
        if (st != DG_OK) return st;
    }
    return DG_OK;
}
