/* The multigrid hierarchy: the symmetrising scale D, Galerkin aggregation levels, and the
 * coarse part of the V-cycle (float, OpenMP; red-black updates are independent of the thread
 * count). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

#define PARALLEL_MIN 32768 /* below this many points a loop runs on one thread */

void dg_mg_default_params(dg_mg_params *p) {
    /* Three sweeps on the fine level, two on the coarse ones: on an H100 (docs/PERFORMANCE.md
       run 34) three fine sweeps took the cycles from 12-14 to 10-12 between 129^3 and 769^3 for
       about 14 % more time per cycle (385^3 mixed 13 -> 11 cycles, 0.067 -> 0.065 s; double
       0.075 -> 0.072 s; float to maxc 1e-3 7 -> 6 cycles); four fine sweeps gave 9-10 cycles and
       about the same times; on the CPU three and two cost the same.  One coarse sweep instead of
       two made the W-cycle a poor coarse solver (58 cycles at 385^3). */
    p->pre_sweeps = 3;
    p->post_sweeps = 3;
    p->coarse_sweeps = 2;
    p->coarsest_sweeps = 0; /* 0: the coarsest level is solved exactly (dense inverse) */
    p->coarsest_size = 64;
    p->correction_scale = 1.8;
    /* The over-corrections of a chain of levels that visit the next once multiply for an error
       that every level's aggregates represent exactly, such as the constant over a pocket of
       solvent inside the protein (a few low-energy modes of real molecular surfaces, not of the
       benchmark's cluster of spheres): with 1.8 on every level the CG stalled on those modes,
       19-20 cycles for ubiquitin at 199^3 and 30 for HIV-1 protease at 3 points/A against 10-12
       with 1.6 on the single-visit levels (CPU, maxc 1e-5), while the benchmark's medium kept
       its 10-11 cycles from 129^3 to 257^3 (docs/MULTIGRID.md, "Real molecular surfaces"). */
    p->single_visit_scale = 1.6;
    p->coarse_visits = 2;
    /* V-cycle on levels of fewer than 200 000 unknowns: on the GPU the same cycle counts as
       with the bound at 16^3 (one fewer at 129^3) from 129^3 to 769^3, and 4-25 % faster
       cycles (docs/MULTIGRID.md); on the CPU one to three more cycles on grids below 161^3,
       where the solver choice (AUTO) picks the SOR anyway */
    p->w_min_unknowns = 200000;
}

static int fail(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "multigrid: %s", text);
    return status;
}

/* Coefficient of the scaled form at full index w towards face f (x-,x+,y-,y+,z-,z+). */
static double coefficient(const dg_prepared *p, const int *slot, size_t w, int f) {
    const int c = (int)(w & 1);
    double value = p->factor[p->has_salt ? p->flag[c][w >> 1] : 0];
    const int s = slot[w];
    if (s >= 0) value += p->boundary_weight[s & 1][6 * (size_t)(s >> 1) + f];
    return value;
}

static void free_level(dg_mg_level *l) {
    free(l->diag), free(l->cx), free(l->cy), free(l->cz), free(l->e), free(l->rhs);
    memset(l, 0, sizeof *l);
}

void dg_mg_free(dg_mg_hierarchy *h) {
    if (!h) return;
    for (int l = 0; l < h->level_count; ++l)
        free_level(&h->levels[l]);
    if (h->diag_base)
        for (int l = 0; l < h->level_count; ++l)
            free(h->diag_base[l]);
    free(h->diag_base), free(h->dscale_base), free(h->factor), free(h->rhs);
    free(h->weight[0]), free(h->weight[1]);
    free(h->levels), free(h->dscale), free(h->z), free(h->salt), free(h->coarsest_inverse);
    memset(h, 0, sizeof *h);
}

/* The padded strides are odd (one ghost column or row more where mx or my is even; it is never
   read as a neighbour), so a padded index q has the parity of its point's colour (X + Y + Z) & 1:
   the CUDA path stores e, rhs and the class bytes split by colour by q's parity. */
