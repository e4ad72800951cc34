/* The Gauss-Seidel spectral radius estimate (dg_spectral_radius, spectral.c) on the device, from
 * the medium already there: one red-black Jacobi pass of the homogeneous operator applied to the
 * lowest Laplacian eigenmode, and the Rayleigh quotient on the colour-1 points.  On the host it
 * took 0.02-0.03 s at 385^3 and 0.15 s at 769^3 (16 cores), before the first sweep could start.
 *
 * Every value is the host's expression in the host's order (the build has no FMA contraction,
 * spectral.c none either), and the sums are added in the host's order:
 *   - odd[h] (colour 0): the six mode values summed x-, x+, y-, y+, z-, z+, times the point's
 *     factor; then, for the boundary points of colour 0, the six weighted mode values added one
 *     after the other (each point once in its list, so no two threads touch one point);
 *   - per plane z, the colour-1 terms factor * sum * mode added row by row, point by point: one
 *     warp per plane computes 32 terms at a time and adds them in order (the dependent chain of
 *     additions is the cost: about 70 000 per plane at 385^3, all planes at once);
 *   - the colour-1 boundary terms, one per list entry, in list order;
 *   - on the host, the plane sums in z order, then the list terms in list order.
 * That list order is the host's only when its lists are ascending at interior points (the
 * device's copies are sorted), which dg_spectral_lists_ordered checks; otherwise the host
 * computes the estimate.  Periodic axes: the mode is constant along them and the colour-0 face
 * points of the wrap take the mode's values at their images (the host's whole-grid form).
 * test_gpu_agreement and test_gpu_periodic compare the two bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.cuh"

namespace {

struct spectral_args {
    int nx, ny, nz;
    int has_salt;
    double factor0, factor1;
    const double *sx, *sy, *sz;
    const unsigned char *flag0, *flag1; /* bit 0: salt (read only with has_salt) */
    long long off0[6], off1[6];         /* neighbour offsets of colour 0 and 1 points */
};

/* The mode at full index w (spectral.c's mode_at). */
__device__ __forceinline__ double mode_at(const spectral_args &a, long long w) {
    const long long plane = (long long)a.nx * a.ny;
    return a.sx[w % a.nx] * a.sy[(w / a.nx) % a.ny] * a.sz[w / plane];
}

/* Colour 0's uniform part: one block per interior row. */
__global__ void k_odd_rows(spectral_args a, double *odd) {
    const long long r = blockIdx.x;
    const int y = 1 + (int)(r % (a.ny - 2)), z = 1 + (int)(r / (a.ny - 2));
    long first, last;
    dg_row_range(a.nx, a.ny, y, z, 0, &first, &last);
    const long long base = (long long)a.nx * (y + (long long)a.ny * z);
    const double *sx = a.sx;
    const double my = a.sy[y], mz = a.sz[z];
    for (long long h = first + threadIdx.x; h <= last; h += blockDim.x) {
        const int x = (int)(2 * h - base);
        double sum = 0.0;
        sum += sx[x - 1] * my * mz;
        sum += sx[x + 1] * my * mz;
        sum += sx[x] * a.sy[y - 1] * mz;
        sum += sx[x] * a.sy[y + 1] * mz;
        sum += sx[x] * my * a.sz[z - 1];
        sum += sx[x] * my * a.sz[z + 1];
        const double factor = a.has_salt && (a.flag0[h] & 1) ? a.factor1 : a.factor0;
        odd[h] = factor * sum;
    }
}

/* Colour 0's boundary corrections, one thread per list entry. */
__global__ void k_odd_list(spectral_args a, const int *index, const double *weight, int count,
                           double *odd) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long h = index[k];
    double v = odd[h];
#pragma unroll
    for (int f = 0; f < 6; ++f)
        v += weight[6 * (size_t)k + f] * mode_at(a, 2 * (h + a.off0[f]) + 1);
    odd[h] = v;
}

/* Periodic axes: a colour-0 face point of a wrap pair takes the mode's value at its image. */
__global__ void k_odd_wrap(spectral_args a, int periodic, long pairs, double *odd) {
    const long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (k >= pairs) return;
    long face[2], image[2];
    dg_wrap_pair_points(a.nx, a.ny, a.nz, periodic, k, face, image);
    if (face[0] & 1) return;
    odd[face[0] >> 1] = mode_at(a, image[0]);
    odd[face[1] >> 1] = mode_at(a, image[1]);
}

/* Colour 1's term at half-index h of row (y, z) (base: the row's first full index), from its
   loaded inputs: the six odd neighbours and the point's flag. */
struct even_inputs {
    double o[6];
    unsigned char flag;
};

