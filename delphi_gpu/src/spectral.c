/* Gauss-Seidel spectral radius, estimated as DelPhi's relfac does (docs/SOLVER.md): apply one
 * red-black Jacobi pass of the homogeneous operator to the lowest Laplacian eigenmode and take
 * the Rayleigh quotient on the even points.  Always accumulated in double. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "solver_internal.h"

/* sqrt(2/(n-1)) sin(pi i/(n-1)), i = 0..n-1: zero on the faces, unit norm. */
static double *eigen_axis(int n) {
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) return NULL;
    const double pi = 3.14159265358979323846, norm = sqrt(2.0 / (n - 1));
    for (int i = 0; i < n; ++i)
        t[i] = norm * sin(pi * i / (n - 1));
    t[0] = t[n - 1] = 0.0;
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

int dg_spectral_radius(const dg_prepared *p, int num_threads, double *spectral_radius) {
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    double *sx = eigen_axis(nx), *sy = eigen_axis(ny), *sz = eigen_axis(nz);
    double *odd = calloc(p->half_count[0] + 1, sizeof *odd); /* the odd-point result */
    double *plane_sum = calloc((size_t)nz, sizeof *plane_sum);
    double *term = malloc(((size_t)p->boundary_count[1] + 1) * sizeof *term);
    double spec = 0.995;
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
    spec = 2.0 * total;
    if (!(spec < 1.0)) spec = 0.995; /* DelPhi: > 1 becomes 0.995 (also 1 and NaN here) */
    if (spec < 0.0) spec = 0.0;
    *spectral_radius = spec;
    status = DG_OK;
done:
    free(sx), free(sy), free(sz), free(odd), free(plane_sum), free(term);
    return status;
}

int dg_estimate_iterations(double spectral_radius) {
    if (!(spectral_radius > 0.0 && spectral_radius < 1.0)) return 1;
    double n = 7.8 / log(1.0 + sqrt(1.0 - spectral_radius));
    return n < 1.0 ? 1 : n > 1e9 ? 1000000000 : (int)n;
}
