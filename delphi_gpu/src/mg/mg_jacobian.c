/* A Newton step's Jacobian in a built hierarchy (mg.h, dg_mg_jacobian_begin): the fine level
 * reads the per-point factor, weights and right-hand side the caller fills; D and the coarse
 * diagonals follow from them here.  Only the diagonal of each Galerkin level changes: the
 * couplings D_i C_ij = eps_ij are those of the linear operator. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

static int fail(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "multigrid (Newton step): %s", text);
    return status;
}

int dg_mg_jacobian_begin(dg_mg_hierarchy *h, char *message, size_t size) {
    const dg_prepared *p = h->prep;
    const size_t n = p->point_count;
    h->factor = calloc(n, sizeof(float));
    h->rhs = calloc(n, sizeof(float));
    h->dscale_base = malloc(n * sizeof(float));
    h->diag_base = calloc((size_t)h->level_count + 1, sizeof(float *));
    int ok = h->factor && h->rhs && h->dscale_base && h->diag_base;
    for (int c = 0; ok && c < 2; ++c)
        ok = (h->weight[c] = calloc(6 * (size_t)p->boundary_count[c] + 1, sizeof(double))) != NULL;
    for (int l = 0; ok && l < h->level_count; ++l)
        ok = (h->diag_base[l] = malloc(h->levels[l].padded * sizeof(float))) != NULL;
    if (!ok) return fail(message, size, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    memcpy(h->dscale_base, h->dscale, n * sizeof(float));
    for (int l = 0; l < h->level_count; ++l)
        memcpy(h->diag_base[l], h->levels[l].diag, h->levels[l].padded * sizeof(float));
    return DG_OK;
}

/* D' = D f / factor at the interior points. */
static void jacobian_scale(dg_mg_hierarchy *h) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t w = x + sy * y + sz * z;
                const double f = p->factor[h->salt[w]];
                h->dscale[w] =
                    (float)((double)h->dscale_base[w] * dg_mg_jacobian_ratio(f, h->factor[w]));
            }
}

/* Level c's diagonal: its linear one plus the aggregated change of the finer level's (fine D at
   level 0).  new_f, base_f: the finer level's current and linear values; stride of its grid. */
static void jacobian_level(const dg_mg_hierarchy *h, dg_mg_level *c, float *base_c,
                           const float *new_f, const float *base_f, long fsx, long fsy, int fmx,
                           int fmy, int fmz) {
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int Z = 1; Z <= c->mz; ++Z)
        for (int Y = 1; Y <= c->my; ++Y)
            for (int X = 1; X <= c->mx; ++X) {
                double change = 0.0;
                for (int k = 0; k < 8; ++k) {
                    const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                              z = 2 * Z - 1 + (k >> 2);
                    if (x > fmx || y > fmy || z > fmz) continue;
                    const size_t q = x + fsx * y + fsy * z;
                    change += (double)new_f[q] - (double)base_f[q];
                }
                const size_t q = X + c->sx * Y + c->sy * Z;
                c->diag[q] = (float)((double)base_c[q] + change);
            }
}

int dg_mg_jacobian_update(dg_mg_hierarchy *h, char *message, size_t size) {
    const dg_prepared *p = h->prep;
    jacobian_scale(h);
    for (int l = 0; l < h->level_count; ++l) {
        if (l == 0)
            jacobian_level(h, &h->levels[0], h->diag_base[0], h->dscale, h->dscale_base, p->nx,
                           (long)p->nx * p->ny, p->nx - 2, p->ny - 2, p->nz - 2);
        else {
            const dg_mg_level *f = &h->levels[l - 1];
            jacobian_level(h, &h->levels[l], h->diag_base[l], f->diag, h->diag_base[l - 1], f->sx,
                           f->sy, f->mx, f->my, f->mz);
        }
    }
    if (h->level_count > 0 && h->params.coarsest_sweeps == 0) {
        const dg_mg_level *c = &h->levels[h->level_count - 1];
        const int st = dg_mg_dense_inverse(c, c->diag, c->cx, c->cy, c->cz, h->coarsest_inverse);
        if (st != DG_OK)
            return fail(message, size, st,
                        st == DG_ERR_OUT_OF_MEMORY ? "out of host memory (coarsest inverse)"
                                                   : "the coarsest operator is not positive "
                                                     "definite");
    }
    return DG_OK;
}
