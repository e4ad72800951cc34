/* Gauss-Seidel spectral radius, estimated as DelPhi's relfac does (docs/SOLVER.md): apply one
 * red-black Jacobi pass of the homogeneous operator to the lowest Laplacian eigenmode and take
 * the Rayleigh quotient on the even points.  Always accumulated in double. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "solver_internal.h"

/* sqrt(2/(n-1)) sin(pi i/(n-1)), i = 0..n-1: zero on the faces, unit norm. */
double *dg_spectral_axis(int n) {
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) return NULL;
    const double pi = 3.14159265358979323846, norm = sqrt(2.0 / (n - 1));
    for (int i = 0; i < n; ++i)
        t[i] = norm * sin(pi * i / (n - 1));
    t[0] = t[n - 1] = 0.0;
    return t;
}

/* The mode along one axis: the sine above, or along a periodic axis (prepared.h) the constant
   1/sqrt(n-2) at every point, faces included (their images hold the same value), of unit norm
   over the n-2 points of a period. */
double *dg_spectral_mode_axis(int n, int periodic) {
    if (!periodic) return dg_spectral_axis(n);
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < n; ++i)
        t[i] = 1.0 / sqrt((double)(n - 2));
    return t;
}

typedef struct eigenmode {
    const double *sx, *sy, *sz;
    int nx, ny;
} eigenmode;

static inline double mode_at(const eigenmode *v, long w) {
    long plane = (long)v->nx * v->ny;
    return v->sx[w % v->nx] * v->sy[(w / v->nx) % v->ny] * v->sz[w / plane];
}

double dg_spectral_from_sum(double total) {
    double spec = 2.0 * total;
    if (!(spec < 1.0)) spec = 0.995; /* DelPhi: > 1 becomes 0.995 (also 1 and NaN here) */
    if (spec < 0.0) spec = 0.0;
    return spec;
}

int dg_spectral_radius_scratch(const dg_prepared *p, int num_threads, double *spectral_radius) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    double *sx = dg_spectral_mode_axis(nx, p->periodic & DG_PERIODIC_X);
    double *sy = dg_spectral_mode_axis(ny, p->periodic & DG_PERIODIC_Y);
    double *sz = dg_spectral_mode_axis(nz, p->periodic & DG_PERIODIC_Z);
    double *odd = calloc(p->half_count[0] + 1, sizeof *odd); /* the odd-point result */
    double *plane_sum = calloc((size_t)nz, sizeof *plane_sum);
    double *term = malloc(((size_t)p->boundary_count[1] + 1) * sizeof *term);
    int status = DG_ERR_OUT_OF_MEMORY;
    const int threads = num_threads > 0 ? num_threads : 0;
    if (!sx || !sy || !sz || !odd || !plane_sum || !term) goto done;
    eigenmode v = {sx, sy, sz, nx, ny};
    long off[2][6];
    dg_neighbour_offsets(nx, ny, 0, off[0]);
    dg_neighbour_offsets(nx, ny, 1, off[1]);

    /* Odd half-sweep from the mode's even points: uniform part ... */
#pragma omp parallel for schedule(static) num_threads(threads ? threads : omp_get_max_threads())
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y) {
            long first, last;
            dg_row_range(nx, ny, y, z, 0, &first, &last);
            /* mode_at of the six neighbours (x-1, x+1, y-1, y+1, z-1, z+1: the order of off[0])
               from the point's coordinates, without the divisions */
            const long base = (long)nx * (y + (long)ny * z);
            for (long h = first; h <= last; ++h) {
                const int x = (int)(2 * h - base);
                double sum = 0.0;
                sum += sx[x - 1] * sy[y] * sz[z];
                sum += sx[x + 1] * sy[y] * sz[z];
                sum += sx[x] * sy[y - 1] * sz[z];
                sum += sx[x] * sy[y + 1] * sz[z];
                sum += sx[x] * sy[y] * sz[z - 1];
                sum += sx[x] * sy[y] * sz[z + 1];
                double factor = p->has_salt && p->flag[0][h] ? p->factor[1] : p->factor[0];
                odd[h] = factor * sum;
            }
        }