static void level_dims(dg_mg_level *l, int mx, int my, int mz, int periodic) {
    l->mx = mx, l->my = my, l->mz = mz;
    /* an axis of one unknown holds its seam link inside that unknown (build_next) */
    l->wrap = (periodic & DG_PERIODIC_X && mx >= 2 ? DG_PERIODIC_X : 0) |
              (periodic & DG_PERIODIC_Y && my >= 2 ? DG_PERIODIC_Y : 0) |
              (periodic & DG_PERIODIC_Z && mz >= 2 ? DG_PERIODIC_Z : 0);
    l->sx = mx + 2 + !(mx & 1);
    l->sy = l->sx * (my + 2 + !(my & 1));
    l->padded = (size_t)l->sy * (mz + 2);
}

static int alloc_level(dg_mg_level *l) {
    float **arrays[6] = {&l->diag, &l->cx, &l->cy, &l->cz, &l->e, &l->rhs};
    for (int a = 0; a < 6; ++a)
        if (!(*arrays[a] = calloc(l->padded, sizeof(float)))) return 0;
    return 1;
}

/* D up to one constant: D(1,1,1) = 1, then D_j = D_i C_ij / C_ji along z on the line x=y=1,
   along y on each plane's x=1 line, along x on every row.  Exact for a medium with one
   permittivity per face (every medium this library builds); the CG needs D only as a weight. */
static int build_scale(dg_mg_hierarchy *h, const int *slot, char *message, size_t size) {
    const dg_prepared *p = h->prep;
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    const long sx = 1, sy = nx, sz = (long)nx * ny;
    double *plane = malloc(sizeof(double) * (size_t)ny * nz);
    if (!plane) {
        return fail(message, size, DG_ERR_OUT_OF_MEMORY, "out of host memory (scale)");
    }
    int bad = 0;
    /* plane[y + ny z] = D(1, y, z) */
    double d = 1.0;
    for (int z = 1; z < nz - 1; ++z) {
        const size_t w = 1 + sy + sz * z;
        if (z > 1) d *= coefficient(p, slot, w - sz, 5) / coefficient(p, slot, w, 4);
        plane[ny * (size_t)z + 1] = d;
    }
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 2; y < ny - 1; ++y) {
            const size_t w = 1 + sy * y + sz * z;
            plane[ny * (size_t)z + y] = plane[ny * (size_t)z + y - 1] *
                                        coefficient(p, slot, w - sy, 3) /
                                        coefficient(p, slot, w, 2);
        }
#pragma omp parallel for schedule(static) num_threads(h->threads) reduction(| : bad)
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y) {
            double v = plane[ny * (size_t)z + y];
            const size_t row = sy * y + sz * z;
            for (int x = 1; x < nx - 1; ++x) {
                if (x > 1)
                    v *= coefficient(p, slot, row + x - sx, 1) / coefficient(p, slot, row + x, 0);
                if (!(v > 0.0) || !isfinite(v) || v > 1e30 || v < 1e-30) bad = 1;
                h->dscale[row + x] = (float)v;
            }
        }
    free(plane);
    if (bad)
        return fail(message, size, DG_ERR_UNSUPPORTED,
                    "the medium has a non-positive coupling (a face permittivity <= 0), so the "
                    "operator is not symmetrisable; use the SOR solver");
    return DG_OK;
}

/* Symmetric fine coupling between full index w and w + offset (direction plus = 1,3,5 towards
   it; offset from fine_up), 0 when offset is 0 (the neighbour is a fixed face point: a boundary
   value, not an unknown). */
static double fine_coupling(const dg_mg_hierarchy *h, const int *slot, size_t w, long offset,
                            int plus) {
    if (!offset) return 0.0;
    const double a = coefficient(h->prep, slot, w, plus) * h->dscale[w];
    const double b = coefficient(h->prep, slot, w + offset, plus - 1) * h->dscale[w + offset];
    return sqrt(a * b);
}

/* The unknown one step up from coordinate v (1..n-2) along an axis of n points and full-index
   stride: its offset, 0 for a fixed face point; along a periodic axis point n-2's neighbour is
   point 1 (the face point n-1 is its image).  *up gets the neighbour's coordinate. */
static long fine_up(int v, int n, long stride, int periodic, int *up) {
    if (v + 1 <= n - 2) return *up = v + 1, stride;
    *up = 1;
    return periodic ? -(long)(n - 3) * stride : 0;
}

/* A link of weight e from an aggregate at coordinate A to a point of the aggregate at A' (along
   one axis): inside one aggregate it leaves the Galerkin diagonal twice (P^T M P), otherwise it
   is the coupling to the next aggregate (towards + from A; from the last aggregate, the seam). */
