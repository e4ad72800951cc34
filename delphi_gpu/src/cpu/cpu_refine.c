/* Mixed precision on the CPU backend: the double iterate, its residual and the fold of the
 * float correction (cpu_refine.h explains the scheme). */
#include <stdlib.h>
#include <string.h>

#include "cpu_refine.h"
#include "delphi_gpu/delphi_gpu_types.h"

#define PARALLEL_MIN 32768 /* below this many points a loop runs on one thread */

typedef struct keyed_entry {
    int index, entry;
} keyed_entry;

static int compare_entries(const void *a, const void *b) {
    const keyed_entry *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    /* boundary entries (>= 0) before charges (< 0): the CUDA backend's order of the terms */
    const int xb = x->entry >= 0, yb = y->entry >= 0;
    if (xb != yb) return xb ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Group the boundary and charge entries of colour c by half-index. */
static int build_groups(dg_cpu_refine *r, const dg_prepared *p, int c) {
    const int nb = p->boundary_count[c], nq = p->charge_count[c], n = nb + nq;
    keyed_entry *keys = malloc(((size_t)n + 1) * sizeof *keys);
    r->entry[c] = malloc(((size_t)n + 1) * sizeof(int));
    r->start[c] = malloc(((size_t)n + 2) * sizeof(int));
    if (!keys || !r->entry[c] || !r->start[c]) {
        free(keys);
        return 0;
    }
    for (int k = 0; k < nb; ++k)
        keys[k] = (keyed_entry){p->boundary_index[c][k], k};
    for (int k = 0; k < nq; ++k)
        keys[nb + k] = (keyed_entry){p->charge_index[c][k], -k - 1};
    qsort(keys, (size_t)n, sizeof *keys, compare_entries);
    int groups = 0;
    for (int i = 0; i < n; ++i) {
        if (i == 0 || keys[i].index != keys[i - 1].index) r->start[c][groups++] = i;
        r->entry[c][i] = keys[i].entry;
    }
    r->start[c][groups] = n;
    r->group_count[c] = groups;
    free(keys);
    return 1;
}

void dg_cpu_refine_free(dg_cpu_refine *r) {
    for (int c = 0; c < 2; ++c)
        free(r->phi[c]), free(r->qmap[c]), free(r->rhs[c]), free(r->start[c]), free(r->entry[c]);
    memset(r, 0, sizeof *r);
}

int dg_cpu_refine_alloc(dg_cpu_refine *r, const dg_prepared *p) {
    memset(r, 0, sizeof *r);
    r->scale = 1.0f, r->inv_scale = 1.0;
    for (int c = 0; c < 2; ++c) {
        r->phi[c] = calloc(p->half_count[c] + 1, sizeof(double));
        r->rhs[c] = calloc(p->half_count[c] + 1, sizeof(dg_rhs16));
        if (!r->phi[c] || !r->rhs[c] || !build_groups(r, p, c)) {
            dg_cpu_refine_free(r);
            return DG_ERR_OUT_OF_MEMORY;
        }
    }
    return DG_OK;
}

void dg_cpu_refine_load(dg_cpu_refine *r, const dg_prepared *p, const void *phi, int is_double,
                        int threads) {
    for (int c = 0; c < 2; ++c) {
        double *half = r->phi[c];
        const long count = (long)p->half_count[c];
#pragma omp parallel for schedule(static) num_threads(threads) if (count > PARALLEL_MIN)
        for (long h = 0; h < count; ++h)
            half[h] = is_double ? ((const double *)phi)[2 * h + c]
                                : (double)((const float *)phi)[2 * h + c];
        if (r->qmap[c]) memset(r->qmap[c], 0, (p->half_count[c] + 1) * sizeof(double));
    }
}

void dg_cpu_refine_wrap(dg_cpu_refine *r, const dg_prepared *p) {
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        for (int i = 0; i < 2; ++i)
            r->phi[face[i] & 1][face[i] >> 1] = r->phi[image[i] & 1][image[i] >> 1];
    }
}

void dg_cpu_refine_store(const dg_cpu_refine *r, const dg_prepared *p, void *phi, int is_double,
                         int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)                                     \
    collapse(2) if (p->interior_count > PARALLEL_MIN)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int c = 0; c < 2; ++c) {
                const double *half = r->phi[c];
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    if (is_double)
                        ((double *)phi)[2 * h + c] = half[h];
                    else
                        ((float *)phi)[2 * h + c] = (float)half[h];
                }
            }
    /* periodic axes: the wrapped face points, as the iterate holds them */
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    for (long k = 0; k < pairs; ++k) {
        long w[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, w, image);
        for (int i = 0; i < 2; ++i) {
            const double v = r->phi[w[i] & 1][w[i] >> 1];
            if (is_double)
                ((double *)phi)[w[i]] = v;
            else
                ((float *)phi)[w[i]] = (float)v;
        }
    }
}

/* T(phi) - phi at half-index h of colour c without the sparse terms, the point's factor and
   whether the salt factor applies. */
