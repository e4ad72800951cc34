/* Mixed precision on the CUDA backend (the CPU backend's scheme, delphi_gpu/src/cpu/
 * cpu_refine.h): the iterate phi_d in double; when the correction e is zero the residual
 * r = T(phi_d) - phi_d is computed in double and stored as rhs = r / factor (16 bits with the
 * point's salt flag, refine_rhs.h), which the DG_SWEEP_RHS sweeps add to the neighbour sum, times
 * the step's scale (set from the largest rhs after each residual, dg_refine_scale); e is stored in
 * binary16 times that scale (refine_half.h); once dg_refine_sweeps(omega, has_salt) or more
 * iterations ran (and before store_phi or a new nonlinear source) phi_d += e / scale, e = 0 (the
 * fold).  The terms of the residual are summed in the CPU backend's order.  A fold that the next
 * residual follows directly (the steady refinement steps) is done in the same pass as that residual
 * (dg_refine_fold_residual_kernel): colour 0 is folded while its residual reads colour 1's
 * folded values computed on the fly (phi_d + e, the same double additions as the fold), then
 * colour 1 is folded and reads colour 0's stored ones; so the values are the separate passes'
 * bits, and one pass of about 30 bytes per point replaces 20 (fold) + 18 (residual).
 * Refinement starts at load_phi, from the loaded iterate (e = 0).
 *
 * Also float precision's resolution scale: the max |value| over the convergence sample. */
#include <stdio.h>
#include <string.h>

#include "cuda_internal.cuh"

#define REFINE_THREADS 256

static unsigned refine_blocks(const dg_cuda_state *st, size_t count) {
    size_t blocks = (count + REFINE_THREADS - 1) / REFINE_THREADS;
    const size_t most = (size_t)st->sm_count * 16;
    if (blocks > most) blocks = most;
    return blocks > 0 ? (unsigned)blocks : 1u;
}

struct dg_refine_params {
    dg_rhs16 *rhs;
    const double *phi, *other, *qmap; /* qmap NULL when linear */
    const unsigned char *flag;        /* NULL without salt */
    long long offset[6];
    int nx, ny, nz, colour;
    size_t count;
    double factor0, factor1;
    const dg_refine_scale *scale; /* the correction's scale (refine_half.h) */
};

/* T(phi) - phi without the list terms at half-index h; *factor = the point's factor, *salt_out
   = whether the salt factor applies. */
__device__ __forceinline__ double dg_dense_residual(const dg_refine_params &p, long long h,
                                                    double *factor, int *salt_out) {
    const bool salt = p.flag && (p.flag[h] & 1);
    *salt_out = salt;
    double sum = p.other[h + p.offset[0]] + p.other[h + p.offset[1]] + p.other[h + p.offset[2]] +
                 p.other[h + p.offset[3]] + p.other[h + p.offset[4]] + p.other[h + p.offset[5]];
    if (p.qmap && salt) sum += p.qmap[h];
    *factor = salt ? p.factor1 : p.factor0;
    return *factor * sum - p.phi[h];
}

__global__ void dg_refine_residual_kernel(const dg_refine_params p) {
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < p.count;
         h += (size_t)gridDim.x * blockDim.x) {
        const size_t w = 2 * h + p.colour;
        const int x = (int)(w % p.nx);
        const size_t t = w / p.nx;
        const int y = (int)(t % p.ny), z = (int)(t / p.ny);
        if (x < 1 || x > p.nx - 2 || y < 1 || y > p.ny - 2 || z < 1 || z > p.nz - 2) continue;
        double factor;
        int salt;
        const double r = dg_dense_residual(p, (long long)h, &factor, &salt);
        p.rhs[h] = dg_rhs_encode((float)(r / factor), p.flag != NULL, salt);
    }
}

/* List points (one entry per point, boundary entries first): the whole residual in double. */
__global__ void dg_refine_list_kernel(const dg_refine_params p, const int *index,
                                      const double *weight, const double *source,
                                      int boundary_count, int total_count) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total_count;
         k += gridDim.x * blockDim.x) {
        const long long h = index[k];
        double factor;
        int salt;
        double r = dg_dense_residual(p, h, &factor, &salt);
        if (k < boundary_count) {
            const double *w = weight + 6LL * k;
            r += w[0] * p.other[h + p.offset[0]] + w[1] * p.other[h + p.offset[1]] +
                 w[2] * p.other[h + p.offset[2]] + w[3] * p.other[h + p.offset[3]] +
                 w[4] * p.other[h + p.offset[4]] + w[5] * p.other[h + p.offset[5]];
        }
        r += source[k];
        p.rhs[h] = dg_rhs_encode((float)(r / factor), p.flag != NULL, salt);
    }
}