static void add_link(double e, int A, int A_up, double *diag, double *coupling) {
    if (A_up == A)
        *diag -= 2 * e;
    else
        *coupling += e;
}

/* Level 0 from the fine grid: aggregates of 2x2x2 interior points (the fine grid's face layer
   is the padding, so a fine point (x,y,z) belongs to coarse (1+(x-1)/2, ...)). */
static void build_first(dg_mg_hierarchy *h, const int *slot, dg_mg_level *c) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const int per = p->periodic;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int Z = 1; Z <= c->mz; ++Z)
        for (int Y = 1; Y <= c->my; ++Y)
            for (int X = 1; X <= c->mx; ++X) {
                double diag = 0, cx = 0, cy = 0, cz = 0;
                for (int k = 0; k < 8; ++k) {
                    const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                              z = 2 * Z - 1 + (k >> 2);
                    if (x > p->nx - 2 || y > p->ny - 2 || z > p->nz - 2) continue;
                    const size_t w = x + sy * y + sz * z;
                    diag += h->dscale[w];
                    int xu, yu, zu;
                    const long ox = fine_up(x, p->nx, 1, per & DG_PERIODIC_X, &xu);
                    const long oy = fine_up(y, p->ny, sy, per & DG_PERIODIC_Y, &yu);
                    const long oz = fine_up(z, p->nz, sz, per & DG_PERIODIC_Z, &zu);
                    add_link(fine_coupling(h, slot, w, ox, 1), X, (xu + 1) / 2, &diag, &cx);
                    add_link(fine_coupling(h, slot, w, oy, 3), Y, (yu + 1) / 2, &diag, &cy);
                    add_link(fine_coupling(h, slot, w, oz, 5), Z, (zu + 1) / 2, &diag, &cz);
                }
                const size_t q = X + c->sx * Y + c->sy * Z;
                /* a link out of the last aggregate goes to a face point (coupling 0 there) or,
                   along a periodic axis, across the seam to the first */
                c->diag[q] = (float)diag;
                c->cx[q] = X < c->mx || (c->wrap & DG_PERIODIC_X) ? (float)cx : 0.0f;
                c->cy[q] = Y < c->my || (c->wrap & DG_PERIODIC_Y) ? (float)cy : 0.0f;
                c->cz[q] = Z < c->mz || (c->wrap & DG_PERIODIC_Z) ? (float)cz : 0.0f;
            }
}

/* A coarser level from level f by the same aggregation (Galerkin with piecewise constants). */
static void build_next(const dg_mg_hierarchy *h, const dg_mg_level *f, dg_mg_level *c) {
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int Z = 1; Z <= c->mz; ++Z)
        for (int Y = 1; Y <= c->my; ++Y)
            for (int X = 1; X <= c->mx; ++X) {
                double diag = 0, cx = 0, cy = 0, cz = 0;
                for (int k = 0; k < 8; ++k) {
                    const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                              z = 2 * Z - 1 + (k >> 2);
                    if (x > f->mx || y > f->my || z > f->mz) continue;
                    const size_t q = x + f->sx * y + f->sy * z;
                    diag += f->diag[q];
                    /* the neighbour up: the next point, or from the last across the seam to the
                       first (f's coupling there is 0 unless f wraps on that axis) */
                    const int xu = x < f->mx ? x + 1 : 1, yu = y < f->my ? y + 1 : 1,
                              zu = z < f->mz ? z + 1 : 1;
                    add_link(f->cx[q], X, (xu + 1) / 2, &diag, &cx);
                    add_link(f->cy[q], Y, (yu + 1) / 2, &diag, &cy);
                    add_link(f->cz[q], Z, (zu + 1) / 2, &diag, &cz);
                }
                const size_t q = X + c->sx * Y + c->sy * Z;
                c->diag[q] = (float)diag;
                c->cx[q] = X < c->mx || (c->wrap & DG_PERIODIC_X) ? (float)cx : 0.0f;
                c->cy[q] = Y < c->my || (c->wrap & DG_PERIODIC_Y) ? (float)cy : 0.0f;
                c->cz[q] = Z < c->mz || (c->wrap & DG_PERIODIC_Z) ? (float)cz : 0.0f;
            }
}

