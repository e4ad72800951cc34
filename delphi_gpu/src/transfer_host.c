/* Host copies of the full-grid transfers, on several threads (transfer_host.h). */
#include "transfer_host.h"

#include <omp.h>
#include <string.h>

/* Below this many bytes a copy runs on one thread: the fork/join would cost more. */
#define PARALLEL_MIN_BYTES ((size_t)1 << 20)

static int thread_count(int threads) {
    return threads > 0 ? threads : omp_get_max_threads();
}

void dg_copy_threads(void *dst, const void *src, size_t bytes, int threads) {
    const int n = bytes < PARALLEL_MIN_BYTES ? 1 : thread_count(threads);
    if (n <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
    const size_t piece = (bytes / (size_t)n + 63) & ~(size_t)63; /* whole cache lines */
#pragma omp parallel for schedule(static) num_threads(n)
    for (int t = 0; t < n; ++t) {
        const size_t begin = piece * (size_t)t;
        if (begin < bytes) {
            const size_t end = begin + piece < bytes ? begin + piece : bytes;
            memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
        }
    }
}

void dg_zero_threads(void *dst, size_t bytes, int threads) {
    const int n = bytes < PARALLEL_MIN_BYTES ? 1 : thread_count(threads);
    const size_t piece = (bytes / (size_t)n + 63) & ~(size_t)63;
#pragma omp parallel for schedule(static) num_threads(n)
    for (int t = 0; t < n; ++t) {
        const size_t begin = piece * (size_t)t;
        if (begin < bytes)
            memset((char *)dst + begin, 0, (begin + piece < bytes ? piece : bytes - begin));
    }
}

void dg_face_pack(void *packed, const void *phi, size_t es, int nx, int ny, int nz, size_t first,
                  size_t count, int threads) {
    const int n = count * es < PARALLEL_MIN_BYTES ? 1 : thread_count(threads);
    const long total = (long)count;
    if (es == sizeof(double)) {
        double *out = packed;
        const double *in = phi;
#pragma omp parallel for schedule(static) num_threads(n)
        for (long j = 0; j < total; ++j)
            out[j] = in[dg_face_full_index(nx, ny, nz, first + (size_t)j)];
    } else {
        float *out = packed;
        const float *in = phi;
#pragma omp parallel for schedule(static) num_threads(n)
        for (long j = 0; j < total; ++j)
            out[j] = in[dg_face_full_index(nx, ny, nz, first + (size_t)j)];
    }
}

void dg_store_interior_rows(void *phi, const void *slab, size_t es, int nx, int ny, size_t z0,
                            size_t planes, int threads) {
    const size_t plane = (size_t)nx * ny, row_bytes = ((size_t)nx - 2) * es;
    const long rows = (long)planes * (ny - 2);
    const int n = planes * plane * es < PARALLEL_MIN_BYTES ? 1 : thread_count(threads);
#pragma omp parallel for schedule(static) num_threads(n)
    for (long r = 0; r < rows; ++r) {
        const size_t k = (size_t)r / (size_t)(ny - 2), y = 1 + (size_t)r % (size_t)(ny - 2);
        const size_t at = k * plane + y * nx + 1; /* in the slab */
        memcpy((char *)phi + ((z0 * plane) + at) * es, (const char *)slab + at * es, row_bytes);
    }
}
