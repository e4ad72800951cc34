/* load_phi / store_phi and the medium's uploads.  The full grid crosses in slabs of whole planes:
 * the caller's array is copied (on the host threads) into one of two page-locked slabs while the
 * other slab's DMA runs; a kernel splits (or merges) each device slab into the half grids and
 * converts the element type on the device.  store_phi writes back only interior points, so the
 * caller's faces stay exactly as they were (the CPU backend does the same).  A phi whose interior
 * is +0.0 (a fresh solve) sends only its face points (transfer_host.h) and the half grids are
 * zeroed on the device. */
#include "cuda_internal.cuh"

extern "C" {
#include "transfer_host.h"
}

#define TRANSFER_THREADS 256

void dg_cuda_free_pinned(dg_cuda_state *st) {
    for (int b = 0; b < 2; ++b) {
        dg_cuda_pin_free(st->pinned[b], st->pinned_bytes, st->pinned_mapped[b]);
        if (st->pinned_done[b]) cudaEventDestroy(st->pinned_done[b]);
        st->pinned[b] = NULL, st->pinned_done[b] = NULL;
    }
    st->pinned_bytes = 0;
}

/* Planes per chunk of a full-grid transfer: what a slab holds, but at least 8 chunks when the grid
   allows, so that the host copies overlap the DMA on smaller grids too. */
static size_t slab_planes(const dg_cuda_state *st) {
    const size_t plane_bytes = (size_t)st->nx * st->ny * sizeof(double);
    size_t planes = st->staging_bytes / plane_bytes;
    const size_t eighth = ((size_t)st->nz + 7) / 8;
    if (planes > eighth) planes = eighth;
    return planes > 0 ? planes : 1;
}

/* Bytes of one pinned slab: one chunk of a full-grid transfer (at most a device staging slab, and
   on smaller grids an eighth of the grid, so the pinning cost follows the grid's size). */
static size_t pinned_floor; /* dg_cuda_set_pinned_floor (atomic builtins: no libstdc++) */

extern "C" void dg_cuda_set_pinned_floor(size_t bytes) {
    __atomic_store_n(&pinned_floor, bytes, __ATOMIC_RELAXED);
}

static size_t pinned_need(const dg_cuda_state *st) {
    const size_t chunk = slab_planes(st) * (size_t)st->nx * st->ny * sizeof(double);
    const size_t floor = __atomic_load_n(&pinned_floor, __ATOMIC_RELAXED);
    return chunk > floor ? chunk : floor;
}

/* Two pinned slabs of at least `bytes` each (kept while large enough). */
static int ensure_pinned(dg_cuda_state *st, size_t bytes, dg_error *err) {
    if (st->pinned_bytes >= bytes) return DG_OK;
    if (st->pinned_bytes) {
        DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "pinned slabs (cudaStreamSynchronize)");
        dg_cuda_free_pinned(st);
    }
    for (int b = 0; b < 2; ++b) {
        cudaError_t code = dg_cuda_pin_alloc(&st->pinned[b], bytes, &st->pinned_mapped[b]);
        if (code == cudaSuccess)
            code = cudaEventCreateWithFlags(&st->pinned_done[b], cudaEventDisableTiming);
        if (code != cudaSuccess) {
            st->pinned_bytes = bytes; /* the size of what was made, for the free */
            dg_cuda_free_pinned(st);  /* no slab is left half made (pinned_bytes 0 again) */
            return dg_cuda_fail(err, code, "page-locked transfer slab");
        }
    }
    st->pinned_bytes = bytes;
    return DG_OK;
}

/* Wait until the last DMA that used pinned slab b is done (at once if none was recorded). */
static int wait_pinned(dg_cuda_state *st, int b, dg_error *err) {
    DG_CUDA_TRY(cudaEventSynchronize(st->pinned_done[b]), "cudaEventSynchronize (pinned slab)");
    return DG_OK;
}

/* H2D of pinned slab b into dst, on the stream, then its event. */
static int send_pinned(dg_cuda_state *st, int b, void *dst, size_t bytes, dg_error *err) {
    DG_CUDA_TRY(cudaMemcpyAsync(dst, st->pinned[b], bytes, cudaMemcpyHostToDevice, st->stream),
                "cudaMemcpyAsync (pinned slab to the device)");
    DG_CUDA_TRY(cudaEventRecord(st->pinned_done[b], st->stream), "cudaEventRecord (pinned slab)");
    return DG_OK;
}