/* Copy each wrapping axis's seam coupling (at the last unknown) to the ghost before the first,
   where the first unknown's stencil reads its coupling down. */
static void wrap_couplings(dg_mg_level *l) {
    if (!l->wrap) return;
    for (int Z = 1; Z <= l->mz; ++Z)
        for (int Y = 1; Y <= l->my; ++Y)
            if (l->wrap & DG_PERIODIC_X)
                l->cx[l->sx * Y + l->sy * Z] = l->cx[l->mx + l->sx * Y + l->sy * Z];
    for (int Z = 1; Z <= l->mz; ++Z)
        for (int X = 1; X <= l->mx; ++X)
            if (l->wrap & DG_PERIODIC_Y)
                l->cy[X + l->sy * Z] = l->cy[X + l->sx * l->my + l->sy * Z];
    for (int Y = 1; Y <= l->my; ++Y)
        for (int X = 1; X <= l->mx; ++X)
            if (l->wrap & DG_PERIODIC_Z)
                l->cz[X + l->sx * Y] = l->cz[X + l->sx * Y + l->sy * l->mz];
}

void dg_mg_wrap_level(const dg_mg_level *l, float *v) {
    if (!l->wrap) return;
    const long sx = l->sx, sy = l->sy;
    if (l->wrap & DG_PERIODIC_X)
        for (int Z = 1; Z <= l->mz; ++Z)
            for (int Y = 1; Y <= l->my; ++Y) {
                const long row = sx * Y + sy * Z;
                v[row] = v[row + l->mx], v[row + l->mx + 1] = v[row + 1];
            }
    if (l->wrap & DG_PERIODIC_Y)
        for (int Z = 1; Z <= l->mz; ++Z)
            for (int X = 1; X <= l->mx; ++X) {
                const long col = X + sy * Z;
                v[col] = v[col + sx * l->my], v[col + sx * (l->my + 1)] = v[col + sx];
            }
    if (l->wrap & DG_PERIODIC_Z)
        for (int Y = 1; Y <= l->my; ++Y)
            for (int X = 1; X <= l->mx; ++X) {
                const long col = X + sx * Y;
                v[col] = v[col + sy * l->mz], v[col + sy * (l->mz + 1)] = v[col + sy];
            }
}

/* The exact inverse of a coarse level's operator (symmetric positive definite: a Galerkin
   product of the D-weighted fine operator), by Cholesky in double.  Unknown t is the point
   X = 1 + t % mx, Y = 1 + (t / mx) % my, Z = 1 + t / (mx my); inverse[t * m + u] in float. */
