/* The multigrid hierarchy on the device: the salt map, the symmetrising scale D and the
 * Galerkin aggregation levels, by the same formulas in the same order as dg_mg_build
 * (delphi_gpu/src/mg/mg_hierarchy.c), so both backends precondition with the same operators. */
#include <cuda_runtime.h>
#include <math.h>

#include "cuda_mg.cuh"

namespace {

struct fine_coefficients {
    double f0, f1;
    long long h0; /* the salt map's split layout (split_index) */
    const unsigned char *salt;
    const int *slot; /* 2k + colour of the boundary entry at a full index, or -1 */
    const double *weight0, *weight1;
};

__device__ __forceinline__ double coefficient(const fine_coefficients &fc, long long w, int f) {
    double value = fc.salt[split_index(fc.h0, w)] ? fc.f1 : fc.f0;
    const int s = fc.slot[w];
    if (s >= 0) value += (s & 1 ? fc.weight1 : fc.weight0)[6LL * (s >> 1) + f];
    return value;
}

/* The salt map in the split layout: DelPhi's flags of colour 0, then those of colour 1, as 0/1. */
__global__ void k_salt_map(long long count, long long h0, const unsigned char *flag0,
                           const unsigned char *flag1, unsigned char *salt) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x)
        salt[i] = (i < h0 ? flag0[i] : flag1[i - h0]) != 0;
}

__global__ void k_slot(int count, const int *index, int colour, int *slot) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) slot[2LL * index[k] + colour] = 2 * k + colour;
}

/* plane[y + ny z] = D(1, y, z): first the line x = y = 1 (one block), then each plane's x = 1
   line (a block per z).  The products along a line are sequential (the host's order, so the
   same bits), but their coefficients are not: a block reads a chunk of MG_THREADS of them in
   parallel into shared memory and one thread then multiplies along the chunk.  (One thread per
   line reading the coefficients itself waited for two dependent loads per step: 0.2 ms for the
   line and 0.5 ms for the planes at 385^3.) */