/* The fold of colour c (phi += e, e = 0 at every half point) and its residual at interior
   points, the other colour's values read as other + other_e when other_e is not NULL (that
   colour not folded yet) and as other (folded) otherwise. */
__global__ void dg_refine_fold_residual_kernel(const dg_refine_params p, double *phi,
                                               dg_half16 *correction,
                                               const dg_half16 *other_correction) {
    const double inv = p.scale->inv;
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < p.count;
         h += (size_t)gridDim.x * blockDim.x) {
        const double folded = phi[h] + (double)dg_half_decode(correction[h]) * inv;
        phi[h] = folded;
        correction[h] = 0;
        const size_t w = 2 * h + p.colour;
        const int x = (int)(w % p.nx);
        const size_t t = w / p.nx;
        const int y = (int)(t % p.ny), z = (int)(t / p.ny);
        if (x < 1 || x > p.nx - 2 || y < 1 || y > p.ny - 2 || z < 1 || z > p.nz - 2) continue;
        const long long hh = (long long)h;
        double o[6];
#pragma unroll
        for (int k = 0; k < 6; ++k) {
            const long long i = hh + p.offset[k];
            o[k] = other_correction ? p.other[i] + (double)dg_half_decode(other_correction[i]) * inv
                                    : p.other[i];
        }
        /* dg_dense_residual's sum and expression, with phi[h] = folded */
        const bool salt = p.flag && (p.flag[h] & 1);
        double sum = o[0] + o[1] + o[2] + o[3] + o[4] + o[5];
        if (p.qmap && salt) sum += p.qmap[h];
        const double factor = salt ? p.factor1 : p.factor0;
        const double r = factor * sum - folded;
        p.rhs[h] = dg_rhs_encode((float)(r / factor), p.flag != NULL, salt);
    }
}

__global__ void dg_refine_fold_kernel(double *phi, dg_half16 *correction, size_t count,
                                      const dg_refine_scale *scale) {
    const double inv = scale->inv;
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < count;
         h += (size_t)gridDim.x * blockDim.x) {
        phi[h] += (double)dg_half_decode(correction[h]) * inv;
        correction[h] = 0;
    }
}

/* The step's scale: the largest |rhs| of both colours (refine_rhs.h), then the power of two
   (refine_half.h). */
__global__ void dg_refine_rhs_max_kernel(const dg_rhs16 *rhs0, size_t count0, const dg_rhs16 *rhs1,
                                         size_t count1, unsigned mask, dg_refine_scale *scale) {
    unsigned m = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count0 + count1;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned bits = dg_rhs_magnitude_bits(i < count0 ? rhs0[i] : rhs1[i - count0], mask);
        m = bits > m ? bits : m;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned o = __shfl_down_sync(0xffffffffu, m, offset);
        m = o > m ? o : m;
    }
    if ((threadIdx.x & 31) == 0 && m) atomicMax(&scale->max_bits, m);
}

__global__ void dg_refine_scale_kernel(dg_refine_scale *scale) {
    const float s = dg_half_scale(scale->max_bits);
    scale->scale = s;
    scale->inv = 1.0 / (double)s;
}

/* Max |value| of the sample (colour 1, half-indices 1, 1 + stride, ...): non-negative doubles
   order as their bit patterns, so an integer atomicMax gives the exact maximum. */
template <typename T>
__global__ void dg_sample_max_kernel(const T *even, size_t samples, int stride,
                                     unsigned long long *out) {
    double m = 0.0;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < samples;
         j += (size_t)gridDim.x * blockDim.x) {
        const double v = fabs((double)even[1 + j * (size_t)stride]);
        if (v > m) m = v; /* NaN is left out; the change reduction reports it */
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const double o = __shfl_down_sync(0xffffffffu, m, offset);
        m = o > m ? o : m;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(out, (unsigned long long)__double_as_longlong(m));
}

/* Full-grid slab (element type S) from full index w0 <-> the double half grids. */
template <typename S>
__global__ void dg_refine_split_kernel(double *half0, double *half1, const S *slab, size_t w0,
                                       size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = w0 + i;
        ((w & 1) ? half1 : half0)[w >> 1] = (double)slab[i];
    }
}

template <typename S>
__global__ void dg_refine_merge_kernel(S *slab, const double *half0, const double *half1, size_t w0,
                                       size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = w0 + i;
        slab[i] = (S)((w & 1) ? half1[w >> 1] : half0[w >> 1]);
    }
}