#pragma omp parallel for schedule(static) num_threads(threads ? threads : omp_get_max_threads())
    /* ... then the boundary corrections (each point once in its colour's list). */
    for (int k = 0; k < p->boundary_count[0]; ++k) {
        long h = p->boundary_index[0][k];
        for (int f = 0; f < 6; ++f)
            odd[h] += p->boundary_weight[0][6 * k + f] * mode_at(&v, 2 * (h + off[0][f]) + 1);
    }
    /* Periodic axes: the odd face points hold their images' values, from the even half grid (the
       wrap after each even sweep leaves them so), here the mode's. */
    const long pairs = p->periodic ? dg_wrap_pair_count(nx, ny, nz, p->periodic) : 0;
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(nx, ny, nz, p->periodic, k, face, image);
        if (face[0] & 1) continue;
        odd[face[0] >> 1] = mode_at(&v, image[0]);
        odd[face[1] >> 1] = mode_at(&v, image[1]);
    }
    /* Even half-sweep from that result, dotted with the mode at the even points. */
#pragma omp parallel for schedule(static) num_threads(threads ? threads : omp_get_max_threads())
    for (int z = 1; z < nz - 1; ++z) {
        double acc = 0.0;
        for (int y = 1; y < ny - 1; ++y) {
            long first, last;
            dg_row_range(nx, ny, y, z, 1, &first, &last);
            const long base = (long)nx * (y + (long)ny * z);
            for (long h = first; h <= last; ++h) {
                double sum = 0.0;
                for (int f = 0; f < 6; ++f)
                    sum += odd[h + off[1][f]];
                double factor = p->has_salt && p->flag[1][h] ? p->factor[1] : p->factor[0];
                const int x = (int)(2 * h + 1 - base); /* mode_at(&v, 2 * h + 1) */
                acc += factor * sum * (sx[x] * sy[y] * sz[z]);
            }
        }
        plane_sum[z] = acc;
    }
    double total = 0.0;
    for (int z = 1; z < nz - 1; ++z)
        total += plane_sum[z]; /* fixed order */
#pragma omp parallel for schedule(static) num_threads(threads ? threads : omp_get_max_threads())
    /* The even boundary terms in parallel, summed in list order (independent of threads). */
    for (int k = 0; k < p->boundary_count[1]; ++k) {
        long h = p->boundary_index[1][k];
        double correction = 0.0;
        for (int f = 0; f < 6; ++f)
            correction += p->boundary_weight[1][6 * k + f] * odd[h + off[1][f]];
        term[k] = correction * mode_at(&v, 2 * h + 1);
    }
    for (int k = 0; k < p->boundary_count[1]; ++k)
        total += term[k];
    *spectral_radius = dg_spectral_from_sum(total);
    status = DG_OK;
done:
    free(sx), free(sy), free(sz), free(odd), free(plane_sum), free(term);
    return status;
}

/* ---- The same estimate plane by plane --------------------------------------------------------
   The odd result of plane q is needed only by the even points of planes q - 1 .. q + 1, so each
   thread takes a block of planes and keeps three odd planes in a ring (recomputing the two planes
   next to its block) instead of the whole odd half grid: no grid-sized scratch to fault in and
   to stream through.  Every value is formed by the same expressions in the same order as above
   and the sums are added in the same order, so the estimate is bitwise the same.  It needs the
   boundary lists ascending and at interior points (the dense path builds them so); otherwise
   dg_spectral_radius takes the whole-grid form. */

/* First list entry of each plane (start[z] .. start[z + 1] - 1 lie in plane z); 0 when a list
   is not ascending or has a point that is not interior. */
static int plane_starts(const dg_prepared *p, int c, int *start) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    const long plane = (long)nx * ny;
    const int *index = p->boundary_index[c];
    int z = 0;
    start[0] = 0;
    for (int k = 0; k < p->boundary_count[c]; ++k) {
        const long w = 2L * index[k] + c;
        const long x = w % nx, y = (w / nx) % ny, zk = w / plane;
        if ((k > 0 && index[k] <= index[k - 1]) || x < 1 || x > nx - 2 || y < 1 || y > ny - 2 ||
            zk < 1 || zk > nz - 2)
            return 0;
        while (z < zk)
            start[++z] = k;
    }
    while (z < nz)
        start[++z] = p->boundary_count[c];
    return 1;
}

