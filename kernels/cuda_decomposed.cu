/* The backend ops of a domain-decomposed iteration (backend.h): plane copies for the halo
 * exchange and a convergence sample at an arbitrary offset and stride.  The half iteration
 * itself is dg_cuda_launch_colour (cuda_launch.cu). */
#include <math.h>
#include <stdlib.h>

#include "cuda_internal.cuh"

#define SAMPLE_THREADS 256
#define SAMPLE_BLOCKS  1024

template <typename T>
__global__ void sample_snapshot_kernel(const T *half, long first, long stride, long count,
                                       T *snap) {
    for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < count;
         j += (long)gridDim.x * blockDim.x)
        snap[j] = half[first + j * stride];
}

template <typename T>
__global__ void sample_delta_kernel(const T *half, long first, long stride, long count,
                                    const T *snap, dg_cuda_partial *partials) {
    __shared__ double max_s[SAMPLE_THREADS], sum_s[SAMPLE_THREADS];
    __shared__ int bad_s[SAMPLE_THREADS];
    double mx = 0.0, sum = 0.0;
    int bad = 0;
    for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < count;
         j += (long)gridDim.x * blockDim.x) {
        const double d = (double)half[first + j * stride] - (double)snap[j];
        if (!isfinite(d)) ++bad;
        const double a = fabs(d);
        mx = a > mx ? a : mx;
        sum += d * d;
    }
    max_s[threadIdx.x] = mx, sum_s[threadIdx.x] = sum, bad_s[threadIdx.x] = bad;
    __syncthreads();
    for (int half_width = blockDim.x / 2; half_width > 0; half_width /= 2) {
        if (threadIdx.x < half_width) {
            const int o = threadIdx.x + half_width;
            max_s[threadIdx.x] = fmax(max_s[threadIdx.x], max_s[o]);
            sum_s[threadIdx.x] += sum_s[o];
            bad_s[threadIdx.x] += bad_s[o];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x].max_abs = max_s[0];
        partials[blockIdx.x].sum_sq = sum_s[0];
        partials[blockIdx.x].nonfinite = bad_s[0];
        partials[blockIdx.x].pad = 0;
    }
}

void dg_cuda_free_sample(dg_cuda_state *st) {
    cudaFree(st->sample);
    cudaFree(st->sample_partials);
    cudaFreeHost(st->sample_partials_host);
    st->sample = NULL, st->sample_partials = NULL, st->sample_partials_host = NULL;
    st->sample_capacity = 0, st->sample_partial_capacity = 0;
}

int dg_cuda_plane_values(dg_cuda_state *st, int z, int colour, void *buf, int to_backend,
                         dg_error *err) {
    if (z < 0 || z >= st->nz || colour < 0 || colour > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CUDA backend: plane %d colour %d", z,
                            colour);
    long first, end;
    dg_plane_range(st->nx, st->ny, z, colour, &first, &end);
    char *half = static_cast<char *>(st->phi[colour]) + (size_t)first * st->es;
    const size_t bytes = (size_t)(end - first) * st->es;
    if (to_backend)
        DG_CUDA_TRY(cudaMemcpyAsync(half, buf, bytes, cudaMemcpyHostToDevice, st->stream),
                    "cudaMemcpyAsync (halo plane to the device)");
    else
        DG_CUDA_TRY(cudaMemcpyAsync(buf, half, bytes, cudaMemcpyDeviceToHost, st->stream),
                    "cudaMemcpyAsync (halo plane from the device)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize (halo plane)");
    return DG_OK;
}

template <typename T>
static int sample(dg_cuda_state *st, int colour, long first, long stride, long count, int snapshot,
                  dg_change *change, dg_error *err) {
    const T *half = static_cast<const T *>(st->phi[colour]);
    long blocks = (count + SAMPLE_THREADS - 1) / SAMPLE_THREADS;
    if (blocks > SAMPLE_BLOCKS) blocks = SAMPLE_BLOCKS;
    if (blocks < 1) blocks = 1;
    if (snapshot) {
        sample_snapshot_kernel<T><<<(unsigned)blocks, SAMPLE_THREADS, 0, st->stream>>>(
            half, first, stride, count, static_cast<T *>(st->sample));
        DG_CUDA_LAUNCHED("sample snapshot kernel");
        return DG_OK;
    }
    sample_delta_kernel<T><<<(unsigned)blocks, SAMPLE_THREADS, 0, st->stream>>>(
        half, first, stride, count, static_cast<const T *>(st->sample), st->sample_partials);
    DG_CUDA_LAUNCHED("sample change kernel");
    DG_CUDA_TRY(cudaMemcpyAsync(st->sample_partials_host, st->sample_partials,
                                (size_t)blocks * sizeof(dg_cuda_partial), cudaMemcpyDeviceToHost,
                                st->stream),
                "cudaMemcpyAsync (sample partials)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "the iterations (cudaStreamSynchronize)");
    change->max_abs = 0.0, change->sum_sq = 0.0, change->finite = 1;
    for (long b = 0; b < blocks; ++b) { /* fixed order */
        const dg_cuda_partial *q = &st->sample_partials_host[b];
        if (q->max_abs > change->max_abs) change->max_abs = q->max_abs;
        change->sum_sq += q->sum_sq;
        if (q->nonfinite) change->finite = 0;
    }
    return DG_OK;
}

int dg_cuda_sample_change(dg_cuda_state *st, int colour, long first, long stride, long count,
                          int snapshot, dg_change *change, dg_error *err) {
    if (colour < 0 || colour > 1 || first < 0 || stride < 1 || count < 0 ||
        (count > 0 && first + (count - 1) * stride >= (long)st->half_count[colour]) ||
        (!snapshot && (!change || count > st->sample_capacity)))
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: sample of colour %d from %ld by %ld, %ld values", colour,
                            first, stride, count);
    if (!st->sample_partials) {
        DG_CUDA_TRY(cudaMalloc(&st->sample_partials, SAMPLE_BLOCKS * sizeof(dg_cuda_partial)),
                    "cudaMalloc (sample partials)");
        DG_CUDA_TRY(
            cudaMallocHost(&st->sample_partials_host, SAMPLE_BLOCKS * sizeof(dg_cuda_partial)),
            "cudaMallocHost (sample partials)");
        st->sample_partial_capacity = SAMPLE_BLOCKS;
    }
    if (snapshot && count > st->sample_capacity) {
        cudaFree(st->sample);
        st->sample = NULL, st->sample_capacity = 0;
        DG_CUDA_TRY(cudaMalloc(&st->sample, ((size_t)count + 1) * st->es),
                    "cudaMalloc (convergence sample)");
        st->sample_capacity = count;
    }
    if (count == 0) {
        if (!snapshot) change->max_abs = 0.0, change->sum_sq = 0.0, change->finite = 1;
        return DG_OK;
    }
    return st->is_float ? sample<float>(st, colour, first, stride, count, snapshot, change, err)
                        : sample<double>(st, colour, first, stride, count, snapshot, change, err);
}
