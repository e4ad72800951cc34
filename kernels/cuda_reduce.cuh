/* On-device reduction of the convergence change: every block of the measured
 * iteration writes one partial (max |delta|, sum delta^2 in double, non-finite count); one
 * small kernel folds the partials in a fixed order, so the result does not depend on timing,
 * and only that one struct crosses to the host. */
#ifndef DG_CUDA_REDUCE_CUH
#define DG_CUDA_REDUCE_CUH

#include "cuda_internal.cuh"

struct dg_change_acc {
    double max_abs;
    double sum_sq;
    int nonfinite;
};

/* The CPU backend's rules: a NaN delta leaves the max alone, makes the sum NaN, and counts as
   non-finite. */
__device__ __forceinline__ void dg_acc_add(dg_change_acc &a, double delta) {
    if (!isfinite(delta)) a.nonfinite++;
    const double m = fabs(delta);
    a.max_abs = m > a.max_abs ? m : a.max_abs;
    a.sum_sq += delta * delta;
}

__device__ __forceinline__ void dg_acc_merge(dg_change_acc &a, double max_abs, double sum_sq,
                                             int nonfinite) {
    a.max_abs = max_abs > a.max_abs ? max_abs : a.max_abs;
    a.sum_sq += sum_sq;
    a.nonfinite += nonfinite;
}

/* Reduce one accumulator per thread over the whole block (any size up to 1024, 1D or 2D) and
   store it in *out from thread 0.  Every thread of the block must call it. */
__device__ inline void dg_block_reduce_store(dg_change_acc a, dg_cuda_partial *out) {
    __shared__ double warp_max[32], warp_sum[32];
    __shared__ int warp_nonfinite[32];
    const int threads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    const int active = min(32, threads - warp * 32);
    const unsigned mask = active == 32 ? 0xffffffffu : ((1u << active) - 1u);
    for (int offset = 16; offset > 0; offset >>= 1) {
        const double m = __shfl_down_sync(mask, a.max_abs, offset);
        const double s = __shfl_down_sync(mask, a.sum_sq, offset);
        const int n = __shfl_down_sync(mask, a.nonfinite, offset);
        if (lane + offset < active) dg_acc_merge(a, m, s, n);
    }
    if (lane == 0) {
        warp_max[warp] = a.max_abs;
        warp_sum[warp] = a.sum_sq;
        warp_nonfinite[warp] = a.nonfinite;
    }
    __syncthreads();
    if (tid == 0) {
        dg_change_acc total = {0.0, 0.0, 0};
        for (int w = 0; w < (threads + 31) / 32; ++w)
            dg_acc_merge(total, warp_max[w], warp_sum[w], warp_nonfinite[w]);
        out->max_abs = total.max_abs;
        out->sum_sq = total.sum_sq;
        out->nonfinite = total.nonfinite;
        out->pad = 0;
    }
}

/* Fold count partials into *result; one block, fixed order. */
static __global__ void dg_final_reduce_kernel(const dg_cuda_partial *partials, int count,
                                              dg_cuda_partial *result) {
    dg_change_acc a = {0.0, 0.0, 0};
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        dg_acc_merge(a, partials[i].max_abs, partials[i].sum_sq, partials[i].nonfinite);
    dg_block_reduce_store(a, result);
}

#endif /* DG_CUDA_REDUCE_CUH */