int dg_cuda_upload(dg_cuda_state *st, void *dst, const void *src, size_t bytes, dg_error *err) {
    return dg_cuda_upload_threads(st, dst, src, bytes, st->config.num_threads, err);
}

int dg_cuda_upload_threads(dg_cuda_state *st, void *dst, const void *src, size_t bytes, int threads,
                           dg_error *err) {
    int status = ensure_pinned(st, pinned_need(st), err);
    const size_t step = st->pinned_bytes;
    for (size_t at = 0, j = 0; status == DG_OK && at < bytes; at += step, ++j) {
        const int b = (int)(j & 1);
        const size_t n = at + step <= bytes ? step : bytes - at;
        status = wait_pinned(st, b, err);
        if (status != DG_OK) break;
        dg_copy_threads(st->pinned[b], static_cast<const char *>(src) + at, n, threads);
        status = send_pinned(st, b, static_cast<char *>(dst) + at, n, err);
    }
    return status;
}

/* What load_phi does after the half grids are written: the nonlinear source reset, the sparse
   `last` values gathered, and the stream drained. */
static int finish_load(dg_cuda_state *st, dg_error *err) {
    for (int c = 0; c < 2; ++c)
        if (st->qmap[c])
            DG_CUDA_TRY(cudaMemsetAsync(st->qmap[c], 0, st->half_count[c] * st->es, st->stream),
                        "cudaMemsetAsync (nonlinear source)");
    st->nonlinear_active = 0;
    int status = dg_cuda_launch_gather_last(st, err);
    if (status != DG_OK) return status;
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "load_phi (cudaStreamSynchronize)");
    return DG_OK;
}

int dg_cuda_load_phi(dg_cuda_state *st, const void *phi, int is_double, dg_error *err) {
    const size_t plane = (size_t)st->nx * st->ny, es = is_double ? sizeof(double) : sizeof(float);
    const size_t step = slab_planes(st);
    const char *src = static_cast<const char *>(phi);
    int status = ensure_pinned(st, pinned_need(st), err);
    for (size_t z0 = 0, j = 0; status == DG_OK && z0 < (size_t)st->nz; z0 += step, ++j) {
        const int b = (int)(j & 1);
        const size_t planes = z0 + step <= (size_t)st->nz ? step : st->nz - z0;
        const size_t w0 = z0 * plane, count = planes * plane;
        status = wait_pinned(st, b, err);
        if (status != DG_OK) break;
        dg_copy_threads(st->pinned[b], src + w0 * es, count * es, st->config.num_threads);
        status = send_pinned(st, b, st->staging_slab[b], count * es, err);
        st->staging = st->staging_slab[b];
        if (status == DG_OK) status = dg_cuda_launch_split(st, w0, count, is_double, err);
    }
    return status != DG_OK ? status : finish_load(st, err);
}

/* Packed face values [first, first + count) (element type S) -> the half grids (type T). */
template <typename T, typename S>
__global__ void dg_face_split_kernel(T *half0, T *half1, const S *packed, size_t first,
                                     size_t count, int nx, int ny, int nz) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = dg_face_full_index(nx, ny, nz, first + i);
        ((w & 1) ? half1 : half0)[w >> 1] = (T)packed[i];
    }
}

template <typename T, typename S>
static void face_split(dg_cuda_state *st, void *const half[2], const void *packed, size_t first,
                       size_t count) {
    size_t blocks = (count + TRANSFER_THREADS - 1) / TRANSFER_THREADS;
    const size_t most = 32 * (size_t)(st->sm_count > 0 ? st->sm_count : 1);
    if (blocks > most) blocks = most;
    dg_face_split_kernel<T, S><<<(unsigned)blocks, TRANSFER_THREADS, 0, st->stream>>>(
        static_cast<T *>(half[0]), static_cast<T *>(half[1]), static_cast<const S *>(packed), first,
        count, st->nx, st->ny, st->nz);
}