__device__ __forceinline__ void even_load(const spectral_args &a, const double *odd, long long h,
                                          even_inputs &in) {
#pragma unroll
    for (int f = 0; f < 6; ++f)
        in.o[f] = odd[h + a.off1[f]];
    in.flag = a.has_salt ? a.flag1[h] : 0;
}

__device__ __forceinline__ double even_term(const spectral_args &a, const even_inputs &in,
                                            long long h, int y, int z, long long base) {
    double sum = 0.0;
#pragma unroll
    for (int f = 0; f < 6; ++f)
        sum += in.o[f];
    const double factor = a.has_salt && (in.flag & 1) ? a.factor1 : a.factor0;
    const int x = (int)(2 * h + 1 - base);
    return factor * sum * (a.sx[x] * a.sy[y] * a.sz[z]);
}

/* One warp per interior plane: the plane's colour-1 terms in row order, added in that order.
   The loads of the next 32 points are issued before the 32 additions of the current ones, so
   their latency overlaps that dependent chain. */
__global__ void k_even_planes(spectral_args a, const double *odd, double *plane_sum) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int z = 1 + warp;
    if (z > a.nz - 2) return;
    /* the cursor: row y, first half-index h0 of the current 32 */
    int y = 1;
    long first, last;
    long long base;
    auto start_row = [&](int row) {
        dg_row_range(a.nx, a.ny, row, z, 1, &first, &last);
        base = (long long)a.nx * (row + (long long)a.ny * z);
    };
    start_row(y);
    while (y <= a.ny - 2 && first > last)
        start_row(++y);
    long long h0 = first;
    even_inputs next;
    if (y <= a.ny - 2 && h0 + lane <= last) even_load(a, odd, h0 + lane, next);
    double acc = 0.0;
    while (y <= a.ny - 2) {
        const even_inputs cur = next;
        const int cur_y = y;
        const long long cur_h0 = h0, cur_last = last, cur_base = base;
        /* advance the cursor and load the next 32 */
        h0 += 32;
        if (h0 > last) {
            do
                start_row(++y);
            while (y <= a.ny - 2 && first > last);
            h0 = first;
        }
        if (y <= a.ny - 2 && h0 + lane <= last) even_load(a, odd, h0 + lane, next);
        const long long h = cur_h0 + lane;
        const double term = h <= cur_last ? even_term(a, cur, h, cur_y, z, cur_base) : 0.0;
        const int n = (int)min(32LL, cur_last - cur_h0 + 1);
        for (int i = 0; i < n; ++i)
            acc += __shfl_sync(0xffffffffu, term, i);
    }
    if (lane == 0) plane_sum[z] = acc;
}

/* Colour 1's boundary terms, one per list entry. */
__global__ void k_even_list(spectral_args a, const int *index, const double *weight, int count,
                            const double *odd, double *term) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long h = index[k];
    double correction = 0.0;
#pragma unroll
    for (int f = 0; f < 6; ++f)
        correction += weight[6 * (size_t)k + f] * odd[h + a.off1[f]];
    term[k] = correction * mode_at(a, 2 * h + 1);
}

constexpr int kThreads = 256;

unsigned blocks_for(long long count) {
    return (unsigned)((count + kThreads - 1) / kThreads);
}

