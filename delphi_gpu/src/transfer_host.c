/* Host copies of the full-grid transfers (transfer_host.h).  The copies that stage a CUDA
 * transfer run on the host pool (host_pool.h) in chunks of about CHUNK_BYTES: they are timed
 * into every call of the DelPhi kit, and a team loop with a fixed share per thread waits for its
 * slowest thread. */
#include "transfer_host.h"

#include <omp.h>
#include <string.h>

#include "host_pool.h"

/* Below this many bytes a copy runs on one thread: waking helpers would cost more. */
#define PARALLEL_MIN_BYTES ((size_t)1 << 20)
/* Bytes per chunk of a pool job (whole cache lines). */
#define CHUNK_BYTES ((size_t)64 << 10)

static int thread_count(int threads) {
    return threads > 0 ? threads : omp_get_max_threads();
}

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t bytes;
} copy_job;

static void copy_chunk(void *context, size_t chunk) {
    const copy_job *j = context;
    const size_t begin = chunk * CHUNK_BYTES;
    const size_t end = begin + CHUNK_BYTES < j->bytes ? begin + CHUNK_BYTES : j->bytes;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

void dg_copy_threads(void *dst, const void *src, size_t bytes, int threads) {
    if (bytes < PARALLEL_MIN_BYTES || thread_count(threads) <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
    copy_job j = {dst, src, bytes};
    dg_pool_run(threads, (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES, copy_chunk, &j);
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

typedef struct pack_job {
    void *packed;
    const void *phi;
    size_t es, first, count, per_chunk;
    int nx, ny, nz;
} pack_job;

static void pack_chunk(void *context, size_t chunk) {
    const pack_job *j = context;
    const size_t begin = chunk * j->per_chunk;
    const size_t end = begin + j->per_chunk < j->count ? begin + j->per_chunk : j->count;
    if (j->es == sizeof(double)) {
        double *out = j->packed;
        const double *in = j->phi;
        for (size_t k = begin; k < end; ++k)
            out[k] = in[dg_face_full_index(j->nx, j->ny, j->nz, j->first + k)];
    } else {
        float *out = j->packed;
        const float *in = j->phi;
        for (size_t k = begin; k < end; ++k)
            out[k] = in[dg_face_full_index(j->nx, j->ny, j->nz, j->first + k)];
    }
}

void dg_face_pack(void *packed, const void *phi, size_t es, int nx, int ny, int nz, size_t first,
                  size_t count, int threads) {
    pack_job j = {packed, phi, es, first, count, CHUNK_BYTES / es, nx, ny, nz};
    const size_t chunks = (count + j.per_chunk - 1) / j.per_chunk;
    if (count * es < PARALLEL_MIN_BYTES || thread_count(threads) <= 1) {
        for (size_t c = 0; c < chunks; ++c)
            pack_chunk(&j, c);
        return;
    }
    dg_pool_run(threads, chunks, pack_chunk, &j);
}

typedef struct rows_job {
    char *phi;
    const char *slab;
    size_t es, plane, row_bytes, z0, rows, rows_per_chunk;
    int nx, ny;
} rows_job;

static void rows_chunk(void *context, size_t chunk) {
    const rows_job *j = context;
    const size_t begin = chunk * j->rows_per_chunk;
    const size_t end = begin + j->rows_per_chunk < j->rows ? begin + j->rows_per_chunk : j->rows;
    const size_t inner = (size_t)j->ny - 2;
    for (size_t r = begin; r < end; ++r) {
        const size_t k = r / inner, y = 1 + r % inner;
        const size_t at = k * j->plane + y * (size_t)j->nx + 1; /* in the slab */
        memcpy(j->phi + (j->z0 * j->plane + at) * j->es, j->slab + at * j->es, j->row_bytes);
    }
}

void dg_store_interior_rows(void *phi, const void *slab, size_t es, int nx, int ny, size_t z0,
                            size_t planes, int threads) {
    const size_t plane = (size_t)nx * ny, row_bytes = ((size_t)nx - 2) * es;
    const size_t per_chunk = CHUNK_BYTES / row_bytes > 0 ? CHUNK_BYTES / row_bytes : 1;
    rows_job j = {phi,       slab, es, plane, row_bytes, z0, planes * ((size_t)ny - 2),
                  per_chunk, nx,   ny};
    const size_t chunks = (j.rows + per_chunk - 1) / per_chunk;
    if (planes * plane * es < PARALLEL_MIN_BYTES || thread_count(threads) <= 1) {
        for (size_t c = 0; c < chunks; ++c)
            rows_chunk(&j, c);
        return;
    }
    dg_pool_run(threads, chunks, rows_chunk, &j);
}

typedef struct widen_job {
    double *phi;
    const float *src;
    size_t first, count, per_chunk;
    int nx, ny, nz;
} widen_job;

static void widen_chunk(void *context, size_t chunk) {
    const widen_job *j = context;
    const size_t nx = (size_t)j->nx, ny = (size_t)j->ny, nz = (size_t)j->nz;
    size_t w = j->first + chunk * j->per_chunk;
    const size_t left = j->count - chunk * j->per_chunk;
    const size_t end = w + (j->per_chunk < left ? j->per_chunk : left);
    while (w < end) {
        const size_t row = w / nx, x = w % nx, y = row % ny, z = row / ny;
        const size_t row_end = (row + 1) * nx < end ? (row + 1) * nx : end;
        if (z > 0 && z < nz - 1 && y > 0 && y < ny - 1) {
            const size_t from = x > 0 ? w : w + 1,
                         to = row_end < row * nx + nx - 1 ? row_end : row * nx + nx - 1;
            for (size_t v = from; v < to; ++v)
                j->phi[v] = (double)j->src[v - j->first];
        }
        w = row_end;
    }
}

void dg_widen_interior(double *phi, const float *src, int nx, int ny, int nz, size_t first,
                       size_t count, int threads) {
    widen_job j = {phi, src, first, count, CHUNK_BYTES / sizeof(float), nx, ny, nz};
    const size_t chunks = (count + j.per_chunk - 1) / j.per_chunk;
    if (count * sizeof(float) < PARALLEL_MIN_BYTES || thread_count(threads) <= 1) {
        for (size_t c = 0; c < chunks; ++c)
            widen_chunk(&j, c);
        return;
    }
    dg_pool_run(threads, chunks, widen_chunk, &j);
}
