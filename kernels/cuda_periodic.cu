/* Periodic axes on the CUDA backend (prepared.h): after each colour's sweep and corrections the
 * seam steps, which also wrap the other colour's faces, the CPU backend's arithmetic in the same
 * order; and the wrapped face values for store_phi. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.cuh"
#include "cuda_sweep.cuh" /* dg_stored_value, dg_store_value */

#define WRAP_THREADS 256

void dg_cuda_wrap_setup(dg_cuda_state *st, const dg_prepared *p) {
    st->periodic = p->periodic;
    st->wrap_pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    st->wrap_blocks = (int)((st->wrap_pairs + WRAP_THREADS - 1) / WRAP_THREADS);
    st->seam_steps = p->periodic ? p->seam_steps : 0;
    memcpy(st->seam_start, p->seam_start, sizeof st->seam_start);
}

int dg_cuda_wrap_alloc(dg_cuda_state *st, const dg_prepared *p, dg_error *err) {
    if (st->wrap_pairs == 0) return DG_OK;
    const size_t bytes = 2 * (size_t)st->wrap_pairs * sizeof(double);
    DG_CUDA_TRY(cudaMalloc((void **)&st->wrap_values, bytes), "cudaMalloc (periodic faces)");
    st->wrap_host = static_cast<double *>(malloc(bytes));
    if (!st->wrap_host)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory (periodic faces)");
    for (int c = 0; c < 2; ++c) {
        const size_t n = (size_t)st->seam_start[c][st->seam_steps];
        DG_CUDA_TRY(cudaMalloc((void **)&st->seam_index[c], (n + 1) * sizeof(int)),
                    "cudaMalloc (seam list)");
        DG_CUDA_TRY(cudaMalloc((void **)&st->seam_axes[c], n + 1), "cudaMalloc (seam list)");
        DG_CUDA_TRY(cudaMalloc((void **)&st->seam_coef_raw[c], (3 * n + 1) * sizeof(double)),
                    "cudaMalloc (seam coefficients)");
        DG_CUDA_TRY(cudaMalloc(&st->seam_coef[c], (3 * n + 1) * st->es),
                    "cudaMalloc (seam coefficients)");
        int status = dg_cuda_upload(st, st->seam_index[c], p->seam_index[c], n * sizeof(int), err);
        if (status == DG_OK) status = dg_cuda_upload(st, st->seam_axes[c], p->seam_axes[c], n, err);
        if (status == DG_OK)
            status = dg_cuda_upload(st, st->seam_coef_raw[c], p->seam_coef[c],
                                    3 * n * sizeof(double), err);
        if (status != DG_OK) return status;
    }
    return DG_OK;
}

void dg_cuda_wrap_free(dg_cuda_state *st) {
    cudaFree(st->wrap_values), free(st->wrap_host);
    st->wrap_values = NULL, st->wrap_host = NULL;
    for (int c = 0; c < 2; ++c) {
        cudaFree(st->seam_index[c]), cudaFree(st->seam_axes[c]);
        cudaFree(st->seam_coef_raw[c]), cudaFree(st->seam_coef[c]);
        st->seam_index[c] = NULL, st->seam_axes[c] = NULL;
        st->seam_coef_raw[c] = NULL, st->seam_coef[c] = NULL;
    }
    st->periodic = 0, st->wrap_pairs = 0, st->wrap_blocks = 0, st->seam_steps = 0;
}

/* Step entries [first, end) of colour c: each seam point takes, axis by axis, its face
   neighbour's image value into that face and the change times its coefficient into itself;
   then, final, gives its value to the face points n-1 whose image it is (the CPU backend's
   seams, the same arithmetic in the same order).  The half grids hold V; mixed precision's
   correction is binary16 (V = dg_half16, T = float), each update rounded as the sweep's. */
template <typename T, typename V>
__global__ void dg_seam_kernel(V *phi, V *other, const int *index, const unsigned char *axes,
                               const T *coef, int first, int end, int colour, int nx, int ny,
                               int nz) {
    const int e = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= end) return;
    const long h = index[e], w = 2 * h + colour;
    T v = dg_stored_value<T>(phi[h]);
    for (int a = 0; a < 3; ++a) {
        if (!((axes[e] >> a) & 1u)) continue;
        int n;
        long step;
        dg_axis_step(nx, ny, nz, a, &step, &n);
        const long face = (w - step) >> 1;
        const V image = phi[(w + (long)(n - 3) * step) >> 1];
        const T delta = dg_stored_value<T>(image) - dg_stored_value<T>(other[face]);
        other[face] = image;
        v = v + coef[3 * e + a] * delta;
    }
    const V stored = dg_store_value<V>(v);
    phi[h] = stored;
    /* final now: the image of the other colour's face point n-1 along each seam axis */
    for (int a = 0; a < 3; ++a) {
        if (!((axes[e] >> a) & 1u)) continue;
        int n;
        long step;
        dg_axis_step(nx, ny, nz, a, &step, &n);
        other[(w + (long)(n - 2) * step) >> 1] = stored;
    }
}

