/* Multigrid-preconditioned CG on the GPU: the same algorithm, operators and stopping rule as
 * the CPU loop (delphi_gpu/src/mg/mg_solve_template.h), on full-grid device arrays.  The
 * hierarchy (D, the salt map, the Galerkin levels) is built on the device (cuda_mg_build.cu).  Dot
 * products and residual measures reduce per block into fixed partials folded in a fixed order,
 * so a run is reproducible; the CPU and GPU agree to a tolerance, not bitwise (different
 * summation orders).  Mixed precision keeps x in double and r, p, q in float, with A p computed
 * in double and true residuals in double ("reliable updates", solve); the CPU runs its double
 * loop for mixed.  Every CUDA call and launch is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_mg.cuh"
#include "transfer_host.h"

namespace {

__device__ void block_reduce(mg_sums v, mg_sums *out) {
    __shared__ double smax[MG_THREADS], ssum[MG_THREADS], sphi[MG_THREADS];
    __shared__ int snf[MG_THREADS];
    const int t = threadIdx.x;
    smax[t] = v.max_abs, ssum[t] = v.sum_sq, sphi[t] = v.phi_max, snf[t] = v.nonfinite;
    __syncthreads();
    for (int step = MG_THREADS / 2; step > 0; step >>= 1) {
        if (t < step) {
            smax[t] = fmax(smax[t], smax[t + step]);
            ssum[t] += ssum[t + step];
            sphi[t] = fmax(sphi[t], sphi[t + step]);
            snf[t] += snf[t + step];
        }
        __syncthreads();
    }
    if (t == 0) {
        out->max_abs = smax[0], out->sum_sq = ssum[0], out->phi_max = sphi[0];
        out->nonfinite = snf[0];
    }
}

__device__ __forceinline__ void add_sample(mg_sums &a, double v) {
    if (!isfinite(v)) a.nonfinite++;
    a.max_abs = fmax(a.max_abs, fabs(v));
    a.sum_sq += v * v;
}

/* The interior points of one colour ((x + y + z) & 1 == colour) by rows: a block of MG_THREADS
   threads works on MG_ROW_SUBS rows at a time, MG_ROW_LANES threads along each row (every other
   x: the warp's loads stay within a few sectors), rows grid-strided over the blocks; y and z
   come from one division per row, and no thread idles on a point of the other colour.
   row(y, z) is called once per row and returns the row's point function f(w, x) (what is
   fixed along a row is computed there once). */
template <typename R>
__device__ __forceinline__ void for_colour(const grid_dims &g, int colour, R row) {
    const int lane = threadIdx.x % MG_ROW_LANES, sub = threadIdx.x / MG_ROW_LANES;
    const unsigned my = g.ny - 2, rows = my * (unsigned)(g.nz - 2);
    for (unsigned r = blockIdx.x * MG_ROW_SUBS + sub; r < rows; r += gridDim.x * MG_ROW_SUBS) {
        const int y = 1 + (int)(r % my), z = 1 + (int)(r / my);
        const long long base = g.sy * y + g.sz * z;
        const int first = 1 + ((colour + 1 + y + z) & 1);
        const auto f = row(y, z);
        for (int x = first + 2 * lane; x <= g.nx - 2; x += 2 * MG_ROW_LANES)
            f(base + x, x);
    }
}

/* The first coarse level's correction, added where a sweep reads it: the prolongation fused
   into the first post-smoothing sweep.  A sweep's update never reads its own point's old value,
   so after the coarse correction only the neighbour values read by the next colour's sweep (and
   its boundary part) need the correction, and the sweep after it overwrites the rest.  The sum
   z + scale * e is the one the prolongation kernel stored, so the results are the same bits. */
struct fine_correction {
    const float *e;       /* NULL: no correction */
    long long sx, sy, h0; /* the first coarse level's strides and split (level_at) */
    float scale;
};

/* v (z at the interior or face point (x, y, z)) with the correction (none at a face). */
__device__ __forceinline__ float corrected(const grid_dims &g, const fine_correction &c, float v,
                                           int x, int y, int z) {
    if (x < 1 || x > g.nx - 2 || y < 1 || y > g.ny - 2 || z < 1 || z > g.nz - 2) return v;
    return v +
           c.scale *
               c.e[split_index(c.h0, (x + 1) / 2 + c.sx * ((y + 1) / 2) + c.sy * ((z + 1) / 2))];
}

/* Fold count partials (one block) in a fixed order. */
__global__ void k_fold(const mg_sums *partials, int count, mg_sums *result) {
    mg_sums a = {0.0, 0.0, 0.0, 0, 0};
    for (int i = threadIdx.x; i < count; i += MG_THREADS) {
        a.max_abs = fmax(a.max_abs, partials[i].max_abs);
        a.sum_sq += partials[i].sum_sq;
        a.phi_max = fmax(a.phi_max, partials[i].phi_max);
        a.nonfinite += partials[i].nonfinite;
    }
    block_reduce(a, result);
}

/* out = f * sum(in neighbours) - in (the uniform part of b - A in), interior points; with a
   Newton step's Jacobian (fac, split layout, not NULL) f = fac and b = -jb (split layout). */
template <typename T, typename I>
__global__ void k_residual_uniform(grid_dims g, const unsigned char *salt, T f0, T df,
                                   const float *fac, const float *jb, const I *in, T *out) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        const long long h = split_index(g, w);
        const T f = fac ? (T)fac[h] : f0 + df * (T)salt[h];
        const T sum = (T)in[w - 1] + (T)in[w + 1] + (T)in[w - g.sy] + (T)in[w + g.sy] +
                      (T)in[w - g.sz] + (T)in[w + g.sz];
        out[w] = f * sum - (T)in[w] - (jb ? (T)jb[h] : (T)0);
    }
}

/* q = A p (uniform part: p - f * sum(p neighbours)) and the partials of sum D p q over the
   interior: with k_boundary_dot, (p, A p)_D in the passes that compute A p.  C is the arithmetic's
   type: T's, or double for float vectors in mixed precision, where p - f sum cancels most of p
   on smooth directions and float arithmetic would leave q (so r's recurrence) an error of
   float's epsilon times p instead of times q. */
template <typename T, typename C, bool JAC>
__global__ void k_apply_dot(grid_dims g, const unsigned char *salt, C f0, C df, const float *fac,
                            const float *__restrict__ dscale, const T *__restrict__ p,
                            T *__restrict__ q, mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        const long long h = split_index(g, w);
        const C f = JAC ? (C)fac[h] : f0 + df * (C)salt[h];
        const C sum = (C)p[w - 1] + (C)p[w + 1] + (C)p[w - g.sy] + (C)p[w + g.sy] + (C)p[w - g.sz] +
                      (C)p[w + g.sz];
        const C v = (C)p[w] - f * sum;
        q[w] = (T)v;
        acc.sum_sq += (double)dscale[w] * (double)p[w] * (double)(T)v;
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* The boundary points of one colour: q[w] -= sum_f weight_f p[w + step_f] (as k_boundary with
   sign -1) and the partials of D p times the change of q (MG_EDGE_PARTIALS blocks, launched even
   when count is 0 so that every partial is written). */
template <typename T, typename C>
__global__ void k_boundary_dot(grid_dims g, int count, const int *index, const double *weight,
                               int colour, const float *dscale, const T *p, T *q,
                               mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    const long long step[6] = {-1, 1, -g.sy, g.sy, -g.sz, g.sz};
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        const long long w = 2LL * index[k] + colour;
        double sum = 0.0;
        for (int f = 0; f < 6; ++f)
            sum += weight[6LL * k + f] * (double)p[w + step[f]];
        const T before = q[w], after = (T)((C)before - (C)sum); /* C as in k_apply_dot */
        q[w] = after;
        acc.sum_sq += (double)dscale[w] * (double)p[w] * ((double)after - (double)before);
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* sum_f weight_f in[w + step_f] (in double) for the k-th boundary point w of a list; in is in
   the split layout when in_split (z), else full (x, p). */
template <typename U>
__device__ __forceinline__ double boundary_sum(const grid_dims &g, const double *weight, int k,
                                               long long w, const U *in, int in_split) {
    const long long step[6] = {-1, 1, -g.sy, g.sy, -g.sz, g.sz};
    double sum = 0.0;
    for (int f = 0; f < 6; ++f) {
        const long long v = w + step[f];
        sum += weight[6LL * k + f] * (double)in[in_split ? split_index(g, v) : v];
    }
    return sum;
}

/* out[w] += boundary_sum of in (a full grid) at the boundary points of one colour. */
template <typename T, typename I>
__global__ void k_boundary(grid_dims g, int count, const int *index, const double *weight,
                           int colour, const I *in, T *out) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long w = 2LL * index[k] + colour;
    out[w] += (T)boundary_sum(g, weight, k, w, in, 0);
}

/* The fine-level smoother's boundary part, in float as on the CPU (with the correction cor of
   the neighbours when cor.e is not NULL). */
__global__ void k_boundary_z(grid_dims g, int count, const int *index, const double *weight,
                             int colour, float *z, fine_correction cor) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long w = 2LL * index[k] + colour;
    const long long step[6] = {-1, 1, -g.sy, g.sy, -g.sz, g.sz};
    float sum = 0.0f;
    if (!cor.e) {
        for (int f = 0; f < 6; ++f)
            sum += (float)weight[6LL * k + f] * z[split_index(g, w + step[f])];
    } else {
        const int x = (int)(w % g.sy), y = (int)((w / g.sy) % g.ny), zz = (int)(w / g.sz);
        const int dx[6] = {-1, 1, 0, 0, 0, 0}, dy[6] = {0, 0, -1, 1, 0, 0},
                  dz[6] = {0, 0, 0, 0, -1, 1};
        for (int f = 0; f < 6; ++f)
            sum += (float)weight[6LL * k + f] * corrected(g, cor, z[split_index(g, w + step[f])],
                                                          x + dx[f], y + dy[f], zz + dz[f]);
    }
    z[split_index(g, w)] += sum;
}

template <typename T>
__global__ void k_charges(int count, const int *index, const double *source, int colour, T *out) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) out[2LL * index[k] + colour] += (T)source[k];
}

/* Fine smoother, colour c: z = f * sum(z neighbours) + rf, on the split layout (salt, rf and
   the written z of colour c, the neighbours' z of the other colour, each read contiguously);
   with the coarse correction cor added to the neighbours when COR (cor.e not NULL).  f is
   factor[salt], or a Newton step's Jacobian's fac (split layout) when JAC (a template parameter
   in these kernels: the test in the loop cost 8 % of a double cycle at 385^3).  COR: the
   correction's variant, apart (in one kernel its index arithmetic took the plain sweep from 40
   to 44 registers, 6 to 5 blocks per SM and 0.165 to 0.178 ms at 385^3, ncu); the plain linear
   sweep fits 32 registers (8 blocks per SM), the others are held to 40 (6) without spilling. */
template <bool JAC, bool COR>
__global__ void __launch_bounds__(MG_THREADS, COR || JAC ? 6 : 8)
    k_fine_sweep(grid_dims g, const unsigned char *__restrict__ salt, float f0, float df,
                 const float *__restrict__ fac, const float *__restrict__ rf, float *z, int colour,
                 fine_correction cor) {
    const long long own = colour ? g.h0 : 0, other = colour ? 0 : g.h0;
    /* the two colours' halves of z do not overlap: written (zw) and read (zo) apart */
    float *__restrict__ zw = z + own;
    const float *__restrict__ zo = z + other;
    const unsigned char *__restrict__ so = salt + own;
    const float *__restrict__ fo = JAC ? fac + own : nullptr;
    const float *__restrict__ ro = rf + own;
    if (!COR) {
        for_colour(g, colour, [&](int, int) {
            return [&](long long w, int) {
                const long long h = w >> 1;
                const float f = JAC ? fo[h] : f0 + df * so[h];
                zw[h] = f * (zo[(w - 1) >> 1] + zo[(w + 1) >> 1] + zo[(w - g.sy) >> 1] +
                             zo[(w + g.sy) >> 1] + zo[(w - g.sz) >> 1] + zo[(w + g.sz) >> 1]) +
                        ro[h];
            };
        });
        return;
    }
    /* corrected() for each neighbour, with the parts of its aggregate's index and of its test
       that are fixed along a row computed once per row: the same values and expression, so the
       same bits */
    for_colour(g, colour, [&](int y, int zz) {
        /* the aggregate row of the neighbour in x (same y, z), below and above in y and in z */
        const long long ay = cor.sx * ((y + 1) / 2), az = cor.sy * ((zz + 1) / 2);
        const long long row = ay + az, row_ym = cor.sx * (y / 2) + az,
                        row_yp = cor.sx * ((y + 2) / 2) + az, row_zm = ay + cor.sy * (zz / 2),
                        row_zp = ay + cor.sy * ((zz + 2) / 2);
        const bool ym = (y > 1), yp = (y < g.ny - 2), zm = (zz > 1), zp = (zz < g.nz - 2);
        return [=](long long w, int x) {
            auto add = [&](float v, bool interior, long long q) {
                return interior ? v + cor.scale * cor.e[split_index(cor.h0, q)] : v;
            };
            const long long h = w >> 1, X = (x + 1) / 2;
            const float f = JAC ? fo[h] : f0 + df * so[h];
            zw[h] = f * (add(zo[(w - 1) >> 1], x > 1, x / 2 + row) +
                         add(zo[(w + 1) >> 1], x < g.nx - 2, (x + 2) / 2 + row) +
                         add(zo[(w - g.sy) >> 1], ym, X + row_ym) +
                         add(zo[(w + g.sy) >> 1], yp, X + row_yp) +
                         add(zo[(w - g.sz) >> 1], zm, X + row_zm) +
                         add(zo[(w + g.sz) >> 1], zp, X + row_zp)) +
                    ro[h];
        };
    });
}