typedef struct plane_ring {
    double *slot[3]; /* odd values of plane q in slot[q % 3], from its first half-index */
    long first[3];
} plane_ring;

/* Periodic axes: plane q's colour-0 face points of the wrap pairs take the mode at their images
   (dg_spectral_radius_scratch's wrap, plane by plane): on a periodic z face the points with x and
   y interior, on an interior plane the periodic x and y faces' points. */
static void wrap_plane(const dg_prepared *p, const eigenmode *v, int q, double *out, long first) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    const double *sx = v->sx, *sy = v->sy, *sz = v->sz;
    const long plane = (long)q * nx * ny;
    if (q == 0 || q == nz - 1) {
        if (!(p->periodic & DG_PERIODIC_Z)) return;
        const int image = q == 0 ? nz - 2 : 1;
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const long w = x + (long)nx * y + plane;
                if (!(w & 1)) out[(w >> 1) - first] = sx[x] * sy[y] * sz[image];
            }
        return;
    }
    if (p->periodic & DG_PERIODIC_X)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 0; x < nx; x += nx - 1) {
                const long w = x + (long)nx * y + plane;
                if (!(w & 1)) out[(w >> 1) - first] = sx[x == 0 ? nx - 2 : 1] * sy[y] * sz[q];
            }
    if (p->periodic & DG_PERIODIC_Y)
        for (int y = 0; y < ny; y += ny - 1)
            for (int x = 1; x < nx - 1; ++x) {
                const long w = x + (long)nx * y + plane;
                if (!(w & 1)) out[(w >> 1) - first] = sx[x] * sy[y == 0 ? ny - 2 : 1] * sz[q];
            }
}

/* The odd half-sweep result of plane q (as dg_spectral_radius_scratch's odd[] there). */
static void odd_plane(const dg_prepared *p, const eigenmode *v, const long off0[6],
                      const int *start0, int q, plane_ring *ring) {
    const int nx = p->nx, ny = p->ny;
    const double *sx = v->sx, *sy = v->sy, *sz = v->sz;
    long first, end;
    dg_plane_range(nx, ny, q, 0, &first, &end);
    double *out = ring->slot[q % 3];
    ring->first[q % 3] = first;
    memset(out, 0, (size_t)(end - first) * sizeof *out);
    if (p->periodic) wrap_plane(p, v, q, out, first);
    if (q == 0 || q == p->nz - 1) return;
    for (int y = 1; y < ny - 1; ++y) {
        long a, b;
        dg_row_range(nx, ny, y, q, 0, &a, &b);
        const long base = (long)nx * (y + (long)ny * q);
        for (long h = a; h <= b; ++h) {
            const int x = (int)(2 * h - base);
            double sum = 0.0;
            sum += sx[x - 1] * sy[y] * sz[q];
            sum += sx[x + 1] * sy[y] * sz[q];
            sum += sx[x] * sy[y - 1] * sz[q];
            sum += sx[x] * sy[y + 1] * sz[q];
            sum += sx[x] * sy[y] * sz[q - 1];
            sum += sx[x] * sy[y] * sz[q + 1];
            double factor = p->has_salt && p->flag[0][h] ? p->factor[1] : p->factor[0];
            out[h - first] = factor * sum;
        }
    }
    for (int k = start0[q]; k < start0[q + 1]; ++k) {
        const long h = p->boundary_index[0][k];
        for (int f = 0; f < 6; ++f)
            out[h - first] += p->boundary_weight[0][6 * k + f] * mode_at(v, 2 * (h + off0[f]) + 1);
    }
}

/* Odd value at half-index h + off1[f] of an even point of plane z. */
static inline double odd_at(const plane_ring *ring, int z, long g, int f) {
    const int q = f == 4 ? z - 1 : f == 5 ? z + 1 : z;
    return ring->slot[q % 3][g - ring->first[q % 3]];
}