int dg_mg_dense_inverse(const dg_mg_level *l, const float *diag, const float *cx, const float *cy,
                        const float *cz, float *inverse) {
    const int m = l->mx * l->my * l->mz;
    double *a = calloc((size_t)m * m, sizeof(double)), *col = malloc(sizeof(double) * m);
    if (!a || !col) {
        free(a), free(col);
        return DG_ERR_OUT_OF_MEMORY;
    }
    for (int t = 0; t < m; ++t) {
        const int X = 1 + t % l->mx, Y = 1 + (t / l->mx) % l->my, Z = 1 + t / (l->mx * l->my);
        const size_t q = X + l->sx * Y + l->sy * Z;
        a[(size_t)t * m + t] = diag[q];
        /* the next unknown up each axis; from the last, across the seam to the first where the
           level wraps (with two unknowns there, both links join the same pair: they add) */
        const int xy = l->mx * l->my;
        const int next[3] = {X < l->mx                 ? t + 1
                             : l->wrap & DG_PERIODIC_X ? t - (l->mx - 1)
                                                       : -1,
                             Y < l->my                 ? t + l->mx
                             : l->wrap & DG_PERIODIC_Y ? t - l->mx * (l->my - 1)
                                                       : -1,
                             Z < l->mz                 ? t + xy
                             : l->wrap & DG_PERIODIC_Z ? t - xy * (l->mz - 1)
                                                       : -1};
        const float c[3] = {cx[q], cy[q], cz[q]};
        for (int d = 0; d < 3; ++d)
            if (next[d] >= 0) {
                a[(size_t)t * m + next[d]] -= c[d];
                a[(size_t)next[d] * m + t] -= c[d];
            }
    }
    int st = DG_OK;
    /* Cholesky: lower triangle of a becomes L with A = L L^T */
    for (int j = 0; j < m && st == DG_OK; ++j) {
        double d = a[(size_t)j * m + j];
        for (int k = 0; k < j; ++k)
            d -= a[(size_t)j * m + k] * a[(size_t)j * m + k];
        if (!(d > 0.0) || !isfinite(d)) {
            st = DG_ERR_INTERNAL;
            break;
        }
        const double ljj = sqrt(d);
        a[(size_t)j * m + j] = ljj;
        for (int i = j + 1; i < m; ++i) {
            double v = a[(size_t)i * m + j];
            for (int k = 0; k < j; ++k)
                v -= a[(size_t)i * m + k] * a[(size_t)j * m + k];
            a[(size_t)i * m + j] = v / ljj;
        }
    }
    /* column u of the inverse: L y = e_u, L^T x = y */
    for (int u = 0; u < m && st == DG_OK; ++u) {
        for (int i = 0; i < m; ++i) {
            double v = i == u ? 1.0 : 0.0;
            for (int k = 0; k < i; ++k)
                v -= a[(size_t)i * m + k] * col[k];
            col[i] = v / a[(size_t)i * m + i];
        }
        for (int i = m - 1; i >= 0; --i) {
            double v = col[i];
            for (int k = i + 1; k < m; ++k)
                v -= a[(size_t)k * m + i] * col[k];
            col[i] = v / a[(size_t)i * m + i];
        }
        for (int i = 0; i < m; ++i)
            inverse[(size_t)i * m + u] = (float)col[i];
    }
    /* the exact inverse is symmetric: make the float one so (the preconditioner must be) */
    for (int i = 0; i < m && st == DG_OK; ++i)
        for (int j = 0; j < i; ++j)
            inverse[(size_t)j * m + i] = inverse[(size_t)i * m + j];
    free(a), free(col);
    return st;
}

void dg_mg_dense_solve(const dg_mg_level *l, const float *inverse) {
    const int m = l->mx * l->my * l->mz;
    size_t q[DG_MG_DENSE_MAX];
    float rhs[DG_MG_DENSE_MAX];
    for (int t = 0; t < m; ++t) {
        const int X = 1 + t % l->mx, Y = 1 + (t / l->mx) % l->my, Z = 1 + t / (l->mx * l->my);
        q[t] = X + l->sx * Y + l->sy * Z;
        rhs[t] = l->rhs[q[t]];
    }
    for (int t = 0; t < m; ++t) {
        double sum = 0.0;
        for (int u = 0; u < m; ++u)
            sum += (double)inverse[(size_t)t * m + u] * (double)rhs[u];
        l->e[q[t]] = (float)sum;
    }
}

