/* load_phi / store_phi: the full grid crosses in slabs of whole planes through one staging
 * buffer; a kernel splits (or merges) each slab into the half grids and converts the element
 * type on the device.  store_phi writes back only interior points, so the caller's faces stay
 * exactly as they were (the CPU backend does the same). */
#include "cuda_internal.cuh"

static size_t slab_planes(const dg_cuda_state *st) {
    const size_t plane_bytes = (size_t)st->nx * st->ny * sizeof(double);
    size_t planes = st->staging_bytes / plane_bytes;
    return planes > 0 ? planes : 1;
}

int dg_cuda_load_phi(dg_cuda_state *st, const void *phi, int is_double, dg_error *err) {
    const size_t plane = (size_t)st->nx * st->ny, es = is_double ? sizeof(double) : sizeof(float);
    const size_t step = slab_planes(st);
    const char *src = static_cast<const char *>(phi);
    for (size_t z0 = 0; z0 < (size_t)st->nz; z0 += step) {
        const size_t planes = z0 + step <= (size_t)st->nz ? step : st->nz - z0;
        const size_t w0 = z0 * plane, count = planes * plane;
        DG_CUDA_TRY(cudaMemcpyAsync(st->staging, src + w0 * es, count * es, cudaMemcpyHostToDevice,
                                    st->stream),
                    "cudaMemcpyAsync (phi to the device)");
        int status = dg_cuda_launch_split(st, w0, count, is_double, err);
        if (status != DG_OK) return status;
    }
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

int dg_cuda_store_phi(dg_cuda_state *st, void *phi, int is_double, dg_error *err) {
    const size_t nx = st->nx, ny = st->ny, plane = nx * ny;
    const size_t es = is_double ? sizeof(double) : sizeof(float);
    const size_t step = slab_planes(st);
    char *dst = static_cast<char *>(phi);
    const char *staging = static_cast<const char *>(st->staging);
    for (size_t z0 = 1; z0 + 1 < (size_t)st->nz; z0 += step) {
        const size_t planes = z0 + step <= (size_t)st->nz - 1 ? step : st->nz - 1 - z0;
        int status = dg_cuda_launch_merge(st, z0 * plane, planes * plane, is_double, err);
        if (status != DG_OK) return status;
        for (size_t k = 0; k < planes; ++k) {
            /* Rows 1..ny-2, columns 1..nx-2 of plane z0 + k. */
            const size_t first = (z0 + k) * plane + nx + 1;
            DG_CUDA_TRY(cudaMemcpy2DAsync(
                            dst + first * es, nx * es, staging + (first - z0 * plane) * es, nx * es,
                            (nx - 2) * es, ny - 2, cudaMemcpyDeviceToHost, st->stream),
                        "cudaMemcpy2DAsync (phi to the host)");
        }
    }
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "store_phi (cudaStreamSynchronize)");
    return DG_OK;
}