static inline double dense_residual(const dg_cpu_refine *r, const dg_prepared *p, int c,
                                    const long o[6], long h, int nonlinear, double *factor,
                                    int *salt_out) {
    const double *phi = r->phi[c], *other = r->phi[1 - c];
    const int salt = p->has_salt && p->flag[c][h];
    *salt_out = salt;
    double sum = other[h + o[0]] + other[h + o[1]] + other[h + o[2]] + other[h + o[3]] +
                 other[h + o[4]] + other[h + o[5]];
    if (nonlinear && salt) sum += r->qmap[c][h];
    *factor = p->factor[salt];
    return *factor * sum - phi[h];
}

void dg_cpu_refine_residual(dg_cpu_refine *r, const dg_prepared *p, int nonlinear, int threads) {
    const int use_qmap = nonlinear && r->qmap[0] && r->qmap[1];
    for (int c = 0; c < 2; ++c) {
        long o[6];
        dg_neighbour_offsets(p->nx, p->ny, c, o);
        dg_rhs16 *rhs = r->rhs[c];
#pragma omp parallel for schedule(static) num_threads(threads)                                     \
    collapse(2) if (p->interior_count > PARALLEL_MIN)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    double factor;
                    int salt;
                    const double res = dense_residual(r, p, c, o, h, use_qmap, &factor, &salt);
                    rhs[h] = dg_rhs_encode((float)(res / factor), p->has_salt, salt);
                }
            }
        /* Points on the lists: the whole residual in double, then one rounding. */
        const double *other = r->phi[1 - c];
        const int groups = r->group_count[c];
#pragma omp parallel for schedule(static) num_threads(threads) if (groups > 4096)
        for (int g = 0; g < groups; ++g) {
            const int first = r->start[c][g], end = r->start[c][g + 1];
            const int e0 = r->entry[c][first];
            const long h = e0 >= 0 ? p->boundary_index[c][e0] : p->charge_index[c][-e0 - 1];
            double factor;
            int salt;
            double res = dense_residual(r, p, c, o, h, use_qmap, &factor, &salt);
            for (int i = first; i < end; ++i) {
                const int e = r->entry[c][i];
                if (e >= 0) {
                    const double *w = p->boundary_weight[c] + 6L * e;
                    res += w[0] * other[h + o[0]] + w[1] * other[h + o[1]] +
                           w[2] * other[h + o[2]] + w[3] * other[h + o[3]] +
                           w[4] * other[h + o[4]] + w[5] * other[h + o[5]];
                } else {
                    res += p->charge_source[c][-e - 1];
                }
            }
            rhs[h] = dg_rhs_encode((float)(res / factor), p->has_salt, salt);
        }
    }
    /* The step's scale: the largest |rhs| (refine_rhs.h), as the CUDA backend's
       dg_refine_rhs_max_kernel. */
    unsigned max_bits = 0;
    const unsigned mask = dg_rhs_value_mask(p->has_salt);
    for (int c = 0; c < 2; ++c) {
        const dg_rhs16 *rhs = r->rhs[c];
        const long count = (long)p->half_count[c];
#pragma omp parallel for schedule(static) num_threads(threads)                                     \
    reduction(max                                                                                  \
              : max_bits) if (count > PARALLEL_MIN)
        for (long h = 0; h < count; ++h) {
            const unsigned bits = dg_rhs_magnitude_bits(rhs[h], mask);
            max_bits = bits > max_bits ? bits : max_bits;
        }
    }
    r->scale = dg_half_scale(max_bits);
    r->inv_scale = 1.0 / (double)r->scale;
}

void dg_cpu_refine_fold(dg_cpu_refine *r, const dg_prepared *p, float *const e[2], int threads) {
    for (int c = 0; c < 2; ++c) {
        double *phi = r->phi[c];
        float *correction = e[c];
        const long count = (long)p->half_count[c];
        const double inv = r->inv_scale;
#pragma omp parallel for schedule(static) num_threads(threads) if (count > PARALLEL_MIN)
        for (long h = 0; h < count; ++h) {
            phi[h] += (double)correction[h] * inv;
            correction[h] = 0.0f;
        }
    }
}

void dg_cpu_refine_zero_correction(const dg_prepared *p, float *const f[2]) {
    for (int c = 0; c < 2; ++c)
        memset(f[c], 0, (p->half_count[c] + 1) * sizeof(float));
}

int dg_cpu_refine_nonlinear_source(dg_cpu_refine *r, const dg_prepared *p, double fraction,
                                   int threads) {
    for (int c = 0; c < 2; ++c)
        if (!r->qmap[c] && !(r->qmap[c] = calloc(p->half_count[c] + 1, sizeof(double))))
            return DG_ERR_OUT_OF_MEMORY;
    const double scale = fraction * p->nonlinear_coefficient;
    const double *chi = p->chi;
    for (int c = 0; c < 2; ++c) {
        const double *phi = r->phi[c];
        const unsigned char *flag = p->flag[c];
        double *qmap = r->qmap[c];
#pragma omp parallel for schedule(static) num_threads(threads)                                     \
    collapse(2) if (p->interior_count > PARALLEL_MIN)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    if (flag[h]) qmap[h] = dg_lagged_source(phi[h], scale, chi);
                }
            }
    }
    return DG_OK;
}