int dg_cuda_load_phi_faces(dg_cuda_state *st, const void *phi, int is_double, dg_error *err) {
    /* The iterate: the double one while mixed (as the mixed split writes it), else phi. */
    void *const half[2] = {st->mixed ? (void *)st->phi_d[0] : st->phi[0],
                           st->mixed ? (void *)st->phi_d[1] : st->phi[1]};
    const size_t target_es = st->mixed ? sizeof(double) : st->es;
    for (int c = 0; c < 2; ++c)
        DG_CUDA_TRY(cudaMemsetAsync(half[c], 0, st->half_count[c] * target_es, st->stream),
                    "cudaMemsetAsync (interior of phi)");
    const size_t es = is_double ? sizeof(double) : sizeof(float);
    int status = ensure_pinned(st, pinned_need(st), err);
    /* a chunk fits both the pinned slab and the device staging slab it is sent to */
    const size_t slab = st->pinned_bytes < st->staging_bytes ? st->pinned_bytes : st->staging_bytes;
    const size_t faces = dg_face_count(st->nx, st->ny, st->nz), step = slab / es;
    for (size_t first = 0, j = 0; status == DG_OK && first < faces; first += step, ++j) {
        const int b = (int)(j & 1);
        const size_t count = first + step <= faces ? step : faces - first;
        status = wait_pinned(st, b, err);
        if (status != DG_OK) break;
        dg_face_pack(st->pinned[b], phi, es, st->nx, st->ny, st->nz, first, count,
                     st->config.num_threads);
        status = send_pinned(st, b, st->staging_slab[b], count * es, err);
        if (status != DG_OK) break;
        const void *packed = st->staging_slab[b];
        if (target_es == sizeof(double))
            is_double ? face_split<double, double>(st, half, packed, first, count)
                      : face_split<double, float>(st, half, packed, first, count);
        else
            is_double ? face_split<float, double>(st, half, packed, first, count)
                      : face_split<float, float>(st, half, packed, first, count);
        DG_CUDA_LAUNCHED("face split kernel");
    }
    return status != DG_OK ? status : finish_load(st, err);
}

int dg_cuda_store_phi(dg_cuda_state *st, void *phi, int is_double, dg_error *err) {
    const size_t plane = (size_t)st->nx * st->ny;
    const size_t es = is_double ? sizeof(double) : sizeof(float);
    const size_t step = slab_planes(st), last = (size_t)st->nz - 1;
    int status = ensure_pinned(st, pinned_need(st), err);
    st->store_wait_seconds = 0.0;
    /* Chunk j's merge and DMA are queued before the host copies chunk j - 1 out of its slab. */
    size_t pending_z0 = 0, pending_planes = 0;
    int pending_b = 0;
    for (size_t z0 = 1, j = 0; status == DG_OK && z0 < last + step; z0 += step, ++j) {
        const int b = (int)(j & 1);
        if (z0 < last) {
            const size_t planes = z0 + step <= last ? step : last - z0;
            st->staging = st->staging_slab[b];
            status = dg_cuda_launch_merge(st, z0 * plane, planes * plane, is_double, err);
            if (status != DG_OK) break;
            /* pinned[b] was last read by the host copy of chunk j - 2 (done). */
            DG_CUDA_TRY(cudaMemcpyAsync(st->pinned[b], st->staging_slab[b], planes * plane * es,
                                        cudaMemcpyDeviceToHost, st->stream),
                        "cudaMemcpyAsync (phi to the host)");
            DG_CUDA_TRY(cudaEventRecord(st->pinned_done[b], st->stream),
                        "cudaEventRecord (pinned slab)");
        }
        if (pending_planes) {
            const double waited = dg_wall_seconds();
            status = wait_pinned(st, pending_b, err);
            st->store_wait_seconds += dg_wall_seconds() - waited;
            if (status != DG_OK) break;
            dg_store_interior_rows(phi, st->pinned[pending_b], es, st->nx, st->ny, pending_z0,
                                   pending_planes, st->config.num_threads);
        }
        pending_z0 = z0, pending_b = b;
        pending_planes = z0 < last ? (z0 + step <= last ? step : last - z0) : 0;
    }
    if (status != DG_OK) return status;
    const double waited = dg_wall_seconds();
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "store_phi (cudaStreamSynchronize)");
    st->store_wait_seconds += dg_wall_seconds() - waited;
    return dg_cuda_store_wrapped_faces(st, phi, is_double, err);
}