/* The lagged nonlinear source from the double iterate (the other precisions' formula). */
__global__ void dg_refine_source_kernel(double *qmap, const double *phi, const unsigned char *flag,
                                        size_t count, double scale, double chi0, double chi1,
                                        double chi2, double chi3) {
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < count;
         h += (size_t)gridDim.x * blockDim.x) {
        if (!(flag[h] & 1)) continue;
        const double v = phi[h], v2 = v * v;
        qmap[h] = v2 > 2500.0 ? 0.0 : scale * v2 * (chi0 + v * (chi1 + v * (chi2 + v * chi3)));
    }
}

int dg_cuda_refine_alloc(dg_cuda_state *st, dg_error *err) {
    if (!st->mixed) return DG_OK;
    const size_t points = st->half_count[0] + st->half_count[1];
    const size_t need = points * (sizeof(double) + sizeof(dg_rhs16));
    char what[200];
    snprintf(what, sizeof what, "mixed precision's double iterate and residual (%.1f MiB)",
             need / 1048576.0);
    int status = dg_cuda_check_free(st, need, what, err);
    if (status != DG_OK) return status;
    for (int c = 0; c < 2; ++c) {
        DG_CUDA_TRY(cudaMalloc((void **)&st->phi_d[c], st->half_count[c] * sizeof(double)),
                    "cudaMalloc (mixed precision: double iterate)");
        DG_CUDA_TRY(cudaMalloc((void **)&st->rhs[c], st->half_count[c] * sizeof(dg_rhs16)),
                    "cudaMalloc (mixed precision: residual)");
        DG_CUDA_TRY(
            cudaMemsetAsync(st->phi_d[c], 0, st->half_count[c] * sizeof(double), st->stream),
            "cudaMemsetAsync (mixed precision: double iterate)");
        DG_CUDA_TRY(
            cudaMemsetAsync(st->rhs[c], 0, st->half_count[c] * sizeof(dg_rhs16), st->stream),
            "cudaMemsetAsync (mixed precision: residual)");
    }
    DG_CUDA_TRY(cudaMalloc((void **)&st->refine_scale, sizeof(dg_refine_scale)),
                "cudaMalloc (mixed precision: the correction's scale)");
    const dg_refine_scale unit = {0u, 1.0f, 1.0};
    DG_CUDA_TRY(
        cudaMemcpyAsync(st->refine_scale, &unit, sizeof unit, cudaMemcpyHostToDevice, st->stream),
        "cudaMemcpyAsync (mixed precision: the correction's scale)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream),
                "the correction's scale (cudaStreamSynchronize)");
    st->medium_bytes += need;
    return DG_OK;
}

void dg_cuda_refine_free(dg_cuda_state *st) {
    for (int c = 0; c < 2; ++c) {
        cudaFree(st->phi_d[c]), cudaFree(st->qmap_d[c]), cudaFree(st->rhs[c]);
        st->phi_d[c] = NULL, st->qmap_d[c] = NULL, st->rhs[c] = NULL;
    }
    cudaFree(st->refine_scale);
    st->refine_scale = NULL;
}

/* The new step's scale from its right-hand side (after the residual's kernels). */
static int set_scale(dg_cuda_state *st, dg_error *err) {
    DG_CUDA_TRY(cudaMemsetAsync(&st->refine_scale->max_bits, 0, sizeof(unsigned), st->stream),
                "cudaMemsetAsync (mixed precision: the correction's scale)");
    const size_t count = st->half_count[0] + st->half_count[1];
    dg_refine_rhs_max_kernel<<<refine_blocks(st, count), REFINE_THREADS, 0, st->stream>>>(
        st->rhs[0], st->half_count[0], st->rhs[1], st->half_count[1],
        dg_rhs_value_mask(st->has_salt), st->refine_scale);
    DG_CUDA_LAUNCHED("rhs maximum kernel (mixed precision)");
    dg_refine_scale_kernel<<<1, 1, 0, st->stream>>>(st->refine_scale);
    DG_CUDA_LAUNCHED("scale kernel (mixed precision)");
    return DG_OK;
}

int dg_cuda_refine_split(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err) {
    const unsigned blocks = refine_blocks(st, count);
    if (is_double)
        dg_refine_split_kernel<double><<<blocks, REFINE_THREADS, 0, st->stream>>>(
            st->phi_d[0], st->phi_d[1], static_cast<const double *>(st->staging), w0, count);
    else
        dg_refine_split_kernel<float><<<blocks, REFINE_THREADS, 0, st->stream>>>(
            st->phi_d[0], st->phi_d[1], static_cast<const float *>(st->staging), w0, count);
    DG_CUDA_LAUNCHED("split kernel (mixed precision)");
    return DG_OK;
}

