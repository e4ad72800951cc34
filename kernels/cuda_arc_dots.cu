/* Arc dots of a molecular surface on the device (stages.h, dg_stage_arc_dots_on).  One block
 * per atom i walks its circles j > i in the order of i's neighbour list; a thread per angle (in
 * chunks of the block) tests its dot against every neighbour of i but j with the host's
 * expressions (stages/surface_points.h; the objects are built without FMA contraction), so the
 * dots are the host surface model's bits.  A first pass counts each atom's dots; after the
 * offsets are summed on the host, a second pass writes them at the atom's offset in the order of
 * its circles and angles (a block-wide prefix of each chunk's kept dots). */
#include <limits.h>
#include <stdlib.h>

#include "cuda_internal.cuh"
#include "stages/surface_points.h"
#include "transfer_host.h"

namespace {

constexpr int kDotThreads = 256;
constexpr int kDotWarps = kDotThreads / 32;

struct arc_dots_args {
    const double *xyz, *sas;
    const int *start, *neighbors;
    int n;
    const double *angles;
};

/* 1 when no neighbour of i but the one at list position skip covers p.  hint: the list position
 * of the neighbour that covered this thread's last covered dot, tried first (the answer does not
 * depend on the order of the tests). */
__device__ int dot_accessible(const arc_dots_args &a, int first, int len, int skip,
                              const double p[3], int *hint) {
    if (*hint >= 0 && *hint != skip) {
        const int k = a.neighbors[first + *hint];
        if (dg_sp_sas_covers(a.xyz + 3 * k, a.sas[k], p)) return 0;
    }
    for (int q = 0; q < len; ++q) {
        if (q == skip) continue;
        const int k = a.neighbors[first + q];
        if (dg_sp_sas_covers(a.xyz + 3 * k, a.sas[k], p)) {
            *hint = q;
            return 0;
        }
    }
    return 1;
}

/* kWrite = false: counts[i] = atom i's dots; true: its dots at dots[3 offsets[i] ...]. */
template <bool kWrite>
__global__ void __launch_bounds__(kDotThreads)
    dg_arc_dots_kernel(arc_dots_args a, int *counts, const long long *offsets, double *dots) {
    __shared__ int warp_kept[kDotWarps];
    const int i = blockIdx.x;
    const int first = a.start[i], len = a.start[i + 1] - first;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long at = kWrite ? offsets[i] : 0;
    int hint = -1;
    for (int k = 0; k < len; ++k) {
        const int j = a.neighbors[first + k];
        double m[3], rho, e1[3], e2[3];
        /* the same for every thread of the block: the block takes the circle or skips it whole */
        if (j < i || !dg_sp_circle(a.xyz, a.sas, i, j, m, &rho, e1, e2)) continue;
        for (int t0 = 0; t0 < a.n; t0 += kDotThreads) {
            const int t = t0 + (int)threadIdx.x;
            double p[3] = {0.0, 0.0, 0.0};
            int keep = 0;
            if (t < a.n) {
                dg_sp_circle_point(m, rho, e1, e2, a.angles[2 * t], a.angles[2 * t + 1], p);
                keep = dot_accessible(a, first, len, k, p, &hint);
            }
            const unsigned ballot = __ballot_sync(0xffffffffu, keep);
            if (lane == 0) warp_kept[warp] = __popc(ballot);
            __syncthreads();
            int before = 0, chunk = 0;
            for (int w = 0; w < kDotWarps; ++w) {
                if (w < warp) before += warp_kept[w];
                chunk += warp_kept[w];
            }
            if (kWrite && keep) {
                const long long slot = at + before + __popc(ballot & ((1u << lane) - 1u));
                dots[3 * slot] = p[0], dots[3 * slot + 1] = p[1], dots[3 * slot + 2] = p[2];
            }
            at += chunk;
            __syncthreads(); /* warp_kept is written again by the next chunk */
        }
    }
    if (!kWrite && threadIdx.x == 0) counts[i] = (int)at;
}

template <typename T> size_t place_in(size_t *size, size_t count) {
    const size_t offset = *size;
    *size += (count * sizeof(T) + 255) / 256 * 256;
    return offset;
}

} // namespace