/* The first red sweep from z = 0, exactly: z = r at colour 0 (its neighbours, and so its
   boundary corrections, are 0), z = 0 at colour 1; rf = (float)r for the later sweeps.  One
   interior point per thread: the whole-grid form of the streaming kernels (below) was slower
   here (0.43 -> 0.53 ms at 385^3, ncu, docs/PERFORMANCE.md run 24). */
template <typename T> __global__ void k_first_sweep(grid_dims g, const T *r, float *z, float *rf) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        const float v = (float)r[w];
        const long long h = split_index(g, w);
        rf[h] = v;
        z[h] = c == 0 ? v : 0.0f;
    }
}

/* The first two half sweeps from z = 0 in one pass (the first pre-smoothing red sweep, as
   k_first_sweep, and the black sweep after it): rf = (float)r; z = rf at colour 0; at colour 1
   z = f * (sum of the colour-0 neighbours' z, i.e. of their (float)r, 0 on the faces where r
   is 0) + rf, the expression and order of k_fine_sweep, so the same bits.  The colour-1
   boundary corrections (k_boundary_z) follow as after k_fine_sweep.  Rows of the interior,
   MG_ROW_LANES threads along each, each thread on two neighbouring points (x odd and x + 1,
   one of each colour; the pattern is the same for every thread of a row, so a warp does not
   diverge): the row neighbours are loaded once for both, every load before any store.  r,
   like every full grid here, extends past each row's end (the faces), so x + 2 is always a
   valid point.  In this form it took 0.46 ms at 385^3 in double against 0.60 ms with a thread
   per point, and 0.61 ms for the two kernels it replaces (ncu, docs/PERFORMANCE.md run 26). */
template <typename T, bool JAC>
__global__ void k_first_pair(grid_dims g, const unsigned char *__restrict__ salt, float f0,
                             float df, const float *__restrict__ fac, const T *__restrict__ r,
                             float *__restrict__ z, float *__restrict__ rf) {
    const int lane = threadIdx.x % MG_ROW_LANES, sub = threadIdx.x / MG_ROW_LANES;
    const unsigned my = g.ny - 2, rows = my * (unsigned)(g.nz - 2);
    for (unsigned row = blockIdx.x * MG_ROW_SUBS + sub; row < rows;
         row += gridDim.x * MG_ROW_SUBS) {
        const int y = 1 + (int)(row % my), zz = 1 + (int)(row / my);
        const long long base = g.sy * y + g.sz * zz;
        const int odd_first = (1 + y + zz) & 1; /* colour of x = 1, 3, 5, ... */
        for (int x = 1 + 2 * lane; x <= g.nx - 2; x += 2 * MG_ROW_LANES) {
            const long long w = base + x;
            const int two = x + 1 <= g.nx - 2;
            const long long v = odd_first ? w : w + 1; /* the colour-1 point of the pair */
            const float rm = (float)r[w - 1], r0 = (float)r[w], r1 = (float)r[w + 1],
                        r2 = (float)r[w + 2];
            const float ym = (float)r[v - g.sy], yp = (float)r[v + g.sy];
            const float zm = (float)r[v - g.sz], zp = (float)r[v + g.sz];
            const long long hv = split_index(g, v);
            const float f = JAC ? fac[hv] : f0 + df * salt[hv];
            const float left = odd_first ? rm : r0, right = odd_first ? r1 : r2;
            const float own = odd_first ? r0 : r1;
            const long long h0 = split_index(g, w), h1 = split_index(g, w + 1);
            rf[h0] = r0;
            if (two) rf[h1] = r1;
            if (odd_first) {
                z[h0] = f * (left + right + ym + yp + zm + zp) + own;
                if (two) z[h1] = r1;
            } else {
                z[h0] = r0;
                if (two) z[h1] = f * (left + right + ym + yp + zm + zp) + own;
            }
        }
    }
}

/* The fine residual and its restriction in one pass: the first coarse level's rhs, the sum over
   each aggregate of D (r - A z), without a grid of fine residuals going out and back (until
   docs/PERFORMANCE.md run 37 a residual kernel wrote it in float and a restriction kernel read
   it back: 0.51 ms of a 385^3 mixed cycle, ncu, run 35).  A block works on one band of
   aggregates at a time: for one (Y, Z), the four interior rows y = 2Y - 1 + oy, z = 2Z - 1 + oz,
   a row per MG_ROW_LANES threads (sub = oy + 2 oz), a thread on the pair of points 2X - 1, 2X
   of its row for every X.  A point's residual is rounded to float as the CPU's fine_residual
   rounds it (mg_solve_template.h), plus at a boundary point (its bit in `boundary`) the boundary
   part that k_boundary_store left in tmp; the aggregate's sum of D times it runs in double over
   its points in the order of the CPU's fine_restrict, from the pairs (D, residual) in shared
   memory. */
template <typename T, bool JAC>
__global__ void __launch_bounds__(MG_THREADS)
    k_fine_residual_restrict(grid_dims g, const unsigned char *__restrict__ salt, float f0,
                             float df, const float *__restrict__ fac, const T *__restrict__ r,
                             const float *__restrict__ z, const float *__restrict__ tmp,
                             const unsigned *__restrict__ boundary,
                             const float *__restrict__ dscale, level_view c) {
    __shared__ float2 part[MG_ROW_SUBS][2][MG_ROW_LANES]; /* (D, tmp) of each point */
    const int lane = threadIdx.x % MG_ROW_LANES, sub = threadIdx.x / MG_ROW_LANES;
    const int oy = sub & 1, oz = sub >> 1;
    const unsigned bands = (unsigned)c.my * (unsigned)c.mz;
    for (unsigned band = blockIdx.x; band < bands; band += gridDim.x) {
        const int Y = 1 + (int)(band % (unsigned)c.my), Z = 1 + (int)(band / (unsigned)c.my);
        const int y = 2 * Y - 1 + oy, zz = 2 * Z - 1 + oz;
        const bool row = y <= g.ny - 2 && zz <= g.nz - 2;
        const long long base = g.sy * y + g.sz * zz;
        const int col = (1 + y + zz) & 1; /* colour of x = 1, 3, 5, ...; x + 1 has 1 - col */
        const float *za = z + (col ? g.h0 : 0), *zb = z + (col ? 0 : g.h0);
        for (int X0 = 1; X0 <= c.mx; X0 += MG_ROW_LANES) {
            const int X = X0 + lane, x = 2 * X - 1;
            float2 a = make_float2(0.0f, 0.0f), b = a;
            if (row && X <= c.mx) {
                const long long w = base + x, w1 = w + 1;
                const int two = x + 1 <= g.nx - 2;
                const float zm = zb[(w - 1) >> 1], z0 = za[w >> 1], z1 = zb[w1 >> 1],
                            z2 = za[(w + 2) >> 1];
                const float a_ym = zb[(w - g.sy) >> 1], a_yp = zb[(w + g.sy) >> 1],
                            a_zm = zb[(w - g.sz) >> 1], a_zp = zb[(w + g.sz) >> 1];
                const T ra = r[w];
                const long long ha = split_index(g, w);
                const float fa = JAC ? fac[ha] : f0 + df * salt[ha];
                float ta = (float)(ra - (T)z0 + (T)(fa * (zm + z1 + a_ym + a_yp + a_zm + a_zp)));
                if ((boundary[w >> 5] >> (w & 31)) & 1u) ta += tmp[w];
                a = make_float2(dscale[w], ta);
                if (two) {
                    const float b_ym = za[(w1 - g.sy) >> 1], b_yp = za[(w1 + g.sy) >> 1],
                                b_zm = za[(w1 - g.sz) >> 1], b_zp = za[(w1 + g.sz) >> 1];
                    const T rb = r[w1];
                    const long long hb = split_index(g, w1);
                    const float fb = JAC ? fac[hb] : f0 + df * salt[hb];
                    float tb =
                        (float)(rb - (T)z1 + (T)(fb * (z0 + z2 + b_ym + b_yp + b_zm + b_zp)));
                    if ((boundary[w1 >> 5] >> (w1 & 31)) & 1u) tb += tmp[w1];
                    b = make_float2(dscale[w1], tb);
                }
            }
            part[sub][0][lane] = a, part[sub][1][lane] = b;
            __syncthreads();
            if (sub == 0 && X <= c.mx) {
                double sum = 0.0;
                for (int k = 0; k < 8; ++k) {
                    const int px = x + (k & 1), py = 2 * Y - 1 + ((k >> 1) & 1),
                              pz = 2 * Z - 1 + (k >> 2);
                    if (px > g.nx - 2 || py > g.ny - 2 || pz > g.nz - 2) continue;
                    const float2 v = part[k >> 1][k & 1][lane];
                    sum += (double)v.x * (double)v.y;
                }
                c.rhs[level_at(c, X + c.sx * Y + c.sy * Z)] = (float)sum;
            }
            __syncthreads();
        }
    }
}

/* tmp[w] = the boundary part of the fine residual at the boundary points of one colour (z in
   the split layout), for k_fine_residual_restrict. */
__global__ void k_boundary_store(grid_dims g, int count, const int *index, const double *weight,
                                 int colour, const float *z, float *tmp) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long w = 2LL * index[k] + colour;
    tmp[w] = (float)boundary_sum(g, weight, k, w, z, 1);
}

/* The bits of the boundary points of one colour in a bitmask over the full grid. */
__global__ void k_boundary_bits(int count, const int *index, int colour, unsigned *bits) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long w = 2LL * index[k] + colour;
    atomicOr(&bits[w >> 5], 1u << (w & 31));
}

__global__ void k_fine_prolong(grid_dims g, float *z, level_view c, float scale) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int colour;
        const long long w = interior_index(g, t, &colour);
        const unsigned tt = (unsigned)t, mx = g.nx - 2, my = g.ny - 2;
        const int x = 1 + (int)(tt % mx), y = 1 + (int)((tt / mx) % my),
                  zz = 1 + (int)(tt / mx / my);
        z[split_index(g, w)] +=
            scale * c.e[level_at(c, (x + 1) / 2 + c.sx * ((y + 1) / 2) + c.sy * ((zz + 1) / 2))];
    }
}

__device__ __forceinline__ float coarse_update(const level_view &l, long long q) {
    const float *e = l.e;
    /* the loads both forms need first, so that they are in flight with the class's */
    const float rhs = l.rhs[level_at(l, q)], xm = e[level_at(l, q - 1)], xp = e[level_at(l, q + 1)],
                ym = e[level_at(l, q - l.sx)], yp = e[level_at(l, q + l.sx)],
                zm = e[level_at(l, q - l.sy)], zp = e[level_at(l, q + l.sy)];
    const unsigned char kind = l.cls ? l.cls[level_at(l, q)] : (unsigned char)MG_IRREGULAR;
    if (kind != MG_IRREGULAR) {
        const float2 cd = l.classes[kind]; /* the coupling, the diagonal */
        return (rhs + cd.x * xm + cd.x * xp + cd.x * ym + cd.x * yp + cd.x * zm + cd.x * zp) / cd.y;
    }
    return (rhs + l.cx[q - 1] * xm + l.cx[q] * xp + l.cy[q - l.sx] * ym + l.cy[q] * yp +
            l.cz[q - l.sy] * zm + l.cz[q] * zp) /
           l.diag[q];
}

/* Per-point bodies of the coarse-level steps, shared by the launched kernels and k_tail (so
   both compute every point by the same expression). */
__device__ __forceinline__ void sweep_point(const level_view &l, long long t, int colour) {
    int X, Y, Z;
    const long long q = level_index(l, t, &X, &Y, &Z);
    if (((X + Y + Z) & 1) == colour) l.e[level_at(l, q)] = coarse_update(l, q);
}

/* Coarse point t's rhs: the sum over its aggregate of the fine residual. */
__device__ __forceinline__ void restrict_point(const level_view &f, const level_view &c,
                                               long long t) {
    int X, Y, Z;
    const long long Q = level_index(c, t, &X, &Y, &Z);
    double sum = 0.0;
    for (int k = 0; k < 8; ++k) {
        const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1), z = 2 * Z - 1 + (k >> 2);
        if (x > f.mx || y > f.my || z > f.mz) continue;
        const long long q = x + f.sx * y + f.sy * z;
        const float *e = f.e;
        const float rhs = f.rhs[level_at(f, q)], e0 = e[level_at(f, q)], xm = e[level_at(f, q - 1)],
                    xp = e[level_at(f, q + 1)], ym = e[level_at(f, q - f.sx)],
                    yp = e[level_at(f, q + f.sx)], zm = e[level_at(f, q - f.sy)],
                    zp = e[level_at(f, q + f.sy)];
        const unsigned char kind = f.cls ? f.cls[level_at(f, q)] : (unsigned char)MG_IRREGULAR;
        if (kind != MG_IRREGULAR) {
            const float2 cd = f.classes[kind];
            sum += rhs - cd.y * e0 + cd.x * xm + cd.x * xp + cd.x * ym + cd.x * yp + cd.x * zm +
                   cd.x * zp;
        } else {
            sum += rhs - f.diag[q] * e0 + f.cx[q - 1] * xm + f.cx[q] * xp + f.cy[q - f.sx] * ym +
                   f.cy[q] * yp + f.cz[q - f.sy] * zm + f.cz[q] * zp;
        }
    }
    c.rhs[level_at(c, Q)] = (float)sum;
}

__device__ __forceinline__ void prolong_point(const level_view &f, const level_view &c, long long t,
                                              float scale) {
    int x, y, z;
    const long long q = level_index(f, t, &x, &y, &z);
    f.e[level_at(f, q)] +=
        scale * c.e[level_at(c, (x + 1) / 2 + c.sx * ((y + 1) / 2) + c.sy * ((z + 1) / 2))];
}