static int spectral_by_planes(const dg_prepared *p, int num_threads, const int *start0,
                              const int *start1, double *spectral_radius) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    double *sx = dg_spectral_mode_axis(nx, p->periodic & DG_PERIODIC_X);
    double *sy = dg_spectral_mode_axis(ny, p->periodic & DG_PERIODIC_Y);
    double *sz = dg_spectral_mode_axis(nz, p->periodic & DG_PERIODIC_Z);
    double *plane_sum = calloc((size_t)nz, sizeof *plane_sum);
    double *term = malloc(((size_t)p->boundary_count[1] + 1) * sizeof *term);
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    const long half_plane = ((long)nx * ny + 1) / 2 + 1;
    double *rings = malloc((size_t)threads * 3 * half_plane * sizeof *rings);
    int status = DG_ERR_OUT_OF_MEMORY;
    if (!sx || !sy || !sz || !plane_sum || !term || !rings) goto done;
    const eigenmode v = {sx, sy, sz, nx, ny};
    long off[2][6];
    dg_neighbour_offsets(nx, ny, 0, off[0]);
    dg_neighbour_offsets(nx, ny, 1, off[1]);
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int z0 = 1 + (int)((long)(nz - 2) * t / n),
                  z1 = 1 + (int)((long)(nz - 2) * (t + 1) / n);
        plane_ring ring;
        for (int i = 0; i < 3; ++i)
            ring.slot[i] = rings + ((size_t)t * 3 + i) * half_plane;
        if (z0 < z1) {
            odd_plane(p, &v, off[0], start0, z0 - 1, &ring);
            odd_plane(p, &v, off[0], start0, z0, &ring);
        }
        for (int z = z0; z < z1; ++z) {
            odd_plane(p, &v, off[0], start0, z + 1, &ring);
            /* Even half-sweep of plane z from the odd result, dotted with the mode. */
            double acc = 0.0;
            for (int y = 1; y < ny - 1; ++y) {
                long a, b;
                dg_row_range(nx, ny, y, z, 1, &a, &b);
                const long base = (long)nx * (y + (long)ny * z);
                for (long h = a; h <= b; ++h) {
                    double sum = 0.0;
                    for (int f = 0; f < 6; ++f)
                        sum += odd_at(&ring, z, h + off[1][f], f);
                    double factor = p->has_salt && p->flag[1][h] ? p->factor[1] : p->factor[0];
                    const int x = (int)(2 * h + 1 - base);
                    acc += factor * sum * (sx[x] * sy[y] * sz[z]);
                }
            }
            plane_sum[z] = acc;
            for (int k = start1[z]; k < start1[z + 1]; ++k) {
                const long h = p->boundary_index[1][k];
                double correction = 0.0;
                for (int f = 0; f < 6; ++f)
                    correction +=
                        p->boundary_weight[1][6 * k + f] * odd_at(&ring, z, h + off[1][f], f);
                term[k] = correction * mode_at(&v, 2 * h + 1);
            }
        }
    }
    double total = 0.0;
    for (int z = 1; z < nz - 1; ++z)
        total += plane_sum[z]; /* fixed order */
    for (int k = 0; k < p->boundary_count[1]; ++k)
        total += term[k];
    *spectral_radius = dg_spectral_from_sum(total);
    status = DG_OK;
done:
    free(sx), free(sy), free(sz), free(plane_sum), free(term), free(rings);
    return status;
}

int dg_spectral_lists_ordered(const dg_prepared *p) {
    int *start = malloc(((size_t)p->nz + 1) * sizeof *start);
    const int ordered = start && plane_starts(p, 0, start) && plane_starts(p, 1, start);
    free(start);
    return ordered;
}

int dg_spectral_radius(const dg_prepared *p, int num_threads, double *spectral_radius) {
    int *start0 = malloc(((size_t)p->nz + 1) * sizeof *start0);
    int *start1 = malloc(((size_t)p->nz + 1) * sizeof *start1);
    int status = DG_ERR_OUT_OF_MEMORY;
    if (start0 && start1) {
        if (plane_starts(p, 0, start0) && plane_starts(p, 1, start1))
            status = spectral_by_planes(p, num_threads, start0, start1, spectral_radius);
        else
            status = dg_spectral_radius_scratch(p, num_threads, spectral_radius);
    }
    free(start0), free(start1);
    return status;
}

int dg_estimate_iterations(double spectral_radius) {
    if (!(spectral_radius > 0.0 && spectral_radius < 1.0)) return 1;
    double n = 7.8 / log(1.0 + sqrt(1.0 - spectral_radius));
    return n < 1.0 ? 1 : n > 1e9 ? 1000000000 : (int)n;
}