int dg_mg_plan(dg_mg_hierarchy *h, const dg_prepared *p, const dg_mg_params *params, int threads,
               char *message, size_t size) {
    memset(h, 0, sizeof *h);
    h->prep = p;
    h->params = *params;
    h->threads = threads > 0 ? threads : omp_get_max_threads();
    if (p->nx < 5 || p->ny < 5 || p->nz < 5)
        return fail(message, size, DG_ERR_INVALID_GRID, "grid dimensions must be >= 5");
    int levels = 0;
    for (long m = (p->nx - 2L) * (p->ny - 2L) * (p->nz - 2L), mx = p->nx - 2, my = p->ny - 2,
              mz = p->nz - 2;
         m > params->coarsest_size; ++levels) {
        mx = (mx + 1) / 2, my = (my + 1) / 2, mz = (mz + 1) / 2;
        m = mx * my * mz;
    }
    h->levels = calloc((size_t)levels + 1, sizeof *h->levels);
    if (!h->levels) return fail(message, size, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    int mx = p->nx - 2, my = p->ny - 2, mz = p->nz - 2;
    for (int l = 0; l < levels; ++l) {
        mx = (mx + 1) / 2, my = (my + 1) / 2, mz = (mz + 1) / 2;
        level_dims(&h->levels[l], mx, my, mz, p->periodic);
    }
    h->level_count = levels;
    if (levels > 0) {
        const dg_mg_level *c = &h->levels[levels - 1];
        const long m = (long)c->mx * c->my * c->mz;
        if (params->coarsest_sweeps == 0 && m > DG_MG_DENSE_MAX)
            return fail(message, size, DG_ERR_INTERNAL, "the coarsest level is too large");
        h->coarsest_count = (int)m;
    }
    return DG_OK;
}

int dg_mg_build(dg_mg_hierarchy *h, const dg_prepared *p, const dg_mg_params *params, int threads,
                char *message, size_t size) {
    int st = dg_mg_plan(h, p, params, threads, message, size);
    if (st != DG_OK) return st;
    h->dscale = calloc(p->point_count, sizeof(float));
    h->z = calloc(p->point_count, sizeof(float));
    h->salt = calloc(p->point_count, 1);
    int *slot = malloc(p->point_count * sizeof(int));
    int ok = h->dscale && h->z && h->salt && slot;
    for (int l = 0; ok && l < h->level_count; ++l)
        ok = alloc_level(&h->levels[l]);
    if (!ok) {
        free(slot);
        dg_mg_free(h);
        return fail(message, size, DG_ERR_OUT_OF_MEMORY, "out of host memory (hierarchy)");
    }
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (size_t w = 0; w < p->point_count; ++w) {
        slot[w] = -1;
        if (p->has_salt) h->salt[w] = p->flag[w & 1][w >> 1] != 0;
    }
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < p->boundary_count[c]; ++k)
            slot[2 * (size_t)p->boundary_index[c][k] + c] = 2 * k + c;
    st = build_scale(h, slot, message, size);
    if (st != DG_OK) {
        free(slot);
        dg_mg_free(h);
        return st;
    }
    for (int l = 0; l < h->level_count; ++l) {
        if (l == 0)
            build_first(h, slot, &h->levels[0]);
        else
            build_next(h, &h->levels[l - 1], &h->levels[l]);
        wrap_couplings(&h->levels[l]);
    }
    free(slot);
    if (h->level_count > 0 && h->params.coarsest_sweeps == 0) {
        const dg_mg_level *c = &h->levels[h->level_count - 1];
        h->coarsest_inverse = malloc(sizeof(float) * h->coarsest_count * h->coarsest_count);
        st = h->coarsest_inverse
                 ? dg_mg_dense_inverse(c, c->diag, c->cx, c->cy, c->cz, h->coarsest_inverse)
                 : DG_ERR_OUT_OF_MEMORY;
        if (st != DG_OK) {
            dg_mg_free(h);
            return fail(message, size, st,
                        st == DG_ERR_OUT_OF_MEMORY
                            ? "out of host memory (coarsest inverse)"
                            : "the coarsest operator is not positive definite");
        }
    }
    for (int l = 0; l < h->level_count; ++l) {
        const dg_mg_level *c = &h->levels[l];
        for (int Z = 1; Z <= c->mz; ++Z)
            for (int Y = 1; Y <= c->my; ++Y)
                for (int X = 1; X <= c->mx; ++X)
                    if (!(c->diag[X + c->sx * Y + c->sy * Z] > 0.0f)) {
                        dg_mg_free(h);
                        return fail(message, size, DG_ERR_INTERNAL,
                                    "a coarse operator lost its positive diagonal");
                    }
    }
    return DG_OK;
}

/* One red-black half sweep of colour c on a coarse level: e = (rhs + sum couplings e) / diag. */
static void coarse_sweep(const dg_mg_hierarchy *h, dg_mg_level *l, int colour) {
    const long sx = l->sx, sy = l->sy;
    float *restrict e = l->e;
    const float *restrict diag = l->diag, *restrict cx = l->cx, *restrict cy = l->cy,
                          *restrict cz = l->cz, *restrict rhs = l->rhs;
#pragma omp parallel for schedule(static) num_threads(h->threads)                                  \
    collapse(2) if (l->padded > PARALLEL_MIN)
    for (int Z = 1; Z <= l->mz; ++Z)
        for (int Y = 1; Y <= l->my; ++Y) {
            const int X0 = 1 + ((1 + Y + Z + colour) & 1);
            for (int X = X0; X <= l->mx; X += 2) {
                const size_t q = X + sx * Y + sy * Z;
                e[q] = (rhs[q] + cx[q - 1] * e[q - 1] + cx[q] * e[q + 1] + cy[q - sx] * e[q - sx] +
                        cy[q] * e[q + sx] + cz[q - sy] * e[q - sy] + cz[q] * e[q + sy]) /
                       diag[q];
            }
        }
    /* periodic: the ghosts follow after the whole colour (within it, a seam neighbour of the
       same colour was read at its old value: a Jacobi step there, symmetric as the cycle needs) */
    dg_mg_wrap_level(l, e);
}