/* Ghost t (of the larger face count, grid-strided by the caller) of a wrapping level: on each
   wrapping axis the ghost before the first unknown takes the last one's e, the ghost after the
   last the first one's (dg_mg_wrap_level).  Only ghosts are written and only unknowns read, so
   the axes need no order. */
__device__ __forceinline__ void wrap_level_point(const level_view &l, long long t) {
    float *e = l.e;
    if ((l.wrap & DG_PERIODIC_X) && t < (long long)l.my * l.mz) {
        const long long row = l.sx * (1 + t % l.my) + l.sy * (1 + t / l.my);
        e[level_at(l, row)] = e[level_at(l, row + l.mx)];
        e[level_at(l, row + l.mx + 1)] = e[level_at(l, row + 1)];
    }
    if ((l.wrap & DG_PERIODIC_Y) && t < (long long)l.mx * l.mz) {
        const long long col = (1 + t % l.mx) + l.sy * (1 + t / l.mx);
        e[level_at(l, col)] = e[level_at(l, col + l.sx * l.my)];
        e[level_at(l, col + l.sx * (l.my + 1))] = e[level_at(l, col + l.sx)];
    }
    if ((l.wrap & DG_PERIODIC_Z) && t < (long long)l.mx * l.my) {
        const long long col = (1 + t % l.mx) + l.sx * (1 + t / l.mx);
        e[level_at(l, col)] = e[level_at(l, col + l.sy * l.mz)];
        e[level_at(l, col + l.sy * (l.mz + 1))] = e[level_at(l, col + l.sy)];
    }
}

__global__ void k_wrap_level(level_view l) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < wrap_span(l);
         t += (long long)gridDim.x * blockDim.x)
        wrap_level_point(l, t);
}

/* Periodic axes of the fine grid: each face point that a stencil reads takes its image's value
   (prepared.h, dg_wrap_pair_points); v in the split layout (z) when split, else a full grid. */
template <typename T> __global__ void k_wrap_fine(grid_dims g, T *v, int split) {
    const long long pairs = dg_wrap_pair_count(g.nx, g.ny, g.nz, g.periodic);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < pairs;
         k += (long long)gridDim.x * blockDim.x) {
        long face[2], image[2];
        dg_wrap_pair_points(g.nx, g.ny, g.nz, g.periodic, (long)k, face, image);
        for (int i = 0; i < 2; ++i)
            v[split ? split_index(g, face[i]) : face[i]] =
                v[split ? split_index(g, image[i]) : image[i]];
    }
}

/* Those face points of z (split layout) set to 0: z's start from zero, faces included. */
__global__ void k_zero_wrap_faces(grid_dims g, float *z) {
    const long long pairs = dg_wrap_pair_count(g.nx, g.ny, g.nz, g.periodic);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < pairs;
         k += (long long)gridDim.x * blockDim.x) {
        long face[2], image[2];
        dg_wrap_pair_points(g.nx, g.ny, g.nz, g.periodic, (long)k, face, image);
        z[split_index(g, face[0])] = 0.0f, z[split_index(g, face[1])] = 0.0f;
    }
}

/* The coarsest level exactly, by one block: e = inverse * rhs (sums in double in unknown
   order, as dg_mg_dense_solve); rhs is DG_MG_DENSE_MAX floats of shared memory. */
__device__ __forceinline__ void dense_solve(const level_view &l, const float *inverse, float *rhs) {
    const int m = (int)l.count, t = threadIdx.x;
    long long q = 0;
    if (t < m) {
        int X, Y, Z;
        q = level_index(l, t, &X, &Y, &Z);
        rhs[t] = l.rhs[level_at(l, q)];
    }
    __syncthreads();
    if (t < m) {
        double sum = 0.0;
        for (int u = 0; u < m; ++u)
            sum += (double)inverse[(long long)t * m + u] * (double)rhs[u];
        l.e[level_at(l, q)] = (float)sum;
    }
}

/* Colour c of a level: its points are the padded indices q = 2 h + c, whose e, rhs and class
   are the c-th halves' element h (level_at), and all six neighbours the other half's: a thread
   per h, contiguous for every array, the ghost points skipped (about 5 % of the padded level at
   192^3), each point computed by coarse_update as in k_tail, so the same bits. */
__global__ void k_coarse_sweep(level_view l, int colour) {
    const long long half = colour ? l.padded / 2 : l.h0;
    float *__restrict__ own = l.e + (colour ? l.h0 : 0);
    const unsigned sx = (unsigned)l.sx, sy = (unsigned)l.sy; /* padded < 2^32 */
    for (long long h = blockIdx.x * (long long)blockDim.x + threadIdx.x; h < half;
         h += (long long)gridDim.x * blockDim.x) {
        const unsigned q = 2u * (unsigned)h + (unsigned)colour, Z = q / sy, rest = q - Z * sy,
                       Y = rest / sx, X = rest - Y * sx;
        if (X - 1u >= (unsigned)l.mx || Y - 1u >= (unsigned)l.my || Z - 1u >= (unsigned)l.mz)
            continue; /* a ghost point */
        own[h] = coarse_update(l, q);
    }
}

/* The coarsest level in one block: the same symmetric sweep sequence as the CPU. */
__global__ void k_coarsest(level_view l, int sweeps) {
    for (long long i = threadIdx.x; i < l.padded; i += blockDim.x)
        l.e[i] = 0.0f;
    __syncthreads();
    const int order[4] = {0, 1, 1, 0};
    for (int s = 0; s < sweeps; ++s)
        for (int o = 0; o < 4; ++o) {
            for (long long t = threadIdx.x; t < l.count; t += blockDim.x) {
                int X, Y, Z;
                const long long q = level_index(l, t, &X, &Y, &Z);
                if (((X + Y + Z) & 1) == order[o]) l.e[level_at(l, q)] = coarse_update(l, q);
            }
            __syncthreads();
            if (l.wrap) {
                for (long long t = threadIdx.x; t < wrap_span(l); t += blockDim.x)
                    wrap_level_point(l, t);
                __syncthreads();
            }
        }
}

/* The coarsest level exactly (one block). */
__global__ void k_coarsest_dense(level_view l, const float *inverse) {
    __shared__ float rhs[DG_MG_DENSE_MAX];
    dense_solve(l, inverse, rhs);
}

/* Between the caller's element type and the working one, every point (a float caller's faces
   come back from double exactly; a double caller's answer is widened on the host, interior
   only). */
template <typename S, typename T> __global__ void k_convert(long long count, const S *src, T *dst) {
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < count;
         w += (long long)gridDim.x * blockDim.x)
        dst[w] = (T)src[w];
}

/* The face points of a grid whose interior is zero, packed on the host (dg_face_pack), into
   dst (converted to its type). */
template <typename S, typename T>
__global__ void k_unpack_faces(grid_dims g, const S *packed, T *dst) {
    const long long total = (long long)dg_face_count(g.nx, g.ny, g.nz);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x)
        dst[dg_face_full_index(g.nx, g.ny, g.nz, (size_t)k)] = (T)packed[k];
}

/* Zero the face points of a full grid. */
template <typename T> __global__ void k_clear_faces(grid_dims g, T *dst) {
    const long long total = (long long)dg_face_count(g.nx, g.ny, g.nz);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x)
        dst[dg_face_full_index(g.nx, g.ny, g.nz, (size_t)k)] = (T)0;
}

__global__ void k_coarse_restrict(level_view f, level_view c) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x)
        restrict_point(f, c, t);
}

__global__ void k_coarse_prolong(level_view f, level_view c, float scale) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < f.count;
         t += (long long)gridDim.x * blockDim.x)
        prolong_point(f, c, t, scale);
}

/* The small levels' whole cycle in ONE block (MG_TAIL_THREADS threads): from level `first`
   (count < MG_TAIL_UNKNOWNS) down to the coarsest, exactly the steps coarse_cycle launches
   (zero e, pre-sweeps, per visit restriction / descent / prolongation and the sweeps between
   visits, post-sweeps; the coarsest solved with its dense inverse), each step a pass of the
   block's threads over the level followed by a barrier.  Every point is computed by the same
   expression as in those kernels, so the results are the same bits; at 385^3 it replaces about
   40 launches of a few microseconds per visit of the first tail level. */

/* A wrapping level's ghosts from their images (k_wrap_level), by the block, then a barrier. */
__device__ void tail_wrap(const level_view &l) {
    if (!l.wrap) return;
    for (long long t = threadIdx.x; t < wrap_span(l); t += blockDim.x)
        wrap_level_point(l, t);
    __syncthreads();
}

/* One step of k_tail: the block's threads over the level, then a barrier (and the ghosts of a
   wrapping level, as after k_coarse_sweep). */
__device__ void tail_sweep(const level_view &l, int colour) {
    for (long long t = threadIdx.x; t < l.count; t += blockDim.x)
        sweep_point(l, t, colour);
    __syncthreads();
    tail_wrap(l);
}

__device__ void tail_restrict(const level_view &f, const level_view &c) {
    for (long long t = threadIdx.x; t < c.count; t += blockDim.x)
        restrict_point(f, c, t);
    __syncthreads();
}

__device__ void tail_prolong(const level_view &f, const level_view &c, float scale) {
    for (long long t = threadIdx.x; t < f.count; t += blockDim.x)
        prolong_point(f, c, t, scale);
    __syncthreads();
    tail_wrap(f);
}

__global__ void __launch_bounds__(MG_TAIL_THREADS)
    k_tail(const level_view *levels, int first, int last, const float *inverse, dg_mg_params p) {
    __shared__ float rhs[DG_MG_DENSE_MAX];
    int visit[DG_MG_TAIL_DEPTH];
    int l = first;
    for (;;) {
        /* enter level l */
        const level_view &lv = levels[l];
        if (l == last) {
            dense_solve(lv, inverse, rhs);
            __syncthreads();
        } else {
            for (long long i = threadIdx.x; i < lv.padded; i += blockDim.x)
                lv.e[i] = 0.0f;
            __syncthreads();
            for (int i = 0; i < p.coarse_sweeps; ++i)
                tail_sweep(lv, 0), tail_sweep(lv, 1);
            visit[l - first] = 0;
            tail_restrict(lv, levels[l + 1]);
            ++l;
            continue;
        }
        /* leave level l: back in its parent after a visit */
        for (;;) {
            if (l == first) return;
            --l;
            const level_view &pv = levels[l];
            tail_prolong(pv, levels[l + 1], (float)dg_mg_scale(&p, (long)pv.count));
            const int visits = dg_mg_visits(&p, (long)pv.count);
            if (++visit[l - first] < visits) {
                tail_sweep(pv, 1), tail_sweep(pv, 0), tail_sweep(pv, 1);
                tail_restrict(pv, levels[l + 1]);
                ++l;
                break; /* enter the child again */
            }
            for (int i = 0; i < p.coarse_sweeps; ++i)
                tail_sweep(pv, 1), tail_sweep(pv, 0);
        }
    }
}

/* The full-grid kernels without a stencil (the CG update, the direction, the weighted dot
   product, the residual's measures) visit every point of the grid in order, faces
   included, with MG_ILP points per thread per step whose loads are all issued before any is
   used: no index is decoded, and the loads in flight keep the memory busy (the CG update 1.33 ->
   0.94 ms at 385^3 on an H100, ncu, docs/PERFORMANCE.md run 24).  On the faces r, p, q, z, rf
   and D are 0 and stay 0, so the faces change neither the vectors nor the sums; only max |x|
   (the float floor's scale) sees the faces' fixed boundary values, as on the CPU.  Along a
   periodic axis z's faces hold their images (k_wrap_fine), so p's and x's do too (the same
   operation on equal values keeps them equal); D, r and q stay 0 there, and k_face_squares takes
   those faces' squares back out of p's sum (the CPU's is over the interior; the maximum is that
   of their images). */
#define MG_ILP 4

