/* Stage operations on the GPU (see stages.h): Coulomb sums of point charges at target points.
 * One thread per target; the sources stream through shared memory in index order and each
 * thread sums its terms in double in that order, with the host's expression term for term
 * (IEEE sqrt and division, no FMA contraction): out[k] equals the CPU backend's. */
#include <stdlib.h>

#include "cuda_internal.cuh"

namespace {

struct charge_point { /* a source: position and charge */
    double x, y, z, q;
};

constexpr int kPairThreads = 256;

__global__ void __launch_bounds__(kPairThreads)
    dg_pair_potential_kernel(const double *targets, long target_count, const charge_point *sources,
                             long source_count, int upper_triangle, double min_distance,
                             double *out, unsigned long long *skipped) {
    __shared__ charge_point tile[kPairThreads];
    const long first = blockIdx.x * (long)kPairThreads;
    const long k = first + threadIdx.x;
    double tx = 0.0, ty = 0.0, tz = 0.0;
    if (k < target_count) tx = targets[3 * k], ty = targets[3 * k + 1], tz = targets[3 * k + 2];
    double sum = 0.0;
    unsigned long long left_out = 0;
    /* In the upper triangle no thread of this block needs sources before first + 1. */
    const long start = upper_triangle ? ((first + 1) / kPairThreads) * kPairThreads : 0;
    for (long base = start; base < source_count; base += kPairThreads) {
        if (base + threadIdx.x < source_count) tile[threadIdx.x] = sources[base + threadIdx.x];
        __syncthreads();
        const int n = (int)min((long)kPairThreads, source_count - base);
        if (k < target_count)
            for (int j = 0; j < n; ++j) {
                if (upper_triangle && base + j <= k) continue;
                const double dx = tx - tile[j].x, dy = ty - tile[j].y, dz = tz - tile[j].z;
                const double d = sqrt(dx * dx + dy * dy + dz * dz);
                if (d < min_distance) {
                    ++left_out;
                    continue;
                }
                sum += tile[j].q / d;
            }
        __syncthreads();
    }
    if (k < target_count) {
        out[k] = sum;
        if (left_out) atomicAdd(skipped, left_out);
    }
}

} // namespace

int dg_cuda_pair_potentials(dg_cuda_state *st, const dg_pair_request *r, double *out, long *skipped,
                            dg_error *err) {
    (void)st;
    if (skipped) *skipped = 0;
    if (r->target_count == 0) return DG_OK;
    const size_t target_bytes = (size_t)r->target_count * 3 * sizeof(double);
    const size_t out_bytes = (size_t)r->target_count * sizeof(double);
    const size_t source_bytes =
        (size_t)(r->source_count > 0 ? r->source_count : 1) * sizeof(charge_point);
    charge_point *host_sources = static_cast<charge_point *>(malloc(source_bytes));
    if (!host_sources)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for %ld charges",
                            r->source_count);
    for (long i = 0; i < r->source_count; ++i)
        host_sources[i] = {r->sources[3 * i], r->sources[3 * i + 1], r->sources[3 * i + 2],
                           r->charges[i]};
    charge_point *sources = nullptr;
    double *targets = nullptr, *values = nullptr;
    unsigned long long *count = nullptr, host_count = 0;
    cudaError_t code = cudaMalloc(&sources, source_bytes);
    const char *what = "cudaMalloc (pair sources)";
    if (code == cudaSuccess)
        code = cudaMalloc(&targets, target_bytes), what = "cudaMalloc (targets)";
    if (code == cudaSuccess) code = cudaMalloc(&values, out_bytes), what = "cudaMalloc (pair sums)";
    if (code == cudaSuccess)
        code = cudaMalloc(&count, sizeof *count), what = "cudaMalloc (pair count)";
    if (code == cudaSuccess)
        code = cudaMemcpy(sources, host_sources, source_bytes, cudaMemcpyHostToDevice),
        what = "cudaMemcpy (pair sources)";
    if (code == cudaSuccess)
        code = cudaMemcpy(targets, r->targets, target_bytes, cudaMemcpyHostToDevice),
        what = "cudaMemcpy (targets)";
    if (code == cudaSuccess)
        code = cudaMemset(count, 0, sizeof *count), what = "cudaMemset (pair count)";
    if (code == cudaSuccess) {
        const long blocks = (r->target_count + kPairThreads - 1) / kPairThreads;
        dg_pair_potential_kernel<<<(unsigned)blocks, kPairThreads>>>(
            targets, r->target_count, sources, r->source_count, r->upper_triangle, r->min_distance,
            values, count);
        code = cudaGetLastError(), what = "launch of dg_pair_potential_kernel";
    }
    if (code == cudaSuccess)
        code = cudaMemcpy(out, values, out_bytes, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (pair sums back)";
    if (code == cudaSuccess)
        code = cudaMemcpy(&host_count, count, sizeof host_count, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (pair count back)";
    free(host_sources);
    const cudaError_t freed[4] = {cudaFree(sources), cudaFree(targets), cudaFree(values),
                                  cudaFree(count)};
    for (int i = 0; i < 4 && code == cudaSuccess; ++i)
        if (freed[i] != cudaSuccess) code = freed[i], what = "cudaFree (pair sums)";
    if (code != cudaSuccess) return dg_cuda_fail(err, code, what);
    if (skipped) *skipped = (long)host_count;
    return DG_OK;
}