/* The kernels on the medium's stream, then the plane sums and the list terms to host[]. */
int run_kernels(dg_cuda_state *st, const spectral_args &a, const double *const axis[3], double *odd,
                double *d_axis, double *plane_sum, double *term, double *host, dg_error *err) {
    const int nx = a.nx, ny = a.ny, nz = a.nz;
    const int nb0 = st->sparse[0].boundary_count, nb1 = st->sparse[1].boundary_count;
    DG_CUDA_TRY(
        cudaMemcpyAsync(d_axis, axis[0], nx * sizeof(double), cudaMemcpyHostToDevice, st->stream),
        "cudaMemcpyAsync (spectral radius: x axis)");
    DG_CUDA_TRY(cudaMemcpyAsync(d_axis + nx, axis[1], ny * sizeof(double), cudaMemcpyHostToDevice,
                                st->stream),
                "cudaMemcpyAsync (spectral radius: y axis)");
    DG_CUDA_TRY(cudaMemcpyAsync(d_axis + nx + ny, axis[2], nz * sizeof(double),
                                cudaMemcpyHostToDevice, st->stream),
                "cudaMemcpyAsync (spectral radius: z axis)");
    /* odd is zero outside the interior rows' colour-0 points, as the host's; the face planes'
       sums are never written (the host copy below reads them, the sum skips them) */
    DG_CUDA_TRY(cudaMemsetAsync(odd, 0, st->half_count[0] * sizeof(double), st->stream),
                "cudaMemsetAsync (spectral radius: odd half grid)");
    DG_CUDA_TRY(cudaMemsetAsync(plane_sum, 0, nz * sizeof(double), st->stream),
                "cudaMemsetAsync (spectral radius: plane sums)");
    k_odd_rows<<<(unsigned)((long long)(ny - 2) * (nz - 2)), kThreads, 0, st->stream>>>(a, odd);
    DG_CUDA_LAUNCHED("spectral radius: colour 0 rows kernel");
    if (nb0 > 0) {
        k_odd_list<<<blocks_for(nb0), kThreads, 0, st->stream>>>(
            a, st->sparse[0].index, st->sparse[0].weight_raw, nb0, odd);
        DG_CUDA_LAUNCHED("spectral radius: colour 0 list kernel");
    }
    const long pairs = st->periodic ? dg_wrap_pair_count(nx, ny, nz, st->periodic) : 0;
    if (pairs > 0) {
        k_odd_wrap<<<blocks_for(pairs), kThreads, 0, st->stream>>>(a, st->periodic, pairs, odd);
        DG_CUDA_LAUNCHED("spectral radius: periodic faces kernel");
    }
    k_even_planes<<<blocks_for(32LL * (nz - 2)), kThreads, 0, st->stream>>>(a, odd, plane_sum);
    DG_CUDA_LAUNCHED("spectral radius: colour 1 planes kernel");
    if (nb1 > 0) {
        k_even_list<<<blocks_for(nb1), kThreads, 0, st->stream>>>(
            a, st->sparse[1].index, st->sparse[1].weight_raw, nb1, odd, term);
        DG_CUDA_LAUNCHED("spectral radius: colour 1 list kernel");
    }
    DG_CUDA_TRY(cudaMemcpyAsync(host, plane_sum, ((size_t)nz + nb1) * sizeof(double),
                                cudaMemcpyDeviceToHost, st->stream),
                "cudaMemcpyAsync (spectral radius: sums)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "spectral radius (cudaStreamSynchronize)");
    return DG_OK;
}

} // namespace

int dg_cuda_spectral_radius(dg_cuda_state *st, const dg_prepared *p, double *out, dg_error *err) {
    const int nx = st->nx, ny = st->ny, nz = st->nz;
    const int nb1 = st->sparse[1].boundary_count;
    if (nx < 3 || ny < 3 || nz < 3 || st->sparse[0].boundary_count != p->boundary_count[0] ||
        nb1 != p->boundary_count[1] || !dg_spectral_lists_ordered(p) || p->periodic != st->periodic)
        return DG_ERR_UNSUPPORTED;
    double *axis[3] = {dg_spectral_mode_axis(nx, p->periodic & DG_PERIODIC_X),
                       dg_spectral_mode_axis(ny, p->periodic & DG_PERIODIC_Y),
                       dg_spectral_mode_axis(nz, p->periodic & DG_PERIODIC_Z)};
    double *host = (double *)malloc(((size_t)nz + nb1 + 1) * sizeof(double));
    /* One device block: odd (colour 0's half grid), the three axes, the plane sums, the list
       terms.  Without the memory (host or device) the host computes the estimate. */
    const size_t odd_n = st->half_count[0], axes_n = (size_t)nx + ny + nz;
    double *block = NULL;
    int status = DG_ERR_UNSUPPORTED;
    if (axis[0] && axis[1] && axis[2] && host) {
        if (cudaMalloc((void **)&block, (odd_n + axes_n + nz + nb1 + 1) * sizeof(double)) !=
            cudaSuccess) {
            (void)cudaGetLastError(); /* an allocation failure is not sticky: clear it */
            block = NULL;
        }
    }
    if (block) {
        spectral_args a;
        a.nx = nx, a.ny = ny, a.nz = nz;
        a.has_salt = p->has_salt;
        a.factor0 = p->factor[0], a.factor1 = p->factor[1];
        double *odd = block, *d_axis = block + odd_n, *plane_sum = d_axis + axes_n;
        a.sx = d_axis, a.sy = d_axis + nx, a.sz = d_axis + nx + ny;
        a.flag0 = st->flag[0], a.flag1 = st->flag[1];
        for (int f = 0; f < 6; ++f)
            a.off0[f] = st->offsets[0][f], a.off1[f] = st->offsets[1][f];
        status = run_kernels(st, a, axis, odd, d_axis, plane_sum, plane_sum + nz, host, err);
        if (status == DG_OK) {
            double sum = 0.0;
            for (int z = 1; z < nz - 1; ++z)
                sum += host[z]; /* fixed order, as the host's plane sums */
            for (int k = 0; k < nb1; ++k)
                sum += host[nz + k];
            *out = dg_spectral_from_sum(sum);
        }
        const cudaError_t code = cudaFree(block);
        if (code != cudaSuccess && status == DG_OK)
            status = dg_cuda_fail(err, code, "cudaFree (spectral radius)");
    }
    free(axis[0]), free(axis[1]), free(axis[2]), free(host);
    return status;
}
