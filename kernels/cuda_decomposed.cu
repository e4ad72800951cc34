/* The backend ops of a domain-decomposed iteration (backend.h): plane copies for the halo
 * exchange through the host, the half grids shared with the other processes of the node for
 * device-to-device halos (CUDA IPC), and a convergence sample at an arbitrary offset and stride.
 * The half iteration itself is dg_cuda_launch_colour (cuda_launch.cu). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A sampled value as a double: mixed precision's correction is binary16 times the step's scale,
   its change counted in the iterate's units (times unit, 1 / scale; the CPU backend's). */
__device__ __forceinline__ double sample_value(double v) {
    return v;
}
__device__ __forceinline__ double sample_value(float v) {
    return (double)v;
}
__device__ __forceinline__ double sample_value(dg_half16 v) {
    return (double)dg_half_decode(v);
}

template <typename T>
__global__ void sample_delta_kernel(const T *half, long first, long stride, long count,
                                    const T *snap, const dg_refine_scale *scale,
                                    dg_cuda_partial *partials) {
    const double unit = scale ? scale->inv : 1.0;
    __shared__ double max_s[SAMPLE_THREADS], sum_s[SAMPLE_THREADS];
    __shared__ int bad_s[SAMPLE_THREADS];
    double mx = 0.0, sum = 0.0;
    int bad = 0;
    for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < count;
         j += (long)gridDim.x * blockDim.x) {
        const double d = (sample_value(half[first + j * stride]) - sample_value(snap[j])) * unit;
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
        half, first, stride, count, static_cast<const T *>(st->sample),
        st->mixed ? st->refine_scale : NULL, st->sample_partials);
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
    if (st->mixed) /* the correction's binary16 values */
        return sample<dg_half16>(st, colour, first, stride, count, snapshot, change, err);
    return st->is_float ? sample<float>(st, colour, first, stride, count, snapshot, change, err)
                        : sample<double>(st, colour, first, stride, count, snapshot, change, err);
}

/* ---- Half grids shared with another process of the node (CUDA IPC) ----------------------- */

/* The blob of peer_export (DG_PEER_HANDLE_BYTES, backend.h). */
typedef struct peer_blob {
    char magic[8];     /* "dgpeer1" */
    int device;        /* the exporter's device ordinal (for messages) */
    int element_bytes; /* bytes per value of its half grids */
    unsigned long long count[2];
    cudaIpcMemHandle_t handle[2];
} peer_blob;

static_assert(sizeof(peer_blob) <= DG_PEER_HANDLE_BYTES, "DG_PEER_HANDLE_BYTES is too small");

int dg_cuda_peer_export(dg_cuda_state *st, unsigned char *handle, dg_error *err) {
    if (st->mixed)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "CUDA backend: mixed precision's half grids are not shared");
    peer_blob b;
    memset(&b, 0, sizeof b);
    memcpy(b.magic, "dgpeer1", 8);
    b.device = st->device;
    b.element_bytes = (int)st->es;
    for (int c = 0; c < 2; ++c) {
        b.count[c] = st->half_count[c];
        const cudaError_t code = cudaIpcGetMemHandle(&b.handle[c], st->phi[c]);
        if (code != cudaSuccess) {
            cudaGetLastError(); /* not sticky: keep it out of the next launch's check */
            return dg_error_set(err, DG_ERR_UNSUPPORTED,
                                "CUDA backend: the half grids of device %d cannot be shared "
                                "with another process (cudaIpcGetMemHandle: %s)",
                                st->device, cudaGetErrorString(code));
        }
    }
    memset(handle, 0, DG_PEER_HANDLE_BYTES);
    memcpy(handle, &b, sizeof b);
    return DG_OK;
}

static void close_slot(dg_cuda_state *st, int slot) {
    for (int c = 0; c < 2; ++c) {
        if (st->peer_phi[slot][c]) cudaIpcCloseMemHandle(st->peer_phi[slot][c]);
        st->peer_phi[slot][c] = NULL, st->peer_count[slot][c] = 0;
    }
}

void dg_cuda_peer_close_all(dg_cuda_state *st) {
    close_slot(st, 0);
    close_slot(st, 1);
}

int dg_cuda_peer_open(dg_cuda_state *st, int slot, const unsigned char *handle, dg_error *err) {
    if (slot < 0 || slot > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CUDA backend: peer slot %d", slot);
    close_slot(st, slot);
    if (!handle) return DG_OK;
    peer_blob b;
    memcpy(&b, handle, sizeof b);
    if (memcmp(b.magic, "dgpeer1", 8) != 0 || b.element_bytes != (int)st->es)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: a peer's half grids are not of this build or precision");
    for (int c = 0; c < 2; ++c) {
        void *p = NULL;
        const cudaError_t code =
            cudaIpcOpenMemHandle(&p, b.handle[c], cudaIpcMemLazyEnablePeerAccess);
        if (code != cudaSuccess) {
            cudaGetLastError(); /* not sticky */
            close_slot(st, slot);
            return dg_error_set(err, DG_ERR_UNSUPPORTED,
                                "CUDA backend: device %d cannot map the half grids of device %d "
                                "(cudaIpcOpenMemHandle: %s)",
                                st->device, b.device, cudaGetErrorString(code));
        }
        st->peer_phi[slot][c] = p, st->peer_count[slot][c] = (size_t)b.count[c];
    }
    return DG_OK;
}

int dg_cuda_peer_pull(dg_cuda_state *st, int slot, int peer_colour, long peer_first, int colour,
                      long first, long count, dg_error *err) {
    if (slot < 0 || slot > 1 || peer_colour < 0 || peer_colour > 1 || colour < 0 || colour > 1 ||
        !st->peer_phi[slot][peer_colour] || count < 0 || peer_first < 0 || first < 0 ||
        (size_t)(peer_first + count) > st->peer_count[slot][peer_colour] ||
        (size_t)(first + count) > st->half_count[colour])
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: peer copy of %ld values from slot %d colour %d at %ld "
                            "into colour %d at %ld",
                            count, slot, peer_colour, peer_first, colour, first);
    if (count == 0) return DG_OK;
    const char *src = static_cast<const char *>(st->peer_phi[slot][peer_colour]);
    char *dst = static_cast<char *>(st->phi[colour]);
    DG_CUDA_TRY(cudaMemcpyAsync(dst + (size_t)first * st->es, src + (size_t)peer_first * st->es,
                                (size_t)count * st->es, cudaMemcpyDeviceToDevice, st->stream),
                "cudaMemcpyAsync (halo plane from a peer's device)");
    return DG_OK;
}
