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
 * sweep skips these points (flag bit 1), so every sampled point is counted exactly once.
 *
 * V is the stored type: T, or binary16 for mixed's correction (refine_half.h: the value times
 * the step's scale; its sources are 0 and are left out, as on the CPU backend; `last` holds the
 * stored values as float and the change is divided by the scale). */
#ifndef DG_CUDA_SPARSE_CUH
#define DG_CUDA_SPARSE_CUH

#include "cuda_reduce.cuh"

template <typename T> struct dg_sparse_params {
    void *cur;
    const void *other;
    int boundary_count, total_count;
    const int *index;
    const T *weight;
    const T *source;
    T *last;
    int offset[6]; /* neighbour offsets into `other`: x-, x+, y-, y+, z-, z+ */
    cudaTextureObject_t tex_index, tex_weight, tex_source;
    int stride;
    dg_cuda_partial *partials;
    const dg_refine_scale *scale; /* V = binary16: the step's scale */
};

template <typename T> __device__ __forceinline__ T dg_fetch_real(cudaTextureObject_t t, int i);
template <> __device__ __forceinline__ float dg_fetch_real<float>(cudaTextureObject_t t, int i) {
    return tex1Dfetch<float>(t, i);
}
template <> __device__ __forceinline__ double dg_fetch_real<double>(cudaTextureObject_t t, int i) {
    const int2 v = tex1Dfetch<int2>(t, i);
    return __hiloint2double(v.y, v.x);
}

template <typename T, bool TEXTURE, bool TRACK_LAST, bool MEASURE, typename V>
__global__ void dg_sparse_kernel(const dg_sparse_params<T> p) {
    constexpr bool half = sizeof(V) == sizeof(dg_half16);
    V *const cur = static_cast<V *>(p.cur);
    const V *const other = static_cast<const V *>(p.other);
    auto value_at = [](V v) -> T {
        if constexpr (half)
            return (T)dg_half_decode(v);
        else
            return v;
    };
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    dg_change_acc acc = {0.0, 0.0, 0};
    if (k < p.total_count) {
        const int h = TEXTURE ? tex1Dfetch<int>(p.tex_index, k) : __ldg(p.index + k);
        T value = value_at(cur[h]);
        if (k < p.boundary_count) {
            T w[6];
#pragma unroll
            for (int f = 0; f < 6; ++f)
                w[f] = TEXTURE ? dg_fetch_real<T>(p.tex_weight, 6 * k + f)
                               : __ldg(p.weight + 6 * k + f);
            const V *const nb = other + h;
            const T correction = w[0] * value_at(__ldg(nb + p.offset[0])) +
                                 w[1] * value_at(__ldg(nb + p.offset[1])) +
                                 w[2] * value_at(__ldg(nb + p.offset[2])) +
                                 w[3] * value_at(__ldg(nb + p.offset[3])) +
                                 w[4] * value_at(__ldg(nb + p.offset[4])) +
                                 w[5] * value_at(__ldg(nb + p.offset[5]));
            value = value + correction;
        }
        if constexpr (!half)
            value = value + (TEXTURE ? dg_fetch_real<T>(p.tex_source, k) : __ldg(p.source + k));
        V stored;
        if constexpr (half) {
            stored = dg_half_encode((float)value);
            value = (T)dg_half_decode(stored);
        } else {
            stored = value;
        }
        cur[h] = stored;
        if (TRACK_LAST) {
            if (MEASURE && (p.stride == 1 || (unsigned)(h - 1) % (unsigned)p.stride == 0)) {
                double delta = (double)value - (double)p.last[k];
                if constexpr (half) delta = delta * __ldg(&p.scale->inv);
                dg_acc_add(acc, delta);
            }
            p.last[k] = value;
        }
    }
    if (MEASURE) dg_block_reduce_store(acc, p.partials + blockIdx.x);
}

#endif /* DG_CUDA_SPARSE_CUH */