/* r = rhs - A e on level l, restricted (summed over aggregates) into level l+1's rhs. */
static void coarse_restrict(const dg_mg_hierarchy *h, const dg_mg_level *f, dg_mg_level *c) {
    const long sx = f->sx, sy = f->sy;
#pragma omp parallel for schedule(static) num_threads(h->threads)                                  \
    collapse(2) if (c->padded > PARALLEL_MIN)
    for (int Z = 1; Z <= c->mz; ++Z)
        for (int Y = 1; Y <= c->my; ++Y)
            for (int X = 1; X <= c->mx; ++X) {
                double sum = 0.0;
                for (int k = 0; k < 8; ++k) {
                    const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                              z = 2 * Z - 1 + (k >> 2);
                    if (x > f->mx || y > f->my || z > f->mz) continue;
                    const size_t q = x + sx * y + sy * z;
                    const float *e = f->e;
                    sum += f->rhs[q] - f->diag[q] * e[q] + f->cx[q - 1] * e[q - 1] +
                           f->cx[q] * e[q + 1] + f->cy[q - sx] * e[q - sx] + f->cy[q] * e[q + sx] +
                           f->cz[q - sy] * e[q - sy] + f->cz[q] * e[q + sy];
                }
                c->rhs[X + c->sx * Y + c->sy * Z] = (float)sum;
            }
}

static void coarse_prolong(const dg_mg_hierarchy *h, dg_mg_level *f, const dg_mg_level *c) {
    const float scale = (float)dg_mg_scale(&h->params, (long)f->mx * f->my * f->mz);
#pragma omp parallel for schedule(static) num_threads(h->threads)                                  \
    collapse(2) if (f->padded > PARALLEL_MIN)
    for (int z = 1; z <= f->mz; ++z)
        for (int y = 1; y <= f->my; ++y)
            for (int x = 1; x <= f->mx; ++x)
                f->e[x + f->sx * y + f->sy * z] +=
                    scale * c->e[(x + 1) / 2 + c->sx * ((y + 1) / 2) + c->sy * ((z + 1) / 2)];
    dg_mg_wrap_level(f, f->e);
}

void dg_mg_coarse_cycle(dg_mg_hierarchy *h, int l) {
    dg_mg_level *lv = &h->levels[l];
    memset(lv->e, 0, lv->padded * sizeof(float));
    if (l == h->level_count - 1) {
        if (h->params.coarsest_sweeps == 0) {
            dg_mg_dense_solve(lv, h->coarsest_inverse);
            return;
        }
        for (int i = 0; i < h->params.coarsest_sweeps; ++i) {
            coarse_sweep(h, lv, 0), coarse_sweep(h, lv, 1);
            coarse_sweep(h, lv, 1), coarse_sweep(h, lv, 0);
        }
        return;
    }
    for (int i = 0; i < h->params.coarse_sweeps; ++i)
        coarse_sweep(h, lv, 0), coarse_sweep(h, lv, 1);
    const int visits = dg_mg_visits(&h->params, (long)lv->mx * lv->my * lv->mz);
    for (int v = 0; v < visits; ++v) {
        coarse_restrict(h, lv, &h->levels[l + 1]);
        dg_mg_coarse_cycle(h, l + 1);
        coarse_prolong(h, lv, &h->levels[l + 1]);
        if (v + 1 < visits) /* smooth between visits (keeps it symmetric) */
            coarse_sweep(h, lv, 1), coarse_sweep(h, lv, 0), coarse_sweep(h, lv, 1);
    }
    for (int i = 0; i < h->params.coarse_sweeps; ++i)
        coarse_sweep(h, lv, 1), coarse_sweep(h, lv, 0);
}

double dg_mg_bytes_per_point(const dg_mg_hierarchy *h) {
    double bytes = (2.0 * sizeof(float) + 1.0) * h->prep->point_count;
    for (int l = 0; l < h->level_count; ++l)
        bytes += 6.0 * sizeof(float) * h->levels[l].padded;
    return bytes / (double)h->prep->point_count;
}