int dg_cuda_refine_merge(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err) {
    const unsigned blocks = refine_blocks(st, count);
    if (is_double)
        dg_refine_merge_kernel<double><<<blocks, REFINE_THREADS, 0, st->stream>>>(
            static_cast<double *>(st->staging), st->phi_d[0], st->phi_d[1], w0, count);
    else
        dg_refine_merge_kernel<float><<<blocks, REFINE_THREADS, 0, st->stream>>>(
            static_cast<float *>(st->staging), st->phi_d[0], st->phi_d[1], w0, count);
    DG_CUDA_LAUNCHED("merge kernel (mixed precision)");
    return DG_OK;
}

int dg_cuda_refine_after_load(dg_cuda_state *st, dg_error *err) {
    /* Refinement from the loaded iterate: the correction e = 0 (also its list values), no
       nonlinear source yet, the sources in the residual (scaled to 0 in the sweeps). */
    for (int c = 0; c < 2; ++c) {
        DG_CUDA_TRY(
            cudaMemsetAsync(st->phi[c], 0, st->half_count[c] * sizeof(dg_half16), st->stream),
            "cudaMemsetAsync (mixed precision: correction)");
        if (st->qmap_d[c])
            DG_CUDA_TRY(
                cudaMemsetAsync(st->qmap_d[c], 0, st->half_count[c] * sizeof(double), st->stream),
                "cudaMemsetAsync (mixed precision: nonlinear source)");
    }
    const dg_cuda_sparse *sp = &st->sparse[1];
    if (sp->total_count > 0)
        DG_CUDA_TRY(
            cudaMemsetAsync(sp->last, 0, (size_t)sp->total_count * sizeof(float), st->stream),
            "cudaMemsetAsync (mixed precision: list values)");
    st->refine_pending = 0;
    int status = dg_cuda_wrap_iterate(st, err); /* periodic axes */
    if (status == DG_OK) status = dg_cuda_launch_rescale(st, err);
    if (status != DG_OK) return status;
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "load_phi, mixed (cudaStreamSynchronize)");
    return DG_OK;
}

/* The residual's parameters for colour c. */
static dg_refine_params refine_params(const dg_cuda_state *st, int c) {
    dg_refine_params p;
    p.rhs = st->rhs[c];
    p.phi = st->phi_d[c], p.other = st->phi_d[1 - c];
    p.qmap = st->nonlinear_active ? st->qmap_d[c] : NULL;
    p.flag = st->has_salt ? st->flag[c] : NULL;
    for (int f = 0; f < 6; ++f)
        p.offset[f] = st->offsets[c][f];
    p.nx = st->nx, p.ny = st->ny, p.nz = st->nz, p.colour = c;
    p.count = st->half_count[c];
    p.factor0 = st->factor[0], p.factor1 = st->factor[1];
    p.scale = st->refine_scale;
    return p;
}

/* The list points' residuals (after the dense ones of colour c: they overwrite those points). */
static int list_residual(dg_cuda_state *st, const dg_refine_params &p, int c, dg_error *err) {
    const dg_cuda_sparse *sp = &st->sparse[c];
    if (sp->total_count == 0) return DG_OK;
    dg_refine_list_kernel<<<refine_blocks(st, sp->total_count), REFINE_THREADS, 0, st->stream>>>(
        p, sp->index, sp->weight_raw, sp->source_raw, sp->boundary_count, sp->total_count);
    DG_CUDA_LAUNCHED("list residual kernel (mixed precision)");
    return DG_OK;
}

/* After a fold the correction is 0 everywhere, so its sparse list values are 0 again. */
static int clear_list_values(dg_cuda_state *st, dg_error *err) {
    const dg_cuda_sparse *sp = &st->sparse[1];
    if (sp->total_count > 0)
        DG_CUDA_TRY(
            cudaMemsetAsync(sp->last, 0, (size_t)sp->total_count * sizeof(float), st->stream),
            "cudaMemsetAsync (mixed precision: list values)");
    return DG_OK;
}

int dg_cuda_refine_fold_residual(dg_cuda_state *st, dg_error *err) {
    if (st->refine_pending == 0) return dg_cuda_refine_residual(st, err);
    st->refine_pending = 0;
    for (int c = 0; c < 2; ++c) {
        const dg_refine_params p = refine_params(st, c);
        dg_refine_fold_residual_kernel<<<refine_blocks(st, p.count), REFINE_THREADS, 0,
                                         st->stream>>>(
            p, st->phi_d[c], static_cast<dg_half16 *>(st->phi[c]),
            c == 0 ? static_cast<const dg_half16 *>(st->phi[1]) : NULL);
        DG_CUDA_LAUNCHED("fold and residual kernel (mixed precision)");
    }
    for (int c = 0; c < 2; ++c) { /* every value folded now */
        const int status = list_residual(st, refine_params(st, c), c, err);
        if (status != DG_OK) return status;
    }
    const int status = set_scale(st, err);
    return status != DG_OK ? status : clear_list_values(st, err);
}

