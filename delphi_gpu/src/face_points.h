/* The six faces of an nx x ny x nz grid as one list of planes, shared by the host code and the
 * CUDA kernels: face after face x = 0, x = nx-1, y = 0, y = ny-1, z = 0, z = nz-1, and in each
 * plane the lower of the two remaining axes runs fastest.  Edge and corner points appear in
 * more than one plane (with the same value). */
#ifndef DG_FACE_POINTS_H
#define DG_FACE_POINTS_H

#include <math.h>

#ifdef __CUDACC__
#define DG_HOST_DEVICE __host__ __device__
#else
#define DG_HOST_DEVICE
#endif

DG_HOST_DEVICE static inline long dg_face_total(int nx, int ny, int nz) {
    return 2L * ((long)ny * nz + (long)nx * nz + (long)nx * ny);
}

/* 0-based coordinates of entry k of the face list. */
DG_HOST_DEVICE static inline void dg_face_coords(int nx, int ny, int nz, long k, int *x, int *y,
                                                 int *z) {
    const long x_plane = (long)ny * nz, y_plane = (long)nx * nz, z_plane = (long)nx * ny;
    if (k < 2 * x_plane) {
        const int side = k >= x_plane;
        const long j = k - side * x_plane;
        *x = side ? nx - 1 : 0, *y = (int)(j % ny), *z = (int)(j / ny);
        return;
    }
    k -= 2 * x_plane;
    if (k < 2 * y_plane) {
        const int side = k >= y_plane;
        const long j = k - side * y_plane;
        *y = side ? ny - 1 : 0, *x = (int)(j % nx), *z = (int)(j / nx);
        return;
    }
    k -= 2 * y_plane;
    const int side = k >= z_plane;
    const long j = k - side * z_plane;
    *z = side ? nz - 1 : 0, *x = (int)(j % nx), *y = (int)(j / nx);
}

/* One term of the Debye-Hueckel sum: q e^(-inverse_length r) / r (0 for r = 0).  The same
   expression on both backends, so they differ only by the rounding of exp and sqrt. */
DG_HOST_DEVICE static inline double dg_screened_term(double dx, double dy, double dz, double q,
                                                     double inverse_length) {
    const double r = sqrt(dx * dx + dy * dy + dz * dz);
    if (r == 0.0) return 0.0;
    return inverse_length > 0.0 ? q * exp(-inverse_length * r) / r : q / r;
}

#endif /* DG_FACE_POINTS_H */
