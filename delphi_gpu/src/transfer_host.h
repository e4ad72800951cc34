/* Host side of the full-grid transfers (load_phi / store_phi): the face layout, and copies done
 * on several threads (the copies and packs on the host pool, host_pool.h; zeroing on an OpenMP
 * team).  Used by the CPU backend and by the CUDA backend's staging.
 *
 * Face layout: the face points of an nx x ny x nz grid (all >= 3) numbered 0..F-1 in full-index
 * order: plane z = 0 whole, then for each plane z = 1..nz-2 row y = 0 whole, the two end points
 * (x = 0, x = nx-1) of rows y = 1..ny-2, row y = ny-1 whole, then plane z = nz-1 whole. */
#ifndef DG_TRANSFER_HOST_H
#define DG_TRANSFER_HOST_H

#include <stddef.h>

#ifdef __CUDACC__
#define DG_HOST_DEVICE __host__ __device__
#else
#define DG_HOST_DEVICE
#endif

/** Number of face points F. */
DG_HOST_DEVICE static inline size_t dg_face_count(int nx, int ny, int nz) {
    const size_t plane = (size_t)nx * ny, side = 2 * (size_t)nx + 2 * ((size_t)ny - 2);
    return 2 * plane + ((size_t)nz - 2) * side;
}

/** Full index of face point i (0 <= i < F). */
DG_HOST_DEVICE static inline size_t dg_face_full_index(int nx, int ny, int nz, size_t i) {
    const size_t plane = (size_t)nx * ny, side = 2 * (size_t)nx + 2 * ((size_t)ny - 2);
    if (i < plane) return i;
    i -= plane;
    const size_t sides = ((size_t)nz - 2) * side;
    if (i >= sides) return ((size_t)nz - 1) * plane + (i - sides);
    const size_t z = 1 + i / side, r = i % side, base = z * plane;
    if (r < (size_t)nx) return base + r;
    const size_t k = r - nx, ends = 2 * ((size_t)ny - 2);
    if (k < ends) return base + (1 + k / 2) * nx + ((k & 1) ? nx - 1 : 0);
    return base + ((size_t)ny - 1) * nx + (k - ends);
}

#ifdef __cplusplus
extern "C" {
#endif

/** dst[0..bytes) = src[0..bytes), split over threads (0 = OpenMP's default). */
void dg_copy_threads(void *dst, const void *src, size_t bytes, int threads);

/** dst[0..bytes) = 0, split over threads (0 = OpenMP's default). */
void dg_zero_threads(void *dst, size_t bytes, int threads);

/** packed[j] = phi[dg_face_full_index(first + j)] for j < count; elements of es bytes
 *  (4 or 8). */
void dg_face_pack(void *packed, const void *phi, size_t es, int nx, int ny, int nz, size_t first,
                  size_t count, int threads);

/** The interior points (1 <= x, y <= n-2) of planes z0 .. z0+planes-1 (all interior planes)
 *  from slab (whole planes from z0 on) into the full grid phi; elements of es bytes. */
void dg_store_interior_rows(void *phi, const void *slab, size_t es, int nx, int ny, size_t z0,
                            size_t planes, int threads);

/** phi[w] = (double)src[w - first] for the interior points w of [first, first + count) of an
 *  nx * ny * nz grid (x fastest); the face points of phi are left as they are. */
void dg_widen_interior(double *phi, const float *src, int nx, int ny, int nz, size_t first,
                       size_t count, int threads);

#ifdef __cplusplus
}
#endif

#endif /* DG_TRANSFER_HOST_H */