__global__ void __launch_bounds__(MG_THREADS)
    k_scale_line(grid_dims g, fine_coefficients fc, double *plane) {
    __shared__ double ratio[MG_THREADS];
    double d = 1.0;
    for (int z0 = 1; z0 < g.nz - 1; z0 += MG_THREADS) {
        const int z = z0 + threadIdx.x;
        if (z > 1 && z < g.nz - 1) {
            const long long w = 1 + g.sy + g.sz * z;
            ratio[threadIdx.x] = coefficient(fc, w - g.sz, 5) / coefficient(fc, w, 4);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < MG_THREADS && z0 + k < g.nz - 1; ++k) {
                if (z0 + k > 1) d *= ratio[k];
                plane[(long long)g.ny * (z0 + k) + 1] = d;
            }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(MG_THREADS)
    k_scale_planes(grid_dims g, fine_coefficients fc, double *plane) {
    __shared__ double above[MG_THREADS], own[MG_THREADS];
    const int z = 1 + blockIdx.x;
    if (z >= g.nz - 1) return;
    double v = plane[(long long)g.ny * z + 1];
    for (int y0 = 2; y0 < g.ny - 1; y0 += MG_THREADS) {
        const int y = y0 + threadIdx.x;
        if (y < g.ny - 1) {
            const long long w = 1 + g.sy * y + g.sz * z;
            above[threadIdx.x] = coefficient(fc, w - g.sy, 3);
            own[threadIdx.x] = coefficient(fc, w, 2);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < MG_THREADS && y0 + k < g.ny - 1; ++k) {
                v = v * above[k] / own[k];
                plane[(long long)g.ny * z + y0 + k] = v;
            }
        __syncthreads();
    }
}

/* Along every row: D(x) = D(x - 1) * c(x - 1, x+) / c(x, x-), x ascending, the same products in
   the same order as the host's.  A block takes MG_SCALE_ROWS rows and walks them in chunks of
   MG_SCALE_ROWS columns: its warps read the coefficients of a chunk (consecutive x: coalesced) into
   shared memory as ratios, one thread per row multiplies along its row of the chunk, and the warps
   write the chunk's D back coalesced.  (One thread per row reading the grid itself made each warp
   touch 32 rows per step: 7 ms at 385^3.) */
#define MG_SCALE_ROWS 32
__global__ void __launch_bounds__(MG_THREADS)
    k_scale_rows(grid_dims g, fine_coefficients fc, const double *plane, float *dscale, int *bad) {
    __shared__ double ratio[MG_SCALE_ROWS][MG_SCALE_ROWS + 1];
    __shared__ float scale[MG_SCALE_ROWS][MG_SCALE_ROWS + 1];
    const long long rows = (long long)(g.ny - 2) * (g.nz - 2);
    const long long first = (long long)blockIdx.x * MG_SCALE_ROWS;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = MG_THREADS / 32;
    const int walker = threadIdx.x < MG_SCALE_ROWS && first + threadIdx.x < rows;
    double v = 0.0;
    int wrong = 0;
    if (walker) {
        const long long t = first + threadIdx.x;
        const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
        v = plane[(long long)g.ny * z + y];
    }
    for (int x0 = 1; x0 < g.nx - 1; x0 += MG_SCALE_ROWS) {
        const int x = x0 + lane;
        for (int k = warp; k < MG_SCALE_ROWS; k += warps) {
            const long long t = first + k;
            if (t >= rows || x > g.nx - 2 || x == 1) continue;
            const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
            const long long w = x + g.sy * y + g.sz * z;
            ratio[k][lane] = coefficient(fc, w - 1, 1) / coefficient(fc, w, 0);
        }
        __syncthreads();
        if (walker)
            for (int c = 0; c < MG_SCALE_ROWS && x0 + c < g.nx - 1; ++c) {
                if (x0 + c > 1) v *= ratio[threadIdx.x][c];
                if (!(v > 0.0) || !isfinite(v) || v > 1e30 || v < 1e-30) wrong = 1;
                scale[threadIdx.x][c] = (float)v;
            }
        __syncthreads();
        for (int k = warp; k < MG_SCALE_ROWS; k += warps) {
            const long long t = first + k;
            if (t >= rows || x > g.nx - 2) continue;
            const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
            dscale[x + g.sy * y + g.sz * z] = scale[k][lane];
        }
        /* the next chunk writes ratio (read only by the walkers, who are past the barrier above)
           and then scale after its first barrier, when every thread has stored this chunk */
    }
    if (wrong) atomicOr(bad, 1);
}

__device__ __forceinline__ double fine_coupling(const fine_coefficients &fc, const float *dscale,
                                                long long w, long long stride, int plus) {
    const float dn = dscale[w + stride];
    if (dn == 0.0f) return 0.0;
    const double a = coefficient(fc, w, plus) * dscale[w];
    const double b = coefficient(fc, w + stride, plus - 1) * dn;
    return sqrt(a * b);
}

__global__ void k_build_first(grid_dims g, fine_coefficients fc, const float *dscale, level_view c,
                              int *bad) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long q = level_index(c, t, &X, &Y, &Z);
        double diag = 0, cx = 0, cy = 0, cz = 0;
        for (int k = 0; k < 8; ++k) {
            const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                      z = 2 * Z - 1 + (k >> 2);
            if (x > g.nx - 2 || y > g.ny - 2 || z > g.nz - 2) continue;
            const long long w = x + g.sy * y + g.sz * z;
            diag += dscale[w];
            const double ex = fine_coupling(fc, dscale, w, 1, 1);
            const double ey = fine_coupling(fc, dscale, w, g.sy, 3);
            const double ez = fine_coupling(fc, dscale, w, g.sz, 5);
            if (k & 1)
                cx += ex;
            else
                diag -= 2 * ex;
            if (k & 2)
                cy += ey;
            else
                diag -= 2 * ey;
            if (k & 4)
                cz += ez;
            else
                diag -= 2 * ez;
        }
        c.diag[q] = (float)diag;
        c.cx[q] = X < c.mx ? (float)cx : 0.0f;
        c.cy[q] = Y < c.my ? (float)cy : 0.0f;
        c.cz[q] = Z < c.mz ? (float)cz : 0.0f;
        if (!(c.diag[q] > 0.0f)) atomicOr(bad, 2);
    }
}

__global__ void k_build_next(level_view f, level_view c, int *bad) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long Q = level_index(c, t, &X, &Y, &Z);
        double diag = 0, cx = 0, cy = 0, cz = 0;
        for (int k = 0; k < 8; ++k) {
            const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                      z = 2 * Z - 1 + (k >> 2);
            if (x > f.mx || y > f.my || z > f.mz) continue;
            const long long q = x + f.sx * y + f.sy * z;
            diag += f.diag[q];
            if (k & 1)
                cx += f.cx[q];
            else
                diag -= 2.0 * f.cx[q];
            if (k & 2)
                cy += f.cy[q];
            else
                diag -= 2.0 * f.cy[q];
            if (k & 4)
                cz += f.cz[q];
            else
                diag -= 2.0 * f.cz[q];
        }
        c.diag[Q] = (float)diag;
        c.cx[Q] = X < c.mx ? (float)cx : 0.0f;
        c.cy[Q] = Y < c.my ? (float)cy : 0.0f;
        c.cz[Q] = Z < c.mz ? (float)cz : 0.0f;
        if (!(c.diag[Q] > 0.0f)) atomicOr(bad, 2);
    }
}

} // namespace

int dg_cuda_mg_blocks(long long count) {
    long long b = (count + MG_THREADS - 1) / MG_THREADS;
    return (int)(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b));
}

int dg_cuda_mg_upload(void **dst, const void *src, size_t bytes, const char *what, dg_error *err) {
    DG_CUDA_TRY(cudaMalloc(dst, bytes ? bytes : 1), what);
    if (bytes) DG_CUDA_TRY(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), what);
    return DG_OK;
}

/* D, the salt map and the coarse operators on the device (slot map and the per-plane D
   values are temporary). */
