/* Small kernels around the sweeps: the nonlinear source, omega scaling of the lists, sparse
 * marks, and the full-grid <-> half-grid conversion of load_phi/store_phi.  All use grid-stride
 * loops so one modest launch covers any size. */
#ifndef DG_CUDA_AUX_KERNELS_CUH
#define DG_CUDA_AUX_KERNELS_CUH

#include <stdint.h>

/* Lagged nonlinear source at salt points (flag bit 0): the CPU backend's formula in double,
   rounded to T; zero where phi^2 > 2500.  Points without salt keep 0.  Face points get a value
   too, which no sweep reads (the CPU backend skips them; the interior is identical). */
template <typename T>
__global__ void dg_nonlinear_source_kernel(T *qmap, const T *phi, const unsigned char *flag,
                                           size_t count, double scale, double chi0, double chi1,
                                           double chi2, double chi3) {
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < count;
         h += (size_t)gridDim.x * blockDim.x) {
        if (!(flag[h] & 1)) continue;
        const double v = (double)phi[h], v2 = v * v;
        qmap[h] =
            v2 > 2500.0 ? (T)0 : (T)(scale * v2 * (chi0 + v * (chi1 + v * (chi2 + v * chi3))));
    }
}

/* scaled[i] = (T)(omega * raw[i]), as the CPU backend rounds its omega-scaled lists. */
template <typename T>
__global__ void dg_rescale_kernel(T *scaled, const double *raw, size_t count, double omega) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        scaled[i] = (T)(omega * raw[i]);
}

__global__ void dg_mark_sparse_kernel(unsigned char *flag, const int *index, int count) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        flag[index[k]] |= 2;
}

template <typename T>
__global__ void dg_gather_kernel(T *out, const T *phi, const int *index, int count) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        out[k] = phi[index[k]];
}

/* Full-grid slab (element type S) starting at full index w0 -> half grids (type T). */
template <typename T, typename S>
__global__ void dg_split_kernel(T *half0, T *half1, const S *slab, size_t w0, size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = w0 + i;
        T *const half = (w & 1) ? half1 : half0;
        half[w >> 1] = (T)slab[i];
    }
}

/* Half grids -> full-grid slab (element type S). */
template <typename T, typename S>
__global__ void dg_merge_kernel(S *slab, const T *half0, const T *half1, size_t w0, size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = w0 + i;
        slab[i] = (S)((w & 1) ? half1[w >> 1] : half0[w >> 1]);
    }
}

#endif /* DG_CUDA_AUX_KERNELS_CUH */