/* Partials of sum D a b (b: float in the split layout, or T). */
template <typename T>
__global__ void k_weighted_dot(grid_dims g, const float *__restrict__ dscale,
                               const T *__restrict__ a, const float *__restrict__ bf,
                               const T *__restrict__ bt, mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    const long long S = (long long)gridDim.x * blockDim.x;
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (; t + (MG_ILP - 1) * S < g.points; t += MG_ILP * S) {
        double dv[MG_ILP], av[MG_ILP], bv[MG_ILP];
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k) {
            const long long w = t + k * S;
            dv[k] = (double)dscale[w], av[k] = (double)a[w];
            bv[k] = bf ? (double)bf[split_index(g, w)] : (double)bt[w];
        }
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k)
            acc.sum_sq += dv[k] * av[k] * bv[k];
    }
    for (; t < g.points; t += S) {
        const double b = bf ? (double)bf[split_index(g, t)] : (double)bt[t];
        acc.sum_sq += (double)dscale[t] * (double)a[t] * b;
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* Partials of the measures of v (0 on the faces) and of max |phi| over the grid. */
template <typename T, typename X>
__global__ void k_measure(grid_dims g, const T *v, const X *phi, mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.points;
         t += (long long)gridDim.x * blockDim.x) {
        add_sample(acc, (double)v[t]);
        acc.phi_max = fmax(acc.phi_max, fabs((double)phi[t]));
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* The true residual of float and mixed precision: r = wide rounded to float at the interior
   points (r's faces stay 0), and the partials of the measures of wide itself (double; float
   measures r and max |x| again, k_measure). */
__global__ void k_narrow(grid_dims g, const double *__restrict__ wide, float *__restrict__ r,
                         mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        const double v = wide[w];
        r[w] = (float)v;
        add_sample(acc, v);
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* r -= alpha q with alpha = rho / (p, q) from the device's sums (res[MG_RZ], res[MG_PQ]), and
   the measures of the new r; nothing is updated when (p, q) is not positive and finite (the host
   then stops).  res[MG_RZ_OLD] takes rho for the next direction, res[MG_ALPHA].sum_sq alpha: x
   takes its step alpha p in the next direction's pass (k_direction) or in k_step, which read p
   anyway, so this pass need not read p or touch x (16 of its 48 bytes per point). */
template <typename T>
__global__ void k_update(grid_dims g, mg_sums *res, const T *__restrict__ q, T *__restrict__ r,
                         mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    const double rho = res[MG_RZ].sum_sq, pq = res[MG_PQ].sum_sq;
    const int valid = pq > 0.0 && isfinite(pq);
    const long long end = valid ? g.points : 0;
    const T alpha = (T)(rho / pq);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        res[MG_RZ_OLD] = res[MG_RZ];
        if (valid) res[MG_ALPHA].sum_sq = (double)alpha;
    }
    const long long S = (long long)gridDim.x * blockDim.x;
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (; t + (MG_ILP - 1) * S < end; t += MG_ILP * S) {
        T qv[MG_ILP], rv[MG_ILP];
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k) {
            const long long w = t + k * S;
            qv[k] = q[w], rv[k] = r[w];
        }
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k) {
            const T v = rv[k] - alpha * qv[k];
            r[t + k * S] = v;
            add_sample(acc, (double)v);
        }
    }
    for (; t < end; t += S) {
        const T v = r[t] - alpha * q[t];
        r[t] = v;
        add_sample(acc, (double)v);
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* x += alpha p (alpha from the last k_update): the step k_update leaves to the pass after it,
   here before something reads x (max |x| is then measured with the residual, k_measure). */
template <typename T, typename X>
__global__ void k_step(grid_dims g, const mg_sums *res, const T *__restrict__ p,
                       X *__restrict__ x) {
    const X alpha = (X)(T)res[MG_ALPHA].sum_sq;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.points;
         t += (long long)gridDim.x * blockDim.x)
        x[t] += alpha * (X)p[t];
}

/* p = z + beta p, beta = rho / rho_old from the device's sums (0 on a fresh start), and the
   partials of max |p| and sum p^2 of the new p (its step alpha p is the cycle's change of x);
   when x is non-NULL it first takes the last update's step, x += alpha p with the old p (the
   same operation k_update made before; see there), and the partials of max |x| too. */
template <typename T, typename X>
__global__ void k_direction(grid_dims g, const float *__restrict__ z, mg_sums *res, int fresh,
                            T *__restrict__ p, X *__restrict__ x, mg_sums *partials) {
    const T beta = (T)(fresh ? 0.0 : res[MG_RZ].sum_sq / res[MG_RZ_OLD].sum_sq);
    const X alpha = x ? (X)(T)res[MG_ALPHA].sum_sq : (X)0;
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    const long long S = (long long)gridDim.x * blockDim.x;
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (; t + (MG_ILP - 1) * S < g.points; t += MG_ILP * S) {
        T zv[MG_ILP], pv[MG_ILP];
        X xv[MG_ILP];
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k) {
            const long long w = t + k * S;
            zv[k] = (T)z[split_index(g, w)], pv[k] = p[w];
            if (x) xv[k] = x[w];
        }
#pragma unroll
        for (int k = 0; k < MG_ILP; ++k) {
            const long long w = t + k * S;
            if (x) {
                const X xn = xv[k] + alpha * (X)pv[k];
                x[w] = xn;
                acc.phi_max = fmax(acc.phi_max, fabs((double)xn));
            }
            const T pn = zv[k] + beta * pv[k];
            p[w] = pn;
            acc.max_abs = fmax(acc.max_abs, fabs((double)pn));
            acc.sum_sq += (double)pn * (double)pn;
        }
    }
    for (; t < g.points; t += S) {
        if (x) {
            const X xn = x[t] + alpha * (X)p[t];
            x[t] = xn;
            acc.phi_max = fmax(acc.phi_max, fabs((double)xn));
        }
        const T pn = (T)z[split_index(g, t)] + beta * p[t];
        p[t] = pn;
        acc.max_abs = fmax(acc.max_abs, fabs((double)pn));
        acc.sum_sq += (double)pn * (double)pn;
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* Partials of minus the sum of p^2 over the face points that hold images (periodic axes):
   k_direction's sum of squares over the whole grid, folded with these, is p's over the interior
   (MG_EDGE_PARTIALS blocks, launched whole so that every partial is written). */
template <typename T>
__global__ void k_face_squares(grid_dims g, const T *__restrict__ p, mg_sums *partials) {
    mg_sums acc = {0.0, 0.0, 0.0, 0, 0};
    const long long pairs = dg_wrap_pair_count(g.nx, g.ny, g.nz, g.periodic);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < pairs;
         k += (long long)gridDim.x * blockDim.x) {
        long face[2], image[2];
        dg_wrap_pair_points(g.nx, g.ny, g.nz, g.periodic, (long)k, face, image);
        const double a = (double)p[face[0]], b = (double)p[face[1]];
        acc.sum_sq -= a * a + b * b;
    }
    block_reduce(acc, &partials[blockIdx.x]);
}

/* ---- Host side ------------------------------------------------------------------------- */

} // namespace

void dg_cuda_free_mg_workspace(dg_cuda_state *st) {
    if (st->mg_workspace) cudaFree(st->mg_workspace);
    st->mg_workspace = NULL, st->mg_workspace_bytes = 0;
}

namespace {

/* cudaFree of p unless it was carved from the workspace's one allocation. */
void release_one(mg_device *d, void *p) {
    const char *c = static_cast<const char *>(p), *a = static_cast<const char *>(d->arena);
    if (!(a && c >= a && c < a + d->arena_bytes)) cudaFree(p);
}

void release(mg_device *d) {
    void *arrays[] = {d->salt,
                      d->dscale,
                      d->z,
                      d->boundary_index[0],
                      d->boundary_index[1],
                      d->charge_index[0],
                      d->charge_index[1],
                      d->boundary_weight[0],
                      d->boundary_weight[1],
                      d->charge_source[0],
                      d->charge_source[1],
                      d->x,
                      d->r,
                      d->p,
                      d->q,
                      d->partials,
                      d->result,
                      d->inverse,
                      d->caller,
                      d->rf,
                      d->levels_device,
                      d->dscale_base,
                      d->base_weight[0],
                      d->base_weight[1]};
    for (void *a : arrays)
        release_one(d, a);
    if (d->levels)
        for (int l = 0; l < d->level_count; ++l) {
            level_view *v = &d->levels[l];
            void *level[6] = {v->diag, v->cx, v->cy, v->cz, v->e, v->rhs};
            for (void *a : level)
                release_one(d, a);
            if (d->diag_base) cudaFree(d->diag_base[l]);
        }
    /* the workspace stays with the backend for its next solve (setup) when the backend keeps
       none (it keeps at most one) */
    if (d->arena && d->backend && !d->backend->mg_workspace) {
        d->backend->mg_workspace = d->arena;
        d->backend->mg_workspace_bytes = d->arena_bytes;
    } else {
        cudaFree(d->arena);
    }
    free(d->levels), free(d->diag_base);
    if (d->preconditioner) cudaGraphExecDestroy(d->preconditioner);
    if (d->stream) cudaStreamDestroy(d->stream);
}

/* The coarsest level's exact inverse into d->inverse (allocated at the first call): its operator
   comes back (a few hundred floats), is inverted on the host and goes up again. */
int coarsest_inverse(mg_device *d, dg_error *err) {
    const dg_mg_hierarchy *h = d->h;
    const dg_mg_level *hl = &h->levels[h->level_count - 1];
    const level_view *v = &d->levels[h->level_count - 1];
    const size_t m = (size_t)h->coarsest_count, bytes = hl->padded * sizeof(float);
    float *host = (float *)malloc(4 * bytes + m * m * sizeof(float));
    if (!host) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    float *arrays[4] = {v->diag, v->cx, v->cy, v->cz};
    cudaError_t code = cudaStreamSynchronize(d->stream);
    for (int a = 0; a < 4 && code == cudaSuccess; ++a)
        code = cudaMemcpy(host + a * hl->padded, arrays[a], bytes, cudaMemcpyDeviceToHost);
    if (code != cudaSuccess) {
        free(host);
        return dg_cuda_fail(err, code, "cudaMemcpy (multigrid coarsest level)");
    }
    float *inverse = host + 4 * hl->padded;
    int st = dg_mg_dense_inverse(hl, host, host + hl->padded, host + 2 * hl->padded,
                                 host + 3 * hl->padded, inverse);
    if (st != DG_OK)
        dg_error_set(err, st, "multigrid: the coarsest operator is not positive definite");
    else if (!d->inverse)
        st = dg_cuda_mg_upload((void **)&d->inverse, inverse, m * m * sizeof(float),
                               "multigrid coarsest inverse", err);
    else if ((code = cudaMemcpy(d->inverse, inverse, m * m * sizeof(float),
                                cudaMemcpyHostToDevice)) != cudaSuccess ||
             (code = cudaStreamSynchronize(cudaStreamLegacy)) != cudaSuccess)
        /* (a pageable copy may return before its DMA ends; the cycle's stream does not wait) */
        st = dg_cuda_fail(err, code, "cudaMemcpy (multigrid coarsest inverse)");
    free(host);
    return st;
}

/* The device's workspace for the plan h (CG vectors of elem bytes per point), the lists up, the
   hierarchy built (dg_cuda_mg_build), phi up; with classes, the coarse levels' classes of uniform
   stencils too (a linear solve's: a Newton step's Jacobian changes its coarse diagonals). */
int setup(mg_device *d, const dg_mg_hierarchy *h, size_t elem, int classes, dg_error *err) {
    const dg_prepared *p = h->prep;
    d->h = h;
    d->tail_first = -1;
    d->g.nx = p->nx, d->g.ny = p->ny, d->g.nz = p->nz;
    d->g.sy = p->nx, d->g.sz = (long long)p->nx * p->ny;
    d->g.interior = (long long)p->interior_count;
    d->g.h0 = (long long)p->half_count[0];
    d->g.points = (long long)p->point_count;
    d->g.periodic = p->periodic;
    if (p->interior_count >= 4294967295u)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "multigrid on CUDA handles grids of fewer than 2^32 interior points");
    d->f0 = (float)p->factor[0], d->df = (float)(p->factor[1] - p->factor[0]);
    d->f0d = p->factor[0], d->dfd = p->factor[1] - p->factor[0];
    const size_t n = p->point_count;
    d->blocks = (int)((d->g.interior + MG_THREADS - 1) / MG_THREADS);
    if (d->blocks > 65535 * 16) d->blocks = 65535 * 16;
    /* the colour sweeps' blocks: MG_ROW_SUBS interior rows each (for_colour) */
    const long long rows = (long long)(d->g.ny - 2) * (d->g.nz - 2);
    d->colour_blocks = (int)((rows + MG_ROW_SUBS - 1) / MG_ROW_SUBS);
    if (d->colour_blocks > 65535 * 16) d->colour_blocks = 65535 * 16;
    DG_CUDA_TRY(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking),
                "cudaStreamCreate (multigrid)");
    d->levels = (level_view *)calloc((size_t)h->level_count + 1, sizeof(level_view));
    if (!d->levels) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    d->level_count = h->level_count;
    /* The workspace is one allocation, carved in two passes (sizes, then pointers): a cudaMalloc
       and a cudaFree per array cost about 3 ms per solve at 385^3. */
    for (int pass = 0; pass < 2; ++pass) {
        size_t at = 0;
        auto carve = [&](void **ptr, size_t bytes) {
            if (pass) *ptr = static_cast<char *>(d->arena) + at;
            at += (bytes + 255) & ~(size_t)255;
        };
        carve((void **)&d->salt, n);
        carve((void **)&d->dscale, n * sizeof(float));
        carve(&d->x, n * (d->is_double ? sizeof(double) : sizeof(float)));
        carve(&d->r, n * elem);
        carve(&d->p, n * elem);
        carve(&d->q, n * elem);
        /* z and rf in one region, rf from a 256-byte boundary: between cycles the region holds
           mixed precision's double residual (residual) */
        const size_t nf = (n + 63) & ~(size_t)63;
        carve((void **)&d->z, 2 * nf * sizeof(float));
        if (pass) d->rf = d->z + nf;
        carve((void **)&d->boundary_bits, (n / 32 + 1) * sizeof(unsigned));
        carve((void **)&d->partials, (MG_PARTIALS + 2 * MG_EDGE_PARTIALS) * sizeof(mg_sums));
        carve((void **)&d->result, MG_SUMS * sizeof(mg_sums));
        for (int c = 0; c < 2; ++c) {
            carve((void **)&d->boundary_index[c], sizeof(int) * p->boundary_count[c]);
            carve((void **)&d->boundary_weight[c], 6 * sizeof(double) * p->boundary_count[c]);
            carve((void **)&d->charge_index[c], sizeof(int) * p->charge_count[c]);
            carve((void **)&d->charge_source[c], sizeof(double) * p->charge_count[c]);
        }
        for (int l = 0; l < h->level_count; ++l) {
            level_view *v = &d->levels[l];
            float **arrays[6] = {&v->diag, &v->cx, &v->cy, &v->cz, &v->e, &v->rhs};
            for (int a = 0; a < 6; ++a)
                carve((void **)arrays[a], h->levels[l].padded * sizeof(float));
        }
        if (classes) carve(&d->class_store, dg_cuda_mg_class_bytes(d));
        /* the caller's faces as they go up (the caller's type, at most double) */
        carve(&d->faces, dg_face_count(p->nx, p->ny, p->nz) * sizeof(double));
        if (!pass) {
            dg_cuda_state *owner = d->backend;
            if (owner && owner->mg_workspace && owner->mg_workspace_bytes >= at) {
                /* the backend's workspace from an earlier solve (release): no cudaMalloc and
                   cudaFree per solve (1-2 ms at 385^3) */
                d->arena = owner->mg_workspace, d->arena_bytes = owner->mg_workspace_bytes;
                owner->mg_workspace = NULL, owner->mg_workspace_bytes = 0;
            } else {
                if (owner) dg_cuda_free_mg_workspace(owner); /* too small */
                /* with a little room for the next medium's lists (the same grid's boundary
                   and charge lists differ from medium to medium) */
                const size_t bytes = owner ? at + at / 64 : at;
                DG_CUDA_TRY(cudaMalloc(&d->arena, bytes), "cudaMalloc (multigrid workspace)");
                d->arena_bytes = bytes;
            }
        }
    }
    DG_CUDA_TRY(cudaMemset(d->dscale, 0, n * sizeof(float)), "cudaMemset (multigrid scale)");
    for (int c = 0; c < 2; ++c) {
        d->boundary_count[c] = p->boundary_count[c], d->charge_count[c] = p->charge_count[c];
        const struct {
            void *to;
            const void *from;
            size_t bytes;
        } lists[4] = {
            {d->boundary_index[c], p->boundary_index[c], sizeof(int) * p->boundary_count[c]},
            {d->boundary_weight[c], p->boundary_weight[c],
             6 * sizeof(double) * p->boundary_count[c]},
            {d->charge_index[c], p->charge_index[c], sizeof(int) * p->charge_count[c]},
            {d->charge_source[c], p->charge_source[c], sizeof(double) * p->charge_count[c]}};
        for (const auto &list : lists)
            if (list.bytes)
                DG_CUDA_TRY(cudaMemcpy(list.to, list.from, list.bytes, cudaMemcpyHostToDevice),
                            "cudaMemcpy (multigrid lists)");
    }
    void *zeroed[3] = {d->r, d->p, d->q};
    for (int i = 0; i < 3; ++i)
        DG_CUDA_TRY(cudaMemset(zeroed[i], 0, n * elem), "cudaMemset (multigrid CG vectors)");
    DG_CUDA_TRY(cudaMemset(d->z, 0, n * sizeof(float)), "cudaMemset (multigrid z)");
    /* every byte defined: the sums travel whole (padding and slots a solve leaves unwritten) */
    DG_CUDA_TRY(cudaMemset(d->result, 0, MG_SUMS * sizeof(mg_sums)), "cudaMemset (multigrid sums)");
    for (int l = 0; l < h->level_count; ++l) {
        const dg_mg_level *hl = &h->levels[l];
        level_view *v = &d->levels[l];
        v->mx = hl->mx, v->my = hl->my, v->mz = hl->mz;
        v->sx = hl->sx, v->sy = hl->sy, v->count = (long long)hl->mx * hl->my * hl->mz;
        v->padded = (long long)hl->padded, v->h0 = (v->padded + 1) / 2;
        v->wrap = hl->wrap;
        const size_t bytes = hl->padded * sizeof(float);
        float *arrays[6] = {v->diag, v->cx, v->cy, v->cz, v->e, v->rhs};
        for (int a = 0; a < 6; ++a)
            DG_CUDA_TRY(cudaMemset(arrays[a], 0, bytes), "cudaMemset (multigrid level)");
    }
    int st;
    if ((st = dg_cuda_mg_build(d, err))) return st; /* phi goes up while it builds */
    /* the uploads and memsets ran on the legacy stream; the solve's stream does not wait */
    DG_CUDA_TRY(cudaDeviceSynchronize(), "multigrid upload");
    /* the boundary points' bits (k_fine_residual_restrict), from the lists now on the device
       (a pageable upload may return before its DMA ends) */
    DG_CUDA_TRY(cudaMemsetAsync(d->boundary_bits, 0, (n / 32 + 1) * sizeof(unsigned), d->stream),
                "cudaMemsetAsync (multigrid boundary bits)");
    for (int c = 0; c < 2; ++c) {
        if (!d->boundary_count[c]) continue;
        k_boundary_bits<<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
            d->boundary_count[c], d->boundary_index[c], c, d->boundary_bits);
        DG_CUDA_LAUNCHED("k_boundary_bits");
    }
    if (h->params.coarsest_sweeps == 0 && h->level_count > 0) {
        if ((st = coarsest_inverse(d, err))) return st;
        /* the levels from the first with fewer than MG_TAIL_UNKNOWNS unknowns run as k_tail */
        int first = h->level_count - 1;
        while (first > 0 && d->levels[first - 1].count < MG_TAIL_UNKNOWNS)
            --first;
        if (h->level_count - first <= DG_MG_TAIL_DEPTH) {
            if ((st = dg_cuda_mg_upload((void **)&d->levels_device, d->levels,
                                        (size_t)h->level_count * sizeof(level_view),
                                        "multigrid levels", err)))
                return st;
            d->tail_first = first;
        }
    }
    return DG_OK;
}

} // namespace

