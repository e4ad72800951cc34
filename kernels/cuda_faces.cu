/* Debye-Hueckel boundary values on the GPU: one thread per face point, the charges streamed
 * through shared memory in index order, summed in double (the CPU backend's sum, term for
 * term, see face_points.h). */
#include <stdlib.h>

#include "cuda_internal.cuh"
#include "face_points.h"

namespace {

struct source { /* a charge at 0-based grid coordinates */
    double x, y, z, q;
};

constexpr int kFaceThreads = 256;

__global__ void __launch_bounds__(kFaceThreads)
    dg_face_potential_kernel(long total, int nx, int ny, int nz, const source *sources, long count,
                             double coefficient, double inverse_length, double *out) {
    __shared__ source tile[kFaceThreads];
    const long k = blockIdx.x * (long)kFaceThreads + threadIdx.x;
    int x = 0, y = 0, z = 0;
    if (k < total) dg_face_coords(nx, ny, nz, k, &x, &y, &z);
    double sum = 0.0;
    for (long base = 0; base < count; base += kFaceThreads) {
        if (base + threadIdx.x < count) tile[threadIdx.x] = sources[base + threadIdx.x];
        __syncthreads();
        const int n = (int)min((long)kFaceThreads, count - base);
        if (k < total)
            for (int j = 0; j < n; ++j)
                sum += dg_screened_term(x - tile[j].x, y - tile[j].y, z - tile[j].z, tile[j].q,
                                        inverse_length);
        __syncthreads();
    }
    if (k < total) out[k] = coefficient * sum;
}

} // namespace

int dg_cuda_face_potentials(dg_cuda_state *st, const dg_face_request *r, double *out,
                            dg_error *err) {
    (void)st;
    const long total = dg_face_total(r->nx, r->ny, r->nz);
    const size_t out_bytes = (size_t)total * sizeof(double);
    const size_t source_bytes = (size_t)(r->count > 0 ? r->count : 1) * sizeof(source);
    source *host_sources = static_cast<source *>(malloc(source_bytes));
    if (!host_sources)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for %ld charges",
                            r->count);
    for (long i = 0; i < r->count; ++i)
        host_sources[i] = {r->positions[3 * i], r->positions[3 * i + 1], r->positions[3 * i + 2],
                           r->charges[i]};
    source *sources = nullptr;
    double *values = nullptr;
    cudaError_t code = cudaMalloc(&sources, source_bytes);
    const char *what = "cudaMalloc (face charges)";
    if (code == cudaSuccess) code = cudaMalloc(&values, out_bytes), what = "cudaMalloc (faces)";
    if (code == cudaSuccess)
        code = cudaMemcpy(sources, host_sources, source_bytes, cudaMemcpyHostToDevice),
        what = "cudaMemcpy (face charges)";
    if (code == cudaSuccess) {
        const long blocks = (total + kFaceThreads - 1) / kFaceThreads;
        dg_face_potential_kernel<<<(unsigned)blocks, kFaceThreads>>>(
            total, r->nx, r->ny, r->nz, sources, r->count, r->coefficient, r->inverse_length,
            values);
        code = cudaGetLastError(), what = "launch of dg_face_potential_kernel";
    }
    if (code == cudaSuccess)
        code = cudaMemcpy(out, values, out_bytes, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (faces back)";
    free(host_sources);
    const cudaError_t free_sources = cudaFree(sources), free_values = cudaFree(values);
    if (code == cudaSuccess && (free_sources != cudaSuccess || free_values != cudaSuccess)) {
        code = free_sources != cudaSuccess ? free_sources : free_values;
        what = "cudaFree (faces)";
    }
    return code == cudaSuccess ? DG_OK : dg_cuda_fail(err, code, what);
}