int dg_cuda_mg_build(mg_device *d, dg_error *err) {
    const dg_prepared *p = d->h->prep;
    const size_t n = p->point_count;
    unsigned char *flag[2] = {NULL, NULL};
    int *slot = NULL, *bad = NULL;
    double *plane = NULL;
    int st = DG_OK, bad_host = 0;
    cudaError_t code = cudaSuccess;
    fine_coefficients fc;
    const char *what = "cudaMalloc (multigrid set-up)";
    if ((code = cudaMalloc((void **)&slot, n * sizeof(int))) != cudaSuccess ||
        (code = cudaMalloc((void **)&bad, sizeof(int))) != cudaSuccess ||
        (code = cudaMalloc((void **)&plane, sizeof(double) * p->ny * p->nz)) != cudaSuccess)
        goto done;
    what = "multigrid set-up";
    if ((code = cudaMemset(slot, 0xff, n * sizeof(int))) != cudaSuccess ||
        (code = cudaMemset(bad, 0, sizeof(int))) != cudaSuccess)
        goto done;
    if (p->has_salt)
        for (int c = 0; c < 2; ++c)
            if ((st = dg_cuda_mg_upload((void **)&flag[c], p->flag[c], p->half_count[c],
                                        "multigrid flags", err)))
                goto done;
    if (!p->has_salt && (code = cudaMemset(d->salt, 0, n)) != cudaSuccess) goto done;
    /* the memsets and uploads so far ran on the legacy stream; the kernels below do not wait */
    if ((code = cudaDeviceSynchronize()) != cudaSuccess) goto done;
    if (p->has_salt) {
        k_salt_map<<<dg_cuda_mg_blocks((long long)n), MG_THREADS, 0, d->stream>>>(
            (long long)n, d->g.h0, flag[0], flag[1], d->salt);
        if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    }
    for (int c = 0; c < 2; ++c)
        if (d->boundary_count[c]) {
            k_slot<<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
                d->boundary_count[c], d->boundary_index[c], c, slot);
            if ((code = cudaGetLastError()) != cudaSuccess) goto done;
        }
    fc.f0 = p->factor[0], fc.f1 = p->factor[1], fc.h0 = d->g.h0, fc.salt = d->salt;
    fc.slot = slot;
    fc.weight0 = d->boundary_weight[0], fc.weight1 = d->boundary_weight[1];
    k_scale_line<<<1, MG_THREADS, 0, d->stream>>>(d->g, fc, plane);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    k_scale_planes<<<p->nz - 2, MG_THREADS, 0, d->stream>>>(d->g, fc, plane);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    k_scale_rows<<<(int)(((long long)(p->ny - 2) * (p->nz - 2) + MG_SCALE_ROWS - 1) /
                         MG_SCALE_ROWS),
                   MG_THREADS, 0, d->stream>>>(d->g, fc, plane, d->dscale, bad);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    for (int l = 0; l < d->level_count; ++l) {
        if (l == 0)
            k_build_first<<<dg_cuda_mg_blocks(d->levels[0].count), MG_THREADS, 0, d->stream>>>(
                d->g, fc, d->dscale, d->levels[0], bad);
        else
            k_build_next<<<dg_cuda_mg_blocks(d->levels[l].count), MG_THREADS, 0, d->stream>>>(
                d->levels[l - 1], d->levels[l], bad);
        if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    }
    {
        /* phi's check (the caller's, possibly on a thread of its own) ran beside the set-up so
           far; phi's transfer overlaps the build kernels queued above */
        const double waited = dg_wall_seconds();
        const int verdict = dg_cuda_mg_check_verdict(d);
        d->check_wait_seconds = dg_wall_seconds() - waited;
        if (verdict < 0) {
            st = dg_error_set(err, DG_ERR_NONFINITE_INPUT, "phi holds a non-finite value");
            goto done;
        }
        d->interior_zero = verdict == 1;
        const double t0 = dg_wall_seconds();
        st = d->phi ? dg_cuda_mg_upload_phi(d, err) : DG_OK; /* none for a Newton step */
        d->phi_in_seconds = dg_wall_seconds() - t0;
        if (st != DG_OK) goto done;
    }
    if ((code = cudaMemcpyAsync(&bad_host, bad, sizeof(int), cudaMemcpyDeviceToHost, d->stream)) !=
            cudaSuccess ||
        (code = cudaStreamSynchronize(d->stream)) != cudaSuccess)
        goto done;
    if (bad_host & 1)
        st = dg_error_set(err, DG_ERR_UNSUPPORTED,
                          "multigrid: the medium has a non-positive coupling (a face permittivity "
                          "<= 0), so the operator is not symmetrisable; use the SOR solver");
    else if (bad_host & 2)
        st = dg_error_set(err, DG_ERR_INTERNAL,
                          "multigrid: a coarse operator lost its positive diagonal");
done:
    if (st == DG_OK && code != cudaSuccess) st = dg_cuda_fail(err, code, what);
    cudaFree(flag[0]), cudaFree(flag[1]), cudaFree(slot), cudaFree(bad), cudaFree(plane);
    return st;
}