/* ---- phi's check ------------------------------------------------------------------------
   dg_solve checks the caller's phi (non-finite values; whether the interior is all +0.0, when
   only the faces need to go up) on a thread of its own while the set-up runs.  At 385^3 the
   check (7 ms over a double grid) outlasts the set-up before phi goes up, so waiting for it
   there cost 3-4 ms (10-13 ms at 513^3).  Instead, when it is still running, a sample of the
   interior (every 16th row in y and in z, 1/256 of the grid) decides: any value that is not
   +0.0 there (a warm start, a non-finite value) and the verdict is waited for as before; an
   all-zero sample and only the faces go up, the cycles start, and the verdict is taken before
   the answer is written (dg_cuda_mg_solve): a non-finite phi then fails as before, phi
   untouched, and an interior that was not zero after all goes up whole and the solve runs
   again from it (its first cycles were wasted, its answer is that of a solve from the whole
   phi). */

namespace {

int speculate_always = 0; /* the test hook (mg.h) */

/* 1 when the sampled interior rows of the caller's phi are all +0.0 (bit patterns zero). */
int sample_is_zero(const mg_device *d) {
    const long nx = d->g.nx, ny = d->g.ny, nz = d->g.nz;
    for (long z = 1 + (nz - 2) % 16 / 2; z < nz - 1; z += 16)
        for (long y = 1 + (ny - 2) % 16 / 2; y < ny - 1; y += 16) {
            const size_t row = (size_t)nx * (y + (size_t)ny * z);
            unsigned long long bits = 0;
            if (d->phi_is_double) {
                const unsigned long long *v = (const unsigned long long *)d->phi + row;
                for (long x = 1; x < nx - 1; ++x)
                    bits |= v[x];
            } else {
                const unsigned int *v = (const unsigned int *)d->phi + row;
                for (long x = 1; x < nx - 1; ++x)
                    bits |= v[x];
            }
            if (bits) return 0;
        }
    return 1;
}

} // namespace

extern "C" void dg_cuda_mg_speculate_always(int on) {
    __atomic_store_n(&speculate_always, on ? 1 : 0, __ATOMIC_RELAXED);
}

int dg_cuda_mg_check_verdict(mg_device *d) {
    if (!d->check || !d->check->wait) return 0;
    const int always = __atomic_load_n(&speculate_always, __ATOMIC_RELAXED);
    const int verdict = always ? DG_MG_CHECK_RUNNING : d->check->wait(d->check->check, 0);
    if (verdict != DG_MG_CHECK_RUNNING) return verdict;
    if (sample_is_zero(d)) {
        d->speculative = 1;
        return 1;
    }
    return d->check->wait(d->check->check, 1);
}

/* The caller's phi to d->x (working precision): one transfer.  When its interior is zero (the
   usual start) only the six faces go up, converted into d->x on the device; otherwise a
   different element type goes through d->caller and is converted there. */
int dg_cuda_mg_upload_phi(mg_device *d, dg_error *err) {
    const dg_prepared *p = d->h->prep;
    const void *phi = d->phi;
    const int phi_is_double = d->phi_is_double, is_double = d->is_double;
    const size_t n = p->point_count, pelem = phi_is_double ? sizeof(double) : sizeof(float);
    const size_t welem = is_double ? sizeof(double) : sizeof(float);
    const long nx = p->nx, ny = p->ny, nz = p->nz;
    const int nonzero = !d->interior_zero;
    void *target = d->x;
    if (nonzero && pelem != welem) {
        DG_CUDA_TRY(cudaMalloc(&d->caller, n * pelem), "cudaMalloc (multigrid caller's phi)");
        target = d->caller;
    }
    if (nonzero) {
        /* on the legacy stream, which does not wait for the build's (non-blocking) stream; a
           pageable copy may return before its DMA ends, so wait for it: the kernels below on
           the solve's stream (the conversion, the periodic faces' wrap) read what it writes.
           (Without the wait for a same-type copy the wrap could read the interior before the
           DMA wrote it and write stale faces after: a solve from its own answer then took 15
           cycles instead of 1, once in 30 runs with a periodic z.) */
        DG_CUDA_TRY(cudaMemcpy(target, phi, n * pelem, cudaMemcpyHostToDevice),
                    "cudaMemcpy (multigrid phi)");
        DG_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy), "cudaMemcpy (multigrid phi)");
    } else {
        /* gathered on the host threads: a face walk touches every row of the caller's grid */
        const size_t faces = dg_face_count((int)nx, (int)ny, (int)nz);
        /* packed by the check's thread before it checks (the host pool is then the check's) */
        const void *ready = d->check && d->check->faces ? d->check->faces(d->check->check) : NULL;
        char *packed = ready ? NULL : (char *)malloc(faces * pelem);
        void *dpacked = d->faces; /* in the workspace (setup) */
        if (!ready && !packed) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
        if (!ready)
            dg_face_pack(packed, phi, pelem, (int)nx, (int)ny, (int)nz, 0, faces, d->threads);
        cudaError_t code = cudaMemsetAsync(target, 0, n * welem, d->stream);
        dg_cuda_state *owner = d->backend;
        if (code == cudaSuccess && owner && owner->pinned_bytes > 0) {
            /* through the CUDA backend's page-locked slabs, filled by this thread alone (the
               host pool may be running the check: the pool's threads waited for its job, 2-4 ms
               at 385^3); phi in went from 4-5 to 3-4 ms on a process's first 385^3 solve and
               from 2 to 1 ms later (docs/PERFORMANCE.md run 32) */
            const int st = dg_cuda_upload_threads(owner, dpacked, ready ? ready : packed,
                                                  faces * pelem, 1, err);
            if (st != DG_OK) {
                free(packed);
                return st;
            }
            code = cudaStreamSynchronize(owner->stream);
        } else if (code == cudaSuccess) {
            code = cudaMemcpyAsync(dpacked, ready ? ready : packed, faces * pelem,
                                   cudaMemcpyHostToDevice, d->stream);
        }
        if (code == cudaSuccess) {
            const int blocks = dg_cuda_mg_blocks((long long)faces);
            if (phi_is_double && is_double)
                k_unpack_faces<double, double><<<blocks, MG_THREADS, 0, d->stream>>>(
                    d->g, (const double *)dpacked, (double *)target);
            else if (phi_is_double)
                k_unpack_faces<double, float><<<blocks, MG_THREADS, 0, d->stream>>>(
                    d->g, (const double *)dpacked, (float *)target);
            else if (is_double)
                k_unpack_faces<float, double><<<blocks, MG_THREADS, 0, d->stream>>>(
                    d->g, (const float *)dpacked, (double *)target);
            else
                k_unpack_faces<float, float><<<blocks, MG_THREADS, 0, d->stream>>>(
                    d->g, (const float *)dpacked, (float *)target);
            code = cudaGetLastError();
        }
        if (code == cudaSuccess) code = cudaStreamSynchronize(d->stream);
        free(packed);
        if (code != cudaSuccess) return dg_cuda_fail(err, code, "multigrid phi (faces)");
    }
    if (nonzero && pelem != welem) {
        if (phi_is_double)
            k_convert<double, float><<<d->blocks, MG_THREADS, 0, d->stream>>>(
                (long long)n, (const double *)d->caller, (float *)d->x);
        else
            k_convert<float, double><<<d->blocks, MG_THREADS, 0, d->stream>>>(
                (long long)n, (const float *)d->caller, (double *)d->x);
        DG_CUDA_LAUNCHED("k_convert");
    }
    if (p->periodic) { /* the faces of periodic axes hold their images from the start */
        const int blocks = dg_cuda_mg_blocks(dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic));
        if (is_double)
            k_wrap_fine<double><<<blocks, MG_THREADS, 0, d->stream>>>(d->g, (double *)d->x, 0);
        else
            k_wrap_fine<float><<<blocks, MG_THREADS, 0, d->stream>>>(d->g, (float *)d->x, 0);
        DG_CUDA_LAUNCHED("k_wrap_fine");
    }
    DG_CUDA_TRY(cudaStreamSynchronize(d->stream), "multigrid phi");
    return DG_OK;
}