int dg_cuda_arc_dots(dg_cuda_state *st, const dg_arc_dots_request *r, int *counts,
                     double **dots_out, long *total_out, dg_error *err) {
    *dots_out = nullptr, *total_out = 0;
    const size_t atoms = (size_t)r->count, listed = (size_t)r->neighbor_start[r->count];
    const size_t n = (size_t)r->circle_dots;
    /* inputs, counts and offsets in one block */
    size_t size = 0;
    const size_t at_xyz = place_in<double>(&size, 3 * atoms);
    const size_t at_sas = place_in<double>(&size, atoms);
    const size_t at_start = place_in<int>(&size, atoms + 1);
    const size_t at_neighbors = place_in<int>(&size, listed + 1);
    const size_t at_angles = place_in<double>(&size, 2 * n);
    const size_t at_counts = place_in<int>(&size, atoms);
    const size_t at_offsets = place_in<long long>(&size, atoms);
    unsigned char *block = nullptr;
    double *device_dots = nullptr, *dots = nullptr;
    long long *offsets = static_cast<long long *>(malloc((atoms + 1) * sizeof *offsets));
    if (!offsets)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for %zu atoms' dots",
                            atoms);
    const char *what = "cudaMalloc (arc-dot inputs)";
    cudaError_t code = cudaMalloc(&block, size);
    arc_dots_args a;
    a.xyz = reinterpret_cast<const double *>(block + at_xyz);
    a.sas = reinterpret_cast<const double *>(block + at_sas);
    a.start = reinterpret_cast<const int *>(block + at_start);
    a.neighbors = reinterpret_cast<const int *>(block + at_neighbors);
    a.n = r->circle_dots;
    a.angles = reinterpret_cast<const double *>(block + at_angles);
    int *device_counts = reinterpret_cast<int *>(block + at_counts);
    long long *device_offsets = reinterpret_cast<long long *>(block + at_offsets);
    const struct {
        size_t at;
        const void *from;
        size_t bytes;
    } inputs[5] = {{at_xyz, r->xyz, 3 * atoms * sizeof(double)},
                   {at_sas, r->sas_radius, atoms * sizeof(double)},
                   {at_start, r->neighbor_start, (atoms + 1) * sizeof(int)},
                   {at_neighbors, r->neighbors, listed * sizeof(int)},
                   {at_angles, r->angles, 2 * n * sizeof(double)}};
    for (int k = 0; k < 5 && code == cudaSuccess; ++k)
        if (inputs[k].bytes > 0)
            code = cudaMemcpy(block + inputs[k].at, inputs[k].from, inputs[k].bytes,
                              cudaMemcpyHostToDevice),
            what = "cudaMemcpy (arc-dot inputs)";
    if (code == cudaSuccess) {
        dg_arc_dots_kernel<false>
            <<<(unsigned)atoms, kDotThreads>>>(a, device_counts, nullptr, nullptr);
        code = cudaGetLastError(), what = "launch of dg_arc_dots_kernel (counts)";
    }
    if (code == cudaSuccess)
        code = cudaMemcpy(counts, device_counts, atoms * sizeof(int), cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (arc-dot counts back)";
    long long total = 0;
    int too_many = 0;
    for (size_t i = 0; i < atoms && code == cudaSuccess && !too_many; ++i) {
        offsets[i] = total;
        total += counts[i];
        too_many = total > INT_MAX / 3;
    }
    if (code == cudaSuccess && !too_many && total > 0) {
        dots = static_cast<double *>(malloc((size_t)total * 3 * sizeof *dots));
        if (dots) {
            /* Its pages first touched on all host threads: the driver's copy into pages it
               faults in one by one ran at about 1.2 GB/s (0.15 s at 250 000 atoms). */
            dg_zero_threads(dots, (size_t)total * 3 * sizeof *dots, st->config.num_threads);
            code = cudaMemcpy(device_offsets, offsets, atoms * sizeof *offsets,
                              cudaMemcpyHostToDevice),
            what = "cudaMemcpy (arc-dot offsets)";
            if (code == cudaSuccess)
                code = cudaMalloc(&device_dots, (size_t)total * 3 * sizeof(double)),
                what = "cudaMalloc (arc dots)";
            if (code == cudaSuccess) {
                dg_arc_dots_kernel<true>
                    <<<(unsigned)atoms, kDotThreads>>>(a, nullptr, device_offsets, device_dots);
                code = cudaGetLastError(), what = "launch of dg_arc_dots_kernel (dots)";
            }
            if (code == cudaSuccess)
                code = cudaMemcpy(dots, device_dots, (size_t)total * 3 * sizeof(double),
                                  cudaMemcpyDeviceToHost),
                what = "cudaMemcpy (arc dots back)";
        }
    }
    const cudaError_t freed[2] = {block ? cudaFree(block) : cudaSuccess,
                                  device_dots ? cudaFree(device_dots) : cudaSuccess};
    for (int k = 0; k < 2 && code == cudaSuccess; ++k)
        if (freed[k] != cudaSuccess) code = freed[k], what = "cudaFree (arc dots)";
    free(offsets);
    if (code != cudaSuccess) {
        free(dots);
        return dg_cuda_fail(err, code, what);
    }
    if (too_many)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                            "more than %d arc dots (the surface model's limit)", INT_MAX / 3);
    if (total > 0 && !dots)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for %lld arc dots",
                            total);
    *dots_out = dots, *total_out = (long)total;
    return DG_OK;
}