int dg_cuda_refine_residual(dg_cuda_state *st, dg_error *err) {
    for (int c = 0; c < 2; ++c) {
        const dg_refine_params p = refine_params(st, c);
        dg_refine_residual_kernel<<<refine_blocks(st, p.count), REFINE_THREADS, 0, st->stream>>>(p);
        DG_CUDA_LAUNCHED("residual kernel (mixed precision)");
        const int status = list_residual(st, p, c, err);
        if (status != DG_OK) return status;
    }
    return set_scale(st, err);
}

int dg_cuda_refine_fold(dg_cuda_state *st, dg_error *err) {
    if (st->refine_pending == 0) return DG_OK;
    st->refine_pending = 0;
    for (int c = 0; c < 2; ++c) {
        dg_refine_fold_kernel<<<refine_blocks(st, st->half_count[c]), REFINE_THREADS, 0,
                                st->stream>>>(st->phi_d[c], static_cast<dg_half16 *>(st->phi[c]),
                                              st->half_count[c], st->refine_scale);
        DG_CUDA_LAUNCHED("fold kernel (mixed precision)");
    }
    return clear_list_values(st, err);
}

int dg_cuda_refine_nonlinear_source(dg_cuda_state *st, double fraction, dg_error *err) {
    int status = dg_cuda_refine_fold(st, err); /* from the whole iterate */
    if (status != DG_OK) return status;
    if (!st->qmap_d[0] || !st->qmap_d[1]) {
        const size_t need = (st->half_count[0] + st->half_count[1]) * sizeof(double);
        status = dg_cuda_check_free(st, need, "the nonlinear source (mixed precision)", err);
        if (status != DG_OK) return status;
        for (int c = 0; c < 2; ++c) {
            DG_CUDA_TRY(cudaMalloc((void **)&st->qmap_d[c], st->half_count[c] * sizeof(double)),
                        "cudaMalloc (mixed precision: nonlinear source)");
            DG_CUDA_TRY(
                cudaMemsetAsync(st->qmap_d[c], 0, st->half_count[c] * sizeof(double), st->stream),
                "cudaMemsetAsync (mixed precision: nonlinear source)");
        }
        st->medium_bytes += need;
    }
    const double scale = fraction * st->nonlinear_coefficient;
    for (int c = 0; c < 2; ++c) {
        const size_t n = st->half_count[c];
        dg_refine_source_kernel<<<refine_blocks(st, n), REFINE_THREADS, 0, st->stream>>>(
            st->qmap_d[c], st->phi_d[c], st->flag[c], n, scale, st->chi[0], st->chi[1], st->chi[2],
            st->chi[3]);
        DG_CUDA_LAUNCHED("nonlinear source kernel (mixed precision)");
    }
    return DG_OK;
}

int dg_cuda_sample_max_launch(dg_cuda_state *st, int stride, dg_error *err) {
    if (!st->sample_max)
        DG_CUDA_TRY(cudaMalloc((void **)&st->sample_max, sizeof(unsigned long long)),
                    "cudaMalloc (sample maximum)");
    DG_CUDA_TRY(cudaMemsetAsync(st->sample_max, 0, sizeof(unsigned long long), st->stream),
                "cudaMemsetAsync (sample maximum)");
    const size_t samples = st->half_count[1] >= 2 ? (st->half_count[1] - 2) / stride + 1 : 0;
    if (samples == 0) return DG_OK;
    dg_sample_max_kernel<float><<<refine_blocks(st, samples), REFINE_THREADS, 0, st->stream>>>(
        static_cast<const float *>(st->phi[1]), samples, stride, st->sample_max);
    DG_CUDA_LAUNCHED("sample maximum kernel");
    return DG_OK;
}

int dg_cuda_sample_max_read(dg_cuda_state *st, double *value, dg_error *err) {
    unsigned long long bits = 0;
    DG_CUDA_TRY(
        cudaMemcpyAsync(&bits, st->sample_max, sizeof bits, cudaMemcpyDeviceToHost, st->stream),
        "cudaMemcpyAsync (sample maximum)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "sample maximum (cudaStreamSynchronize)");
    memcpy(value, &bits, sizeof *value);
    return DG_OK;
}