namespace {

/* bytes from the device's source into the caller's dst through two page-locked slabs of
   slab_bytes each: the DMA of one chunk overlaps the host threads' copy of the previous one out
   of the other slab.  With widen, source is the float answer and dst the caller's double grid:
   the host threads convert its interior points (half the bytes of a double copy over the bus;
   the caller's faces stay as they are). */
int copy_through_slabs(mg_device *d, void *dst, const void *source, size_t bytes, int widen,
                       void *const slab[2], size_t slab_bytes, dg_error *err) {
    /* events of this solve's device (the slabs serve any device) */
    struct events {
        cudaEvent_t e[2] = {NULL, NULL};
        ~events() {
            for (int b = 0; b < 2; ++b)
                if (e[b]) cudaEventDestroy(e[b]);
        }
    } ready;
    for (int b = 0; b < 2; ++b)
        DG_CUDA_TRY(cudaEventCreateWithFlags(&ready.e[b], cudaEventDisableTiming),
                    "cudaEventCreate (multigrid result)");
    const char *src = static_cast<const char *>(source);
    char *out = static_cast<char *>(dst);
    const size_t chunks = (bytes + slab_bytes - 1) / slab_bytes;
    auto issue = [&](size_t j) -> cudaError_t {
        const size_t at = j * slab_bytes, len = bytes - at < slab_bytes ? bytes - at : slab_bytes;
        cudaError_t code =
            cudaMemcpyAsync(slab[j & 1], src + at, len, cudaMemcpyDeviceToHost, d->stream);
        if (code == cudaSuccess) code = cudaEventRecord(ready.e[j & 1], d->stream);
        return code;
    };
    if (chunks > 0) DG_CUDA_TRY(issue(0), "cudaMemcpyAsync (multigrid result)");
    for (size_t j = 0; j < chunks; ++j) {
        if (j + 1 < chunks) DG_CUDA_TRY(issue(j + 1), "cudaMemcpyAsync (multigrid result)");
        DG_CUDA_TRY(cudaEventSynchronize(ready.e[j & 1]), "multigrid result (chunk)");
        const size_t at = j * slab_bytes, len = bytes - at < slab_bytes ? bytes - at : slab_bytes;
        if (widen)
            dg_widen_interior((double *)dst, (const float *)slab[j & 1], d->g.nx, d->g.ny, d->g.nz,
                              at / sizeof(float), len / sizeof(float), 0);
        else
            dg_copy_threads(out + at, slab[j & 1], len, 0);
    }
    return DG_OK;
}

/* bytes from the device's source into the caller's dst (widen as in copy_through_slabs).  The
   CUDA backend of the solve (d->backend) has page-locked slabs of its own from the medium's
   upload on (its lists go up through them): the answer borrows them, after their last transfers
   (their events); this solve's copies are done when it returns.  Without them (no backend
   state) a pageable copy. */
int download_pinned(mg_device *d, void *dst, const void *source, size_t bytes, int widen,
                    dg_error *err) {
    DG_CUDA_TRY(cudaStreamSynchronize(d->stream), "multigrid solve (result)");
    dg_cuda_state *owner = d->backend;
    if (owner && owner->pinned_bytes > 0) {
        for (int b = 0; b < 2; ++b)
            DG_CUDA_TRY(cudaEventSynchronize(owner->pinned_done[b]),
                        "cudaEventSynchronize (the backend's pinned slab)");
        return copy_through_slabs(d, dst, source, bytes, widen, owner->pinned, owner->pinned_bytes,
                                  err);
    }
    if (widen) { /* through a pageable float copy */
        float *answer = (float *)malloc(bytes);
        if (!answer) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
        const cudaError_t code = cudaMemcpy(answer, source, bytes, cudaMemcpyDeviceToHost);
        if (code == cudaSuccess)
            dg_widen_interior((double *)dst, answer, d->g.nx, d->g.ny, d->g.nz, 0,
                              bytes / sizeof(float), 0);
        free(answer);
        if (code != cudaSuccess) return dg_cuda_fail(err, code, "cudaMemcpy (multigrid result)");
        return DG_OK;
    }
    DG_CUDA_TRY(cudaMemcpy(dst, source, bytes, cudaMemcpyDeviceToHost),
                "cudaMemcpy (multigrid result)");
    return DG_OK;
}

/* The answer's interior back into the caller's phi: one transfer. */
int download_phi(mg_device *d, void *phi, int phi_is_double, int is_double, dg_error *err) {
    const size_t n = d->h->prep->point_count;
    const size_t pelem = phi_is_double ? sizeof(double) : sizeof(float);
    const void *source = d->x;         /* same type: its faces are the caller's, unchanged */
    if (phi_is_double && !is_double) { /* widened on the host, interior only */
        const int st = download_pinned(d, phi, source, n * sizeof(float), 1, err);
        /* and the images on periodic faces */
        if (st == DG_OK) dg_prepared_wrap(d->h->prep, phi, sizeof(double), d->threads);
        return st;
    }
    if (phi_is_double != is_double) {
        /* every point: the faces of x are the caller's floats, which come back exactly */
        if (!d->caller)
            DG_CUDA_TRY(cudaMalloc(&d->caller, n * pelem), "cudaMalloc (multigrid result)");
        k_convert<double, float><<<d->blocks, MG_THREADS, 0, d->stream>>>(
            (long long)n, (const double *)d->x, (float *)d->caller);
        DG_CUDA_LAUNCHED("k_convert");
        source = d->caller;
    }
    return download_pinned(d, phi, source, n * pelem, 0, err);
}

/* Fold the first count partials into the device's sums res[slot]. */
int fold(mg_device *d, int slot, int count, dg_error *err) {
    k_fold<<<1, MG_THREADS, 0, d->stream>>>(d->partials, count, d->result + slot);
    DG_CUDA_LAUNCHED("k_fold");
    return DG_OK;
}

/* Bring the first count sums to the host (after the stream's work). */
int read_sums(mg_device *d, mg_sums *out, int count, dg_error *err) {
    DG_CUDA_TRY(
        cudaMemcpyAsync(out, d->result, count * sizeof *out, cudaMemcpyDeviceToHost, d->stream),
        "cudaMemcpyAsync (multigrid sums)");
    DG_CUDA_TRY(cudaStreamSynchronize(d->stream), "multigrid kernels");
    return DG_OK;
}

/* Fold the partials and bring the sums to the host. */
int fetch_sums(mg_device *d, mg_sums *out, dg_error *err) {
    int st = fold(d, MG_MEASURES, MG_PARTIALS, err);
    return st ? st : read_sums(d, out, 1, err);
}

/* out = b - A in: the uniform part, the boundary points' weights times in's neighbours, the
   charges. */
template <typename T, typename I = T>
int residual_of(mg_device *d, const I *in, T *out, dg_error *err) {
    k_residual_uniform<T, I><<<d->blocks, MG_THREADS, 0, d->stream>>>(
        d->g, d->salt, (T)d->f0d, (T)d->dfd, d->fac, d->jac_b, in, out);
    DG_CUDA_LAUNCHED("k_residual_uniform");
    for (int c = 0; c < 2; ++c) {
        if (!d->boundary_count[c]) continue;
        k_boundary<T, I><<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
            d->g, d->boundary_count[c], d->boundary_index[c], d->boundary_weight[c], c, in, out);
        DG_CUDA_LAUNCHED("k_boundary");
    }
    for (int c = 0; c < 2; ++c) {
        if (!d->charge_count[c]) continue;
        k_charges<T><<<dg_cuda_mg_blocks(d->charge_count[c]), MG_THREADS, 0, d->stream>>>(
            d->charge_count[c], d->charge_index[c], d->charge_source[c], c, out);
        DG_CUDA_LAUNCHED("k_charges");
    }
    return DG_OK;
}

/* q = A p and the partials of (p, q)_D: MG_PARTIALS from the interior, then MG_EDGE_PARTIALS
   from each colour's boundary points. */
template <typename T, typename C = T> int apply_dot(mg_device *d, const T *p, T *q, dg_error *err) {
    if (d->fac)
        k_apply_dot<T, C, true><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(
            d->g, d->salt, (C)d->f0d, (C)d->dfd, d->fac, d->dscale, p, q, d->partials);
    else
        k_apply_dot<T, C, false><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(
            d->g, d->salt, (C)d->f0d, (C)d->dfd, d->fac, d->dscale, p, q, d->partials);
    DG_CUDA_LAUNCHED("k_apply_dot");
    for (int c = 0; c < 2; ++c) {
        k_boundary_dot<T, C><<<MG_EDGE_PARTIALS, MG_THREADS, 0, d->stream>>>(
            d->g, d->boundary_count[c], d->boundary_index[c], d->boundary_weight[c], c, d->dscale,
            p, q, d->partials + MG_PARTIALS + c * MG_EDGE_PARTIALS);
        DG_CUDA_LAUNCHED("k_boundary_dot");
    }
    return DG_OK;
}

/* Periodic axes: z's faces take their images' values after a colour's sweep (and its boundary
   part), as on the CPU: within the colour a seam neighbour of the same colour was read at its
   old value.  Nothing without periodic axes. */
int wrap_z(mg_device *d, dg_error *err) {
    if (!d->g.periodic) return DG_OK;
    k_wrap_fine<float>
        <<<dg_cuda_mg_blocks(dg_wrap_pair_count(d->g.nx, d->g.ny, d->g.nz, d->g.periodic)),
           MG_THREADS, 0, d->stream>>>(d->g, d->z, 1);
    DG_CUDA_LAUNCHED("k_wrap_fine");
    return DG_OK;
}

/* One colour's sweep of the fine smoother; cor: the coarse correction of the neighbours (the
   first post-smoothing sweep; not with periodic axes, whose faces hold interior values that
   take the correction too) or none. */
int fine_sweep(mg_device *d, int c, dg_error *err, fine_correction cor = fine_correction{}) {
    const int jac = d->fac != nullptr, with = cor.e != nullptr;
    auto kernel = jac ? (with ? k_fine_sweep<true, true> : k_fine_sweep<true, false>)
                      : (with ? k_fine_sweep<false, true> : k_fine_sweep<false, false>);
    kernel<<<d->colour_blocks, MG_THREADS, 0, d->stream>>>(d->g, d->salt, d->f0, d->df, d->fac,
                                                           d->rf, d->z, c, cor);
    DG_CUDA_LAUNCHED("k_fine_sweep");
    if (d->boundary_count[c]) {
        k_boundary_z<<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
            d->g, d->boundary_count[c], d->boundary_index[c], d->boundary_weight[c], c, d->z, cor);
        DG_CUDA_LAUNCHED("k_boundary_z");
    }
    return wrap_z(d, err);
}

/* A wrapping level's ghosts from their images (nothing on other levels). */
int wrap_level(mg_device *d, const level_view &l, dg_error *err) {
    if (!l.wrap) return DG_OK;
    k_wrap_level<<<dg_cuda_mg_blocks(wrap_span(l)), MG_THREADS, 0, d->stream>>>(l);
    DG_CUDA_LAUNCHED("k_wrap_level");
    return DG_OK;
}

int coarse_sweep(mg_device *d, level_view &l, int c, dg_error *err) {
    k_coarse_sweep<<<dg_cuda_mg_blocks(l.h0), MG_THREADS, 0, d->stream>>>(l, c);
    DG_CUDA_LAUNCHED("k_coarse_sweep");
    return wrap_level(d, l, err);
}

int coarse_cycle(mg_device *d, int l, dg_error *err) {
    const dg_mg_params *pr = &d->h->params;
    level_view &lv = d->levels[l];
    if (d->tail_first >= 0 && l == d->tail_first) {
        k_tail<<<1, MG_TAIL_THREADS, 0, d->stream>>>(d->levels_device, l, d->level_count - 1,
                                                     d->inverse, *pr);
        DG_CUDA_LAUNCHED("k_tail");
        return DG_OK;
    }
    if (l == d->level_count - 1) {
        if (pr->coarsest_sweeps == 0) {
            k_coarsest_dense<<<1, DG_MG_DENSE_MAX, 0, d->stream>>>(lv, d->inverse);
            DG_CUDA_LAUNCHED("k_coarsest_dense");
            return DG_OK;
        }
        k_coarsest<<<1, MG_THREADS, 0, d->stream>>>(lv, pr->coarsest_sweeps);
        DG_CUDA_LAUNCHED("k_coarsest");
        return DG_OK;
    }
    DG_CUDA_TRY(cudaMemsetAsync(lv.e, 0, lv.padded * sizeof(float), d->stream),
                "cudaMemsetAsync (multigrid level)");
    int st;
    for (int i = 0; i < pr->coarse_sweeps; ++i)
        if ((st = coarse_sweep(d, lv, 0, err)) || (st = coarse_sweep(d, lv, 1, err))) return st;
    level_view &cv = d->levels[l + 1];
    const int visits = dg_mg_visits(pr, (long)lv.count);
    for (int v = 0; v < visits; ++v) {
        k_coarse_restrict<<<dg_cuda_mg_blocks(cv.count), MG_THREADS, 0, d->stream>>>(lv, cv);
        DG_CUDA_LAUNCHED("k_coarse_restrict");
        if ((st = coarse_cycle(d, l + 1, err))) return st;
        k_coarse_prolong<<<dg_cuda_mg_blocks(lv.count), MG_THREADS, 0, d->stream>>>(
            lv, cv, (float)dg_mg_scale(pr, (long)lv.count));
        DG_CUDA_LAUNCHED("k_coarse_prolong");
        if ((st = wrap_level(d, lv, err))) return st;
        if (v + 1 < visits)
            if ((st = coarse_sweep(d, lv, 1, err)) || (st = coarse_sweep(d, lv, 0, err)) ||
                (st = coarse_sweep(d, lv, 1, err)))
                return st;
    }
    for (int i = 0; i < pr->coarse_sweeps; ++i)
        if ((st = coarse_sweep(d, lv, 1, err)) || (st = coarse_sweep(d, lv, 0, err))) return st;
    return DG_OK;
}

