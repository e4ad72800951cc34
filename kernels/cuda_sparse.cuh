/* Sparse corrections of one colour after its sweep: at dielectric-boundary points
 * phi += sum_f (omega w_f) * neighbour_f, then at charged points phi += omega * source.  One
 * thread per list entry; the lists are merged per point on upload (boundary entries carry the
 * point's source, 0 if none, charge-only entries follow), so no two threads touch one point and
 * the arithmetic order is the CPU backend's: (phi + correction) + source.
 *
 * Positions, weights and sources come either through the read-only data path or through 1D
 * texture objects (TEXTURE); docs/PERFORMANCE.md records which is faster.
 *
 * Colour 1 (the convergence sample's colour) keeps each point's value after its correction in
 * `last`; in the measured iteration the change of a sampled list point is value - last, and the
 * sweep skips these points (flag bit 1), so every sampled point is counted exactly once. */
#ifndef DG_CUDA_SPARSE_CUH
#define DG_CUDA_SPARSE_CUH

#include "cuda_reduce.cuh"

template <typename T> struct dg_sparse_params {
    T *cur;
    const T *other;
    int boundary_count, total_count;
    const int *index;
    const T *weight;
    const T *source;
    T *last;
    int offset[6]; /* neighbour offsets into `other`: x-, x+, y-, y+, z-, z+ */
    cudaTextureObject_t tex_index, tex_weight, tex_source;
    int stride;
    dg_cuda_partial *partials;
};

template <typename T> __device__ __forceinline__ T dg_fetch_real(cudaTextureObject_t t, int i);
template <> __device__ __forceinline__ float dg_fetch_real<float>(cudaTextureObject_t t, int i) {
    return tex1Dfetch<float>(t, i);
}
template <> __device__ __forceinline__ double dg_fetch_real<double>(cudaTextureObject_t t, int i) {
    const int2 v = tex1Dfetch<int2>(t, i);
    return __hiloint2double(v.y, v.x);
}

template <typename T, bool TEXTURE, bool TRACK_LAST, bool MEASURE>
__global__ void dg_sparse_kernel(const dg_sparse_params<T> p) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    dg_change_acc acc = {0.0, 0.0, 0};
    if (k < p.total_count) {
        const int h = TEXTURE ? tex1Dfetch<int>(p.tex_index, k) : __ldg(p.index + k);
        T value = p.cur[h];
        if (k < p.boundary_count) {
            T w[6];
#pragma unroll
            for (int f = 0; f < 6; ++f)
                w[f] = TEXTURE ? dg_fetch_real<T>(p.tex_weight, 6 * k + f)
                               : __ldg(p.weight + 6 * k + f);
            const T *const nb = p.other + h;
            const T correction = w[0] * __ldg(nb + p.offset[0]) + w[1] * __ldg(nb + p.offset[1]) +
                                 w[2] * __ldg(nb + p.offset[2]) + w[3] * __ldg(nb + p.offset[3]) +
                                 w[4] * __ldg(nb + p.offset[4]) + w[5] * __ldg(nb + p.offset[5]);
            value = value + correction;
        }
        value = value + (TEXTURE ? dg_fetch_real<T>(p.tex_source, k) : __ldg(p.source + k));
        p.cur[h] = value;
        if (TRACK_LAST) {
            if (MEASURE && (p.stride == 1 || (unsigned)(h - 1) % (unsigned)p.stride == 0))
                dg_acc_add(acc, (double)value - (double)p.last[k]);
            p.last[k] = value;
        }
    }
    if (MEASURE) dg_block_reduce_store(acc, p.partials + blockIdx.x);
}

#endif /* DG_CUDA_SPARSE_CUH */