template <typename T, typename V> static void periodic_launch(dg_cuda_state *st, int c) {
    V *phi = static_cast<V *>(st->phi[c]), *other = static_cast<V *>(st->phi[1 - c]);
    for (int k = 1; k <= st->seam_steps; ++k) {
        const int first = st->seam_start[c][k - 1], end = st->seam_start[c][k];
        if (end > first)
            dg_seam_kernel<T, V>
                <<<(end - first + WRAP_THREADS - 1) / WRAP_THREADS, WRAP_THREADS, 0, st->stream>>>(
                    phi, other, st->seam_index[c], st->seam_axes[c],
                    static_cast<const T *>(st->seam_coef[c]), first, end, c, st->nx, st->ny,
                    st->nz);
    }
}

int dg_cuda_launch_periodic(dg_cuda_state *st, int colour, dg_error *err) {
    if (!st->periodic || st->wrap_pairs == 0) return DG_OK;
    if (st->mixed)
        periodic_launch<float, dg_half16>(st, colour);
    else if (st->is_float)
        periodic_launch<float, float>(st, colour);
    else
        periodic_launch<double, double>(st, colour);
    DG_CUDA_LAUNCHED("periodic seam and wrap kernels");
    return DG_OK;
}

/* out[2k], out[2k + 1]: the values of pair k's points on faces 0 and n-1, in double. */
template <typename T>
__global__ void dg_wrap_gather_kernel(const T *half0, const T *half1, int nx, int ny, int nz,
                                      int periodic, long pairs, double *out) {
    const long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (k >= pairs) return;
    long face[2], image[2];
    dg_wrap_pair_points(nx, ny, nz, periodic, k, face, image);
    const T *half = (face[0] & 1) ? half1 : half0; /* the pair's points share a colour */
    out[2 * k] = (double)half[face[0] >> 1];
    out[2 * k + 1] = (double)half[face[1] >> 1];
}

/* Each face point of a pair takes its image's value (the images are interior points): mixed
   precision's double iterate after load_phi, so that the residual sees the periodic neighbours
   (the CPU backend's dg_cpu_refine_wrap), and Newton's potential in the working precision. */
template <typename T>
__global__ void dg_wrap_halves_kernel(T *half0, T *half1, int nx, int ny, int nz, int periodic,
                                      long pairs) {
    const long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (k >= pairs) return;
    long face[2], image[2];
    dg_wrap_pair_points(nx, ny, nz, periodic, k, face, image);
    T *faces = (face[0] & 1) ? half1 : half0, *images = (face[0] & 1) ? half0 : half1;
    faces[face[0] >> 1] = images[image[0] >> 1];
    faces[face[1] >> 1] = images[image[1] >> 1];
}

int dg_cuda_wrap_iterate(dg_cuda_state *st, dg_error *err) {
    if (!st->periodic || st->wrap_pairs == 0) return DG_OK;
    dg_wrap_halves_kernel<double><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
        st->phi_d[0], st->phi_d[1], st->nx, st->ny, st->nz, st->periodic, st->wrap_pairs);
    DG_CUDA_LAUNCHED("periodic face wrap kernel (mixed precision)");
    return DG_OK;
}

int dg_cuda_wrap_phi(dg_cuda_state *st, dg_error *err) {
    if (!st->periodic || st->wrap_pairs == 0) return DG_OK;
    if (st->is_float)
        dg_wrap_halves_kernel<float><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
            static_cast<float *>(st->phi[0]), static_cast<float *>(st->phi[1]), st->nx, st->ny,
            st->nz, st->periodic, st->wrap_pairs);
    else
        dg_wrap_halves_kernel<double><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
            static_cast<double *>(st->phi[0]), static_cast<double *>(st->phi[1]), st->nx, st->ny,
            st->nz, st->periodic, st->wrap_pairs);
    DG_CUDA_LAUNCHED("periodic face wrap kernel");
    return DG_OK;
}

int dg_cuda_store_wrapped_faces(dg_cuda_state *st, void *phi, int is_double, dg_error *err) {
    if (!st->periodic || st->wrap_pairs == 0) return DG_OK;
    if (st->mixed) /* the double iterate */
        dg_wrap_gather_kernel<double><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
            st->phi_d[0], st->phi_d[1], st->nx, st->ny, st->nz, st->periodic, st->wrap_pairs,
            st->wrap_values);
    else if (st->is_float)
        dg_wrap_gather_kernel<float><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
            static_cast<const float *>(st->phi[0]), static_cast<const float *>(st->phi[1]), st->nx,
            st->ny, st->nz, st->periodic, st->wrap_pairs, st->wrap_values);
    else
        dg_wrap_gather_kernel<double><<<st->wrap_blocks, WRAP_THREADS, 0, st->stream>>>(
            static_cast<const double *>(st->phi[0]), static_cast<const double *>(st->phi[1]),
            st->nx, st->ny, st->nz, st->periodic, st->wrap_pairs, st->wrap_values);
    DG_CUDA_LAUNCHED("periodic face gather kernel");
    DG_CUDA_TRY(cudaMemcpyAsync(st->wrap_host, st->wrap_values,
                                2 * (size_t)st->wrap_pairs * sizeof(double), cudaMemcpyDeviceToHost,
                                st->stream),
                "cudaMemcpyAsync (periodic faces to the host)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "store_phi (periodic faces)");
    for (long k = 0; k < st->wrap_pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(st->nx, st->ny, st->nz, st->periodic, k, face, image);
        for (int i = 0; i < 2; ++i) {
            if (is_double)
                static_cast<double *>(phi)[face[i]] = st->wrap_host[2 * k + i];
            else
                static_cast<float *>(phi)[face[i]] = (float)st->wrap_host[2 * k + i];
        }
    }
    return DG_OK;
}