template <typename T> int precondition(mg_device *d, const T *r, float *tmp, dg_error *err) {
    const dg_mg_params *pr = &d->h->params;
    /* the sweeps read r in float (as the CPU's), from a copy in the split layout (rf) */
    int st;
    /* z's faces are 0 from the start and never written; its interior is set here (with rf).
       Periodic axes: the faces that hold images start at 0 with the interior (the fused second
       half sweep reads r's, which are 0, where the colour-1 images are still 0), and follow
       their images after each colour */
    if (d->g.periodic && pr->pre_sweeps > 0) {
        k_zero_wrap_faces<<<dg_cuda_mg_blocks(
                                dg_wrap_pair_count(d->g.nx, d->g.ny, d->g.nz, d->g.periodic)),
                            MG_THREADS, 0, d->stream>>>(d->g, d->z);
        DG_CUDA_LAUNCHED("k_zero_wrap_faces");
    }
    if (pr->pre_sweeps > 0) {
        if (d->fac)
            k_first_pair<T, true><<<d->colour_blocks, MG_THREADS, 0, d->stream>>>(
                d->g, d->salt, d->f0, d->df, d->fac, r, d->z, d->rf);
        else
            k_first_pair<T, false><<<d->colour_blocks, MG_THREADS, 0, d->stream>>>(
                d->g, d->salt, d->f0, d->df, d->fac, r, d->z, d->rf);
        DG_CUDA_LAUNCHED("k_first_pair");
        if (d->boundary_count[1]) {
            k_boundary_z<<<dg_cuda_mg_blocks(d->boundary_count[1]), MG_THREADS, 0, d->stream>>>(
                d->g, d->boundary_count[1], d->boundary_index[1], d->boundary_weight[1], 1, d->z,
                fine_correction{});
            DG_CUDA_LAUNCHED("k_boundary_z");
        }
        if ((st = wrap_z(d, err))) return st;
    } else { /* no pre-smoothing: only rf is wanted, z starts at 0 */
        k_first_sweep<T><<<d->blocks, MG_THREADS, 0, d->stream>>>(d->g, r, d->z, d->rf);
        DG_CUDA_LAUNCHED("k_first_sweep");
        DG_CUDA_TRY(cudaMemsetAsync(d->z, 0, d->h->prep->point_count * sizeof(float), d->stream),
                    "cudaMemsetAsync (multigrid z)");
    }
    for (int i = 1; i < pr->pre_sweeps; ++i)
        if ((st = fine_sweep(d, 0, err)) || (st = fine_sweep(d, 1, err))) return st;
    if (d->level_count > 0) {
        level_view &c = d->levels[0];
        /* the boundary parts first (into tmp), then the residual and its restriction */
        for (int k = 0; k < 2; ++k) {
            if (!d->boundary_count[k]) continue;
            k_boundary_store<<<dg_cuda_mg_blocks(d->boundary_count[k]), MG_THREADS, 0, d->stream>>>(
                d->g, d->boundary_count[k], d->boundary_index[k], d->boundary_weight[k], k, d->z,
                tmp);
            DG_CUDA_LAUNCHED("k_boundary_store");
        }
        long long bands = (long long)c.my * c.mz;
        if (bands > 65535LL * 16) bands = 65535LL * 16;
        if (d->fac)
            k_fine_residual_restrict<T, true><<<(int)bands, MG_THREADS, 0, d->stream>>>(
                d->g, d->salt, d->f0, d->df, d->fac, r, d->z, tmp, d->boundary_bits, d->dscale, c);
        else
            k_fine_residual_restrict<T, false><<<(int)bands, MG_THREADS, 0, d->stream>>>(
                d->g, d->salt, d->f0, d->df, d->fac, r, d->z, tmp, d->boundary_bits, d->dscale, c);
        DG_CUDA_LAUNCHED("k_fine_residual_restrict");
        if (sizeof(T) != sizeof(float)) {
            /* tmp lives in q's memory (free during the cycle): in double its floats also
               covered some of q's face points, which the CG update reads as 0 */
            const long long faces = (long long)dg_face_count(d->g.nx, d->g.ny, d->g.nz);
            k_clear_faces<T>
                <<<dg_cuda_mg_blocks(faces), MG_THREADS, 0, d->stream>>>(d->g, (T *)(void *)tmp);
            DG_CUDA_LAUNCHED("k_clear_faces");
        }
        if ((st = coarse_cycle(d, 0, err))) return st;
        if (pr->post_sweeps > 0 && !d->g.periodic) {
            /* the first post-smoothing sweep adds the correction where it reads z */
            const fine_correction cor = {c.e, c.sx, c.sy, c.h0, (float)pr->correction_scale};
            if ((st = fine_sweep(d, 1, err, cor)) || (st = fine_sweep(d, 0, err))) return st;
        } else {
            /* periodic: the correction added everywhere, then the faces from their images */
            k_fine_prolong<<<d->blocks, MG_THREADS, 0, d->stream>>>(d->g, d->z, c,
                                                                    (float)pr->correction_scale);
            DG_CUDA_LAUNCHED("k_fine_prolong");
            if ((st = wrap_z(d, err))) return st;
            if (pr->post_sweeps > 0 &&
                ((st = fine_sweep(d, 1, err)) || (st = fine_sweep(d, 0, err))))
                return st;
        }
    } else if (pr->post_sweeps > 0) {
        if ((st = fine_sweep(d, 1, err)) || (st = fine_sweep(d, 0, err))) return st;
    }
    for (int i = 1; i < pr->post_sweeps; ++i)
        if ((st = fine_sweep(d, 1, err)) || (st = fine_sweep(d, 0, err))) return st;
    return DG_OK;
}

/* The V-cycle as one graph launch: its hundreds of small coarse-level launches (the W-cycle
   visits level l 2^l times) would otherwise cost more than the fine level on large grids. */
template <typename T> int run_preconditioner(mg_device *d, dg_error *err) {
    int st;
    if (!d->preconditioner) {
        const double start = dg_wall_seconds();
        DG_CUDA_TRY(cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal),
                    "cudaStreamBeginCapture (multigrid)");
        st = precondition<T>(d, (const T *)d->r, (float *)d->q, err);
        cudaGraph_t graph = NULL;
        cudaError_t code = cudaStreamEndCapture(d->stream, &graph);
        if (st != DG_OK) {
            if (graph) cudaGraphDestroy(graph);
            return st;
        }
        DG_CUDA_TRY(code, "cudaStreamEndCapture (multigrid)");
        code = cudaGraphInstantiate(&d->preconditioner, graph, 0);
        cudaGraphDestroy(graph);
        DG_CUDA_TRY(code, "cudaGraphInstantiate (multigrid)");
        d->graph_seconds += dg_wall_seconds() - start;
    }
    DG_CUDA_TRY(cudaGraphLaunch(d->preconditioner, d->stream), "cudaGraphLaunch (multigrid)");
    return DG_OK;
}

/* x takes the last update's step, if it has not yet (before anything reads x). */
template <typename T, typename X = T> int take_step(mg_device *d, dg_error *err) {
    if (!d->step_pending) return DG_OK;
    k_step<T, X>
        <<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, d->result, (const T *)d->p, (X *)d->x);
    DG_CUDA_LAUNCHED("k_step");
    d->step_pending = 0;
    return DG_OK;
}

/* The true residual r = b - A x and its measures.  Double: in place.  Float and mixed precision
   (float r; x float or double): b - A x is computed in double into the smoother's arrays z and
   rf, which are free between cycles and together hold one double grid (setup), rounded once
   into r, and z is cleared again (its faces must stay 0; the first sweep rewrites its interior
   and rf's).  Mixed measures the double residual; float measures r and max |x| (the float
   floor's scale) as the CPU does: near float's resolution the terms of b - A x cancel at the
   largest potentials, and rounding them one by one left ulps of max |phi| of noise in r. */
template <typename T, typename X = T> int residual(mg_device *d, mg_sums *m, dg_error *err) {
    X *x = (X *)d->x;
    int st = take_step<T, X>(d, err);
    if (st) return st;
    if constexpr (sizeof(T) == sizeof(double)) {
        T *r = (T *)d->r;
        st = residual_of<T>(d, x, r, err);
        if (st) return st;
        k_measure<T, X><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, r, x, d->partials);
        DG_CUDA_LAUNCHED("k_measure");
    } else {
        double *wide = reinterpret_cast<double *>(d->z);
        st = residual_of<double, X>(d, x, wide, err);
        if (st) return st;
        k_narrow<<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, wide, (float *)d->r, d->partials);
        DG_CUDA_LAUNCHED("k_narrow");
        if constexpr (sizeof(X) == sizeof(float)) {
            k_measure<T, X>
                <<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, (const T *)d->r, x, d->partials);
            DG_CUDA_LAUNCHED("k_measure");
        }
        DG_CUDA_TRY(cudaMemsetAsync(d->z, 0, (size_t)d->g.points * sizeof(float), d->stream),
                    "cudaMemsetAsync (multigrid z after the residual)");
    }
    return fetch_sums(d, m, err);
}

/* The CG loop: the CPU template's loop step for step.  X is x's type (mixed precision: x in
   double, r, p, q in float).  With float vectors r is replaced by the true residual, computed
   in double, whenever the recurrence's max |r| has fallen by DG_MG_RELIABLE_FALL since the last
   true one ("reliable updates": the recurrence in float drifts from b - A x by rounding; p is
   kept, so the Krylov space is). */
template <typename T, typename X = T>
int solve(mg_device *d, const dg_mg_control *ctl, dg_mg_outcome *res, dg_error *err) {
    constexpr bool mixed = sizeof(X) != sizeof(T);
    X *x = (X *)d->x;
    T *r = (T *)d->r, *p = (T *)d->p, *q = (T *)d->q;
    const double interior = (double)d->g.interior;
    mg_sums m;
    int st = residual<T, X>(d, &m, err);
    if (st) return st;
    int cycles = 0, outcome = DG_OUTCOME_NOT_CONVERGED, fresh = 1, stalled = 0, stop = 0,
        finite = !m.nonfinite, votes = 0;
    double best = m.max_abs, reliable = m.max_abs; /* max |r| of the last true residual */
    double earlier = HUGE_VAL;                     /* the smallest change before the last */
    int true_residual = 1;                         /* m measures b - A x, not the recurrence */
    dg_mg_measures change = dg_mg_no_change({m.max_abs, m.sum_sq});
    while (finite) {
        int verdict = ctl->fixed ? DG_MG_GOING
                                 : dg_mg_met(ctl, {m.max_abs, m.sum_sq}, change, earlier, m.phi_max,
                                             interior);
        if (verdict == DG_MG_MET) {
            if (!true_residual && (st = residual<T, X>(d, &m, err))) return st;
            reliable = m.max_abs, true_residual = 1;
            finite = !m.nonfinite;
            verdict = dg_mg_met(ctl, {m.max_abs, m.sum_sq}, change, earlier, m.phi_max, interior);
            if (verdict == DG_MG_MET) {
                outcome = DG_OUTCOME_CONVERGED;
                break;
            }
            fresh = 1;
        }
        verdict = dg_mg_vote(verdict, &votes); /* float's resolution (mg.h) */
        if (verdict == DG_MG_RESOLUTION) {
            outcome = DG_OUTCOME_FLOAT_RESOLUTION;
            break;
        }
        if (stop) { /* the caller's on_cycle asked (a criterion met first wins) */
            outcome = DG_OUTCOME_STOPPED;
            break;
        }
        if (cycles >= ctl->cap) {
            outcome = ctl->fixed ? DG_OUTCOME_COMPLETED : DG_OUTCOME_NOT_CONVERGED;
            break;
        }
        if (stalled >= ctl->stall) break;
        /* one cycle: the scalars (rho, beta, (p, q), alpha) stay on the device, one wait */
        if ((st = run_preconditioner<T>(d, err))) return st;
        k_weighted_dot<T><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, d->dscale, r, d->z, NULL,
                                                                     d->partials);
        DG_CUDA_LAUNCHED("k_weighted_dot");
        if ((st = fold(d, MG_RZ, MG_PARTIALS, err))) return st;
        /* x takes the previous update's step here (with the p it was computed from) */
        const int stepped = d->step_pending;
        k_direction<T, X><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(
            d->g, d->z, d->result, fresh, p, stepped ? x : NULL, d->partials);
        DG_CUDA_LAUNCHED("k_direction");
        d->step_pending = 0;
        if (d->g.periodic) {
            k_face_squares<T><<<MG_EDGE_PARTIALS, MG_THREADS, 0, d->stream>>>(
                d->g, p, d->partials + MG_PARTIALS);
            DG_CUDA_LAUNCHED("k_face_squares");
        }
        if ((st = fold(d, MG_DIRECTION, MG_PARTIALS + (d->g.periodic ? MG_EDGE_PARTIALS : 0), err)))
            return st;
        fresh = 0;
        if ((st = apply_dot<T, X>(d, p, q, err))) return st;
        if ((st = fold(d, MG_PQ, MG_PARTIALS + 2 * MG_EDGE_PARTIALS, err))) return st;
        k_update<T><<<MG_PARTIALS, MG_THREADS, 0, d->stream>>>(d->g, d->result, q, r, d->partials);
        DG_CUDA_LAUNCHED("k_update");
        if ((st = fold(d, MG_MEASURES, MG_PARTIALS, err))) return st;
        mg_sums sums[MG_DIRECTION + 1];
        if ((st = read_sums(d, sums, MG_DIRECTION + 1, err))) return st;
        const double pq = sums[MG_PQ].sum_sq;
        if (!(pq > 0.0) || !isfinite(pq)) { /* k_update left r as it was, x has no step due */
            finite = isfinite(pq);
            break;
        }
        d->step_pending = 1;
        /* the step x takes in the next pass: alpha as k_update rounds it, times p's measures */
        const double alpha = fabs((double)(T)(sums[MG_RZ].sum_sq / pq));
        if (cycles) earlier = fmin(earlier, change.max_abs);
        change.max_abs = alpha * sums[MG_DIRECTION].max_abs;
        change.sum_sq = alpha * alpha * sums[MG_DIRECTION].sum_sq;
        /* max |x| (the float floor's scale) is that of x before this update's step, which x
           takes in the next pass; the true residual's check before "converged" measures it
           exactly */
        const double phi_max = stepped ? sums[MG_DIRECTION].phi_max : m.phi_max;
        m = sums[MG_MEASURES];
        m.phi_max = phi_max;
        finite = !m.nonfinite;
        ++cycles;
        true_residual = 0;
        /* the recurrence has fallen enough to renew (mixed and float); float at its resolution:
           the recurrence (and the step measured from it) falls on where b - A x no longer does,
           so every cycle renews and restarts the directions (the CPU's comment) */
        const bool at_floor =
            !mixed && ctl->change_floor > 0 && change.max_abs <= ctl->change_floor * m.phi_max;
        const bool renew = at_floor || m.max_abs < DG_MG_RELIABLE_FALL * reliable;
        if (finite && renew) {
            if ((st = residual<T, X>(d, &m, err))) return st;
            finite = !m.nonfinite;
            reliable = m.max_abs, true_residual = 1;
            if (at_floor) fresh = 1;
        }
        if (m.max_abs < 0.99 * best)
            best = m.max_abs, stalled = 0;
        else
            ++stalled;
        if (ctl->on_cycle && finite) stop = ctl->on_cycle(ctl->on_cycle_user, cycles, change) != 0;
    }
    if (finite && outcome != DG_OUTCOME_CONVERGED) {
        if ((st = residual<T, X>(d, &m, err))) return st;
        finite = !m.nonfinite;
    }
    if (!finite) outcome = DG_OUTCOME_DIVERGED;
    res->outcome = outcome;
    res->cycles = cycles;
    res->max_abs = m.max_abs;
    res->rms = sqrt(m.sum_sq / interior);
    res->norm = sqrt(m.sum_sq);
    res->change_max = cycles ? change.max_abs : 0.0;
    res->change_rms = cycles ? sqrt(change.sum_sq / interior) : 0.0;
    res->change_norm = cycles ? sqrt(change.sum_sq) : 0.0;
    return DG_OK;
}

} // namespace

extern "C" int dg_cuda_mg_solve(int device, void *backend_state, const dg_mg_hierarchy *h,
                                int precision, void *phi, int phi_is_double,
                                const dg_phi_check_view *check, int threads,
                                const dg_mg_control *control, dg_mg_outcome *outcome,
                                dg_error *err) {
    DG_CUDA_TRY(cudaSetDevice(device), "cudaSetDevice (multigrid)");
    mg_device d;
    memset(&d, 0, sizeof d);
    /* x in double for DOUBLE and MIXED; r, p, q in float for MIXED (solve) */
    const int is_double = precision != DG_PRECISION_FLOAT;
    const int mixed = precision == DG_PRECISION_MIXED;
    d.phi = phi, d.phi_is_double = phi_is_double, d.is_double = is_double;
    d.check = check, d.threads = threads;
    d.backend = static_cast<dg_cuda_state *>(backend_state);
    const size_t elem = is_double && !mixed ? sizeof(double) : sizeof(float);
    int st = setup(&d, h, elem, 1, err);
    auto solve_once = [&]() {
        return mixed       ? solve<float, double>(&d, control, outcome, err)
               : is_double ? solve<double>(&d, control, outcome, err)
                           : solve<float>(&d, control, outcome, err);
    };
    const double t1 = dg_wall_seconds();
    if (st == DG_OK) st = solve_once();
    if (st == DG_OK && d.speculative) { /* the check's verdict, before the answer is written */
        const double waited = dg_wall_seconds();
        const int verdict = check->wait(check->check, 1);
        d.check_wait_seconds += dg_wall_seconds() - waited;
        d.speculative = 0;
        if (verdict < 0)
            st = dg_error_set(err, DG_ERR_NONFINITE_INPUT, "phi holds a non-finite value");
        else if (verdict == 0) { /* not zero after all: from the whole phi again */
            d.interior_zero = 0, d.step_pending = 0;
            const double up = dg_wall_seconds();
            /* the upload runs on the legacy stream, which the solve's stream does not wait for
               (either way) */
            cudaError_t code = cudaStreamSynchronize(d.stream);
            if (code != cudaSuccess)
                st = dg_cuda_fail(err, code, "multigrid solve (before phi's second upload)");
            if (st == DG_OK) st = dg_cuda_mg_upload_phi(&d, err);
            if (st == DG_OK && (code = cudaDeviceSynchronize()) != cudaSuccess)
                st = dg_cuda_fail(err, code, "multigrid phi (second upload)");
            d.phi_in_seconds += dg_wall_seconds() - up;
            if (st == DG_OK) st = solve_once();
        }
    }
    const double t2 = dg_wall_seconds();
    if (st == DG_OK && outcome->outcome != DG_OUTCOME_DIVERGED)
        st = download_phi(&d, phi, phi_is_double, is_double, err);
    outcome->phi_in_seconds = d.phi_in_seconds;
    outcome->cycle_seconds = t2 - t1;
    const double t3 = dg_wall_seconds();
    outcome->phi_out_seconds = t3 - t2;
    outcome->check_wait_seconds = d.check_wait_seconds;
    outcome->graph_seconds = d.graph_seconds;
    release(&d);
    outcome->release_seconds = dg_wall_seconds() - t3;
    return st;
}

/* ---- A Newton step's Jacobian (mg.h, dg_cuda_mg_jacobian_*) ------------------------------- */

namespace {

/* D' = D f / fac at the interior points (f = factor[salt]), as dg_mg_jacobian_update. */
__global__ void k_jac_scale(grid_dims g, const unsigned char *salt, double f0, double f1,
                            const float *fac, const float *base, float *dscale) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        const long long h = split_index(g, w);
        dscale[w] = (float)((double)base[w] * dg_mg_jacobian_ratio(salt[h] ? f1 : f0, fac[h]));
    }
}

/* The Jacobian's boundary weights: the medium's divided by the point's ratio. */
__global__ void k_jac_weights(grid_dims g, int count, const int *index, int colour,
                              const unsigned char *salt, double f0, double f1, const float *fac,
                              const double *base, double *weight) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        const long long h = split_index(g, 2LL * index[k] + colour);
        const double ratio = dg_mg_jacobian_ratio(salt[h] ? f1 : f0, fac[h]);
        for (int f = 0; f < 6; ++f)
            weight[6LL * k + f] = base[6LL * k + f] / ratio;
    }
}

/* Level c's diagonal: its linear one plus the aggregated change of the finer grid's values
   (fine D at level 0, else the finer level's diagonal): cur and base on a grid of fm[xyz]
   unknowns padded by one layer, strides fsx, fsy (the fine grid itself is such a grid). */
__global__ void k_jac_level(const float *cur, const float *base_f, int fmx, int fmy, int fmz,
                            long long fsx, long long fsy, level_view c, const float *base) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long Q = level_index(c, t, &X, &Y, &Z);
        double change = 0.0;
        for (int k = 0; k < 8; ++k) {
            const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                      z = 2 * Z - 1 + (k >> 2);
            if (x > fmx || y > fmy || z > fmz) continue;
            const long long q = x + fsx * y + fsy * z;
            change += (double)cur[q] - (double)base_f[q];
        }
        c.diag[Q] = (float)((double)base[Q] + change);
    }
}

/* The answer's interior into the caller's split-layout delta. */
__global__ void k_to_split(grid_dims g, const float *x, float *delta) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.interior;
         t += (long long)gridDim.x * blockDim.x) {
        int c;
        const long long w = interior_index(g, t, &c);
        delta[split_index(g, w)] = x[w];
    }
}

/* The linear operator's D, level diagonals and boundary weights kept aside; the Jacobian's
   weights start as copies. */
int jacobian_arrays(mg_device *d, dg_error *err) {
    const size_t n = (size_t)d->g.points;
    DG_CUDA_TRY(cudaMalloc((void **)&d->dscale_base, n * sizeof(float)),
                "cudaMalloc (Newton multigrid scale)");
    DG_CUDA_TRY(cudaMemcpyAsync(d->dscale_base, d->dscale, n * sizeof(float),
                                cudaMemcpyDeviceToDevice, d->stream),
                "cudaMemcpyAsync (Newton multigrid scale)");
    d->diag_base = (float **)calloc((size_t)d->level_count + 1, sizeof(float *));
    if (!d->diag_base) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    for (int l = 0; l < d->level_count; ++l) {
        const size_t bytes = d->h->levels[l].padded * sizeof(float);
        DG_CUDA_TRY(cudaMalloc((void **)&d->diag_base[l], bytes),
                    "cudaMalloc (Newton multigrid level)");
        DG_CUDA_TRY(cudaMemcpyAsync(d->diag_base[l], d->levels[l].diag, bytes,
                                    cudaMemcpyDeviceToDevice, d->stream),
                    "cudaMemcpyAsync (Newton multigrid level)");
    }
    for (int c = 0; c < 2; ++c) {
        const size_t bytes = 6 * sizeof(double) * (size_t)d->boundary_count[c];
        d->base_weight[c] = d->boundary_weight[c];
        d->boundary_weight[c] = NULL;
        DG_CUDA_TRY(cudaMalloc((void **)&d->boundary_weight[c], bytes ? bytes : 1),
                    "cudaMalloc (Newton multigrid weights)");
        if (bytes)
            DG_CUDA_TRY(cudaMemcpyAsync(d->boundary_weight[c], d->base_weight[c], bytes,
                                        cudaMemcpyDeviceToDevice, d->stream),
                        "cudaMemcpyAsync (Newton multigrid weights)");
        d->charge_count[c] = 0; /* the step's right-hand side replaces the charges */
    }
    DG_CUDA_TRY(cudaStreamSynchronize(d->stream), "Newton multigrid set-up");
    return DG_OK;
}

/* D, the boundary weights and the coarse diagonals of the Jacobian whose factor is d->fac. */
int jacobian_update(mg_device *d, dg_error *err) {
    const dg_prepared *p = d->h->prep;
    const double f0 = p->factor[0], f1 = p->factor[1];
    k_jac_scale<<<d->blocks, MG_THREADS, 0, d->stream>>>(d->g, d->salt, f0, f1, d->fac,
                                                         d->dscale_base, d->dscale);
    DG_CUDA_LAUNCHED("k_jac_scale");
    for (int c = 0; c < 2; ++c) {
        if (!d->boundary_count[c]) continue;
        k_jac_weights<<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
            d->g, d->boundary_count[c], d->boundary_index[c], c, d->salt, f0, f1, d->fac,
            d->base_weight[c], d->boundary_weight[c]);
        DG_CUDA_LAUNCHED("k_jac_weights");
    }
    for (int l = 0; l < d->level_count; ++l) {
        const level_view &c = d->levels[l];
        if (l == 0)
            k_jac_level<<<dg_cuda_mg_blocks(c.count), MG_THREADS, 0, d->stream>>>(
                d->dscale, d->dscale_base, d->g.nx - 2, d->g.ny - 2, d->g.nz - 2, d->g.sy, d->g.sz,
                c, d->diag_base[0]);
        else {
            const level_view &f = d->levels[l - 1];
            k_jac_level<<<dg_cuda_mg_blocks(c.count), MG_THREADS, 0, d->stream>>>(
                f.diag, d->diag_base[l - 1], f.mx, f.my, f.mz, f.sx, f.sy, c, d->diag_base[l]);
        }
        DG_CUDA_LAUNCHED("k_jac_level");
    }
    if (d->level_count > 0 && d->h->params.coarsest_sweeps == 0) return coarsest_inverse(d, err);
    return DG_OK;
}

} // namespace

extern "C" int dg_cuda_mg_jacobian_begin(int device, const dg_mg_hierarchy *plan, int threads,
                                         void **state, dg_error *err) {
    *state = NULL;
    DG_CUDA_TRY(cudaSetDevice(device), "cudaSetDevice (Newton multigrid)");
    mg_device *d = (mg_device *)calloc(1, sizeof *d);
    if (!d) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory");
    d->threads = threads; /* no phi: the steps start from delta = 0 */
    int st = setup(d, plan, sizeof(float), 0, err);
    if (st == DG_OK) st = jacobian_arrays(d, err);
    if (st != DG_OK) {
        release(d);
        free(d);
        return st;
    }
    *state = d;
    return DG_OK;
}

extern "C" int dg_cuda_mg_jacobian_solve(void *state, const float *factor, const float *b,
                                         float *delta, const dg_mg_control *control,
                                         dg_mg_outcome *outcome, dg_error *err) {
    mg_device *d = (mg_device *)state;
    if (d->fac != factor && d->preconditioner) { /* the captured cycle reads the old factor */
        cudaGraphExecDestroy(d->preconditioner);
        d->preconditioner = NULL;
    }
    d->fac = factor, d->jac_b = b;
    int st = jacobian_update(d, err);
    if (st) return st;
    DG_CUDA_TRY(cudaMemsetAsync(d->x, 0, (size_t)d->g.points * sizeof(float), d->stream),
                "cudaMemsetAsync (Newton multigrid step)");
    d->step_pending = 0;
    const double t0 = dg_wall_seconds();
    if ((st = solve<float>(d, control, outcome, err)) || (st = take_step<float>(d, err))) return st;
    k_to_split<<<d->blocks, MG_THREADS, 0, d->stream>>>(d->g, (const float *)d->x, delta);
    DG_CUDA_LAUNCHED("k_to_split");
    if (d->g.periodic) { /* the step's faces hold their images, as the SOR's steps leave them */
        k_wrap_fine<float>
            <<<dg_cuda_mg_blocks(dg_wrap_pair_count(d->g.nx, d->g.ny, d->g.nz, d->g.periodic)),
               MG_THREADS, 0, d->stream>>>(d->g, delta, 1);
        DG_CUDA_LAUNCHED("k_wrap_fine");
    }
    DG_CUDA_TRY(cudaStreamSynchronize(d->stream), "Newton multigrid step");
    outcome->cycle_seconds = dg_wall_seconds() - t0;
    return DG_OK;
}

extern "C" void dg_cuda_mg_jacobian_end(void *state) {
    mg_device *d = (mg_device *)state;
    if (!d) return;
    release(d);
    free(d);
}
