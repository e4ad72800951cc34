/* The CUDA backend's Newton kernels (newton_backend.h): the nonlinear residual in double with
 * its norms reduced on the device, the inner red-black SOR with a per-point diagonal, and the
 * line-search update.  One thread per half-grid point (grid-stride; the inner sweep by rows);
 * the per-block partials of every reduction are folded in a fixed order, so results do not
 * depend on timing.  As on the CPU, the inner system (delta, a = inv * factor, b = inv * G) is
 * stored and swept in float whatever the working precision (see cpu_newton.c): 12 bytes per point
 * and sweep. */
#include <string.h>

#include "cuda_internal.cuh"

#include "cuda_reduce.cuh"

extern "C" {
#include "newton_backend.h"
}

#define NEWTON_THREADS 256

struct cuda_newton {
    dg_cuda_state *st;
    dg_newton_term term;
    void *start[2];                /* T */
    float *delta[2], *snapshot[2]; /* the step; its copy before a measured iteration */
    float *a[2], *b[2];            /* inv * factor, inv * G */
    float *boundary_inv[2];        /* inv at each boundary entry of the sparse list */
    float *boundary_weight[2];     /* 6 per boundary entry */
    int *bmap[2];                  /* sparse-list entry of each half point, -1 if none */
    int blocks[2];                 /* grid-stride blocks per colour */
    dg_cuda_partial *partials;     /* blocks[0] + blocks[1] */
    dg_cuda_partial *result;
    /* The inner solves by multigrid (solver MULTIGRID): its plan and device state.  delta, a
       and b are then read and written as one split-layout array each (colour 1's half right
       after colour 0's, as allocated). */
    dg_mg_hierarchy plan;
    void *mg;
    /* Over MPI ranks of one node: the neighbours' steps mapped by CUDA IPC (slot 0 below, 1
       above), each one allocation of both colours, colour 1 from half0 on. */
    float *peer_delta[2];
    size_t peer_half0[2], peer_total[2];
};

/* Everything a Newton kernel reads of one colour. */
template <typename T> struct newton_params {
    T *cur;         /* phi of this colour */
    const T *other; /* the other colour */
    float *a, *b, *boundary_inv;
    const float *boundary_weight;
    float *delta; /* of this colour */
    const float *delta_other, *snapshot;
    T *start;
    const unsigned char *flag;
    const int *bmap;
    const double *weight, *source;
    int boundary_count;
    long long off[6];
    int nx, ny, nz, colour;
    size_t count;
    double f0, f1, omega, lambda;
    int first;
    dg_newton_term term;
    dg_cuda_partial *partials;
};

__device__ __forceinline__ bool newton_interior(size_t h, int colour, int nx, int ny, int nz) {
    const unsigned long long w = 2ull * h + (unsigned long long)colour;
    int x, y, z;
    if (w < 0xffffffffull) { /* 32-bit division where it suffices: much cheaper */
        const unsigned w32 = (unsigned)w, row = w32 / (unsigned)nx;
        x = (int)(w32 - row * (unsigned)nx), y = (int)(row % (unsigned)ny);
        z = (int)(row / (unsigned)ny);
    } else {
        const unsigned long long row = w / nx;
        x = (int)(w - row * nx), y = (int)(row % ny), z = (int)(row / ny);
    }
    return x >= 1 && x <= nx - 2 && y >= 1 && y <= ny - 2 && z >= 1 && z <= nz - 2;
}

/* factor * sum of the 6 neighbours + the boundary weights' corrections, in double. */
template <typename T>
__device__ __forceinline__ double newton_stencil(const newton_params<T> &p, size_t h, int salt,
                                                 int b) {
    const T *o = p.other + h;
    double s =
        (salt ? p.f1 : p.f0) * ((double)o[p.off[0]] + (double)o[p.off[1]] + (double)o[p.off[2]] +
                                (double)o[p.off[3]] + (double)o[p.off[4]] + (double)o[p.off[5]]);
    if (b >= 0 && b < p.boundary_count) {
        const double *wb = p.weight + 6ll * b;
        for (int k = 0; k < 6; ++k)
            s += wb[k] * (double)o[p.off[k]];
    }
    return s;
}

template <typename T> __global__ void dg_newton_residual_kernel(newton_params<T> p) {
    dg_change_acc a = {0.0, 0.0, 0};
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < p.count;
         h += (size_t)gridDim.x * blockDim.x) {
        if (!newton_interior(h, p.colour, p.nx, p.ny, p.nz)) continue;
        const int salt = p.flag ? (p.flag[h] & 1) : 0;
        const int b = p.bmap[h];
        double s = newton_stencil(p, h, salt, b);
        const double v = (double)p.cur[h];
        double d = 0.0;
        if (salt) {
            double derivative = 0.0;
            s += p.f1 * dg_newton_remainder(&p.term, v, &derivative);
            d = -p.f1 * derivative;
            if (!(d > 0.0)) d = isnan(d) ? d : 0.0;
        }
        double g = v - s;
        if (b >= 0) g -= p.source[b];
        const double inv = 1.0 / (1.0 + d);
        dg_acc_add(a, g);
        if (!isfinite(inv)) a.nonfinite++;
        p.a[h] = (float)(inv * (salt ? p.f1 : p.f0)), p.b[h] = (float)(inv * g);
        if (b >= 0 && b < p.boundary_count) p.boundary_inv[b] = (float)inv;
    }
    dg_block_reduce_store(a, p.partials + blockIdx.x);
}

/* Uniform part of one colour of the inner SOR: delta <- (1 - omega) delta + omega (a sum - b).
   Thread (tx, ty) of block (bx, by, z - 1) takes point bx * blockDim.x + tx of this colour's
   row (by * blockDim.y + ty + 1, z) (dg_row_range): no division per point, and each row's
   accesses coalesce (inner_rows sizes the blocks). */
__global__ void dg_newton_inner_kernel(newton_params<float> p) {
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y) + 1;
    if (y > p.ny - 2) return;
    const float keep = (float)(1.0 - p.omega), omega = (float)p.omega;
    long first, last;
    dg_row_range(p.nx, p.ny, y, (int)blockIdx.z + 1, p.colour, &first, &last);
    const long h = first + (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (h > last) return;
    const float *o = p.delta_other + h;
    const float sum =
        o[p.off[0]] + o[p.off[1]] + o[p.off[2]] + o[p.off[3]] + o[p.off[4]] + o[p.off[5]];
    p.delta[h] = keep * p.delta[h] + omega * (p.a[h] * sum - p.b[h]);
}

/* The inner sweep's launch: a row's half points (at most (nx - 1) / 2) rounded up to whole
   warps across x, at most 1024, and as many rows per block as make about 256 threads. */
static void inner_rows(const dg_cuda_state *st, dim3 *grid, dim3 *block) {
    const int half = (st->nx - 1) / 2;
    int across = (half + 31) / 32 * 32;
    if (across > 1024) across = 1024;
    int rows = 256 / across;
    if (rows < 1) rows = 1;
    *block = dim3((unsigned)across, (unsigned)rows, 1);
    *grid = dim3((unsigned)((half + across - 1) / across),
                 (unsigned)((st->ny - 2 + rows - 1) / rows), (unsigned)(st->nz - 2));
}

/* The boundary points' corrections: delta += omega inv sum_f weight_f delta_f. */
__global__ void dg_newton_inner_boundary_kernel(newton_params<float> p, const int *index) {
    const float omega = (float)p.omega;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < p.boundary_count;
         k += gridDim.x * blockDim.x) {
        const long long h = index[k];
        const float *o = p.delta_other + h, *wk = p.boundary_weight + 6ll * k;
        p.delta[h] += omega * p.boundary_inv[k] *
                      (wk[0] * o[p.off[0]] + wk[1] * o[p.off[1]] + wk[2] * o[p.off[2]] +
                       wk[3] * o[p.off[3]] + wk[4] * o[p.off[4]] + wk[5] * o[p.off[5]]);
    }
}

/* Periodic axes, after colour c: the seam steps of entries [first, end) on delta (prepared.h;
   the CPU backend's inner_seams, the same arithmetic): each seam point's coefficient of its
   face neighbour, omega * seam_coef * 1 / (1 + d), with 1 / (1 + d) taken as a / factor. */
__global__ void dg_newton_seam_kernel(newton_params<float> p, const int *index,
                                      const unsigned char *axes, const double *coef, int first,
                                      int end) {
    const int e = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= end) return;
    float *other = const_cast<float *>(p.delta_other);
    const long long h = index[e], full = 2 * h + p.colour;
    const int salt = p.flag ? (p.flag[h] & 1) : 0;
    const double inv = (double)p.a[h] / (salt ? p.f1 : p.f0);
    float v = p.delta[h];
    for (int a = 0; a < 3; ++a) {
        if (!((axes[e] >> a) & 1u)) continue;
        int n;
        long step;
        dg_axis_step(p.nx, p.ny, p.nz, a, &step, &n);
        const long long face = (full - step) >> 1;
        const float image = p.delta[(full + (long long)(n - 3) * step) >> 1];
        const float change = image - other[face];
        other[face] = image;
        v = v + (float)(p.omega * coef[3 * e + a] * inv) * change;
    }
    p.delta[h] = v;
    for (int a = 0; a < 3; ++a) {
        if (!((axes[e] >> a) & 1u)) continue;
        int n;
        long step;
        dg_axis_step(p.nx, p.ny, p.nz, a, &step, &n);
        other[(full + (long long)(n - 2) * step) >> 1] = v;
    }
}

/* Max |delta - snapshot| of one colour into per-block partials. */
__global__ void dg_newton_change_kernel(newton_params<float> p) {
    dg_change_acc a = {0.0, 0.0, 0};
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < p.count;
         h += (size_t)gridDim.x * blockDim.x)
        if (newton_interior(h, p.colour, p.nx, p.ny, p.nz))
            dg_acc_add(a, (double)p.delta[h] - (double)p.snapshot[h]);
    dg_block_reduce_store(a, p.partials + blockIdx.x);
}

template <typename T> __global__ void dg_newton_step_kernel(newton_params<T> p) {
    dg_change_acc a = {0.0, 0.0, 0};
    for (size_t h = blockIdx.x * (size_t)blockDim.x + threadIdx.x; h < p.count;
         h += (size_t)gridDim.x * blockDim.x) {
        if (!newton_interior(h, p.colour, p.nx, p.ny, p.nz)) continue;
        if (p.first) p.start[h] = p.cur[h];
        const T updated = (T)((double)p.start[h] + p.lambda * (double)p.delta[h]);
        p.cur[h] = updated;
        dg_acc_add(a, (double)updated - (double)p.start[h]);
    }
    dg_block_reduce_store(a, p.partials + blockIdx.x);
}

__global__ void dg_newton_bmap_kernel(int *bmap, const int *index, int count) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        bmap[index[k]] = k;
}

/* ---- Host side ---------------------------------------------------------------------------- */

template <typename T>
static newton_params<T> params_of(const cuda_newton *w, int c, T *cur, const T *other) {
    const dg_cuda_state *st = w->st;
    newton_params<T> p;
    p.cur = cur, p.other = other;
    p.a = w->a[c], p.b = w->b[c], p.boundary_inv = w->boundary_inv[c];
    p.boundary_weight = w->boundary_weight[c];
    p.delta = w->delta[c], p.delta_other = w->delta[1 - c], p.snapshot = w->snapshot[c];
    p.start = static_cast<T *>(w->start[c]);
    p.flag = st->flag[c];
    p.bmap = w->bmap[c];
    p.weight = st->sparse[c].weight_raw, p.source = st->sparse[c].source_raw;
    p.boundary_count = st->sparse[c].boundary_count;
    for (int k = 0; k < 6; ++k)
        p.off[k] = st->offsets[c][k];
    p.nx = st->nx, p.ny = st->ny, p.nz = st->nz, p.colour = c;
    p.count = st->half_count[c];
    p.f0 = st->factor[0], p.f1 = st->factor[1];
    p.omega = 1.0, p.lambda = 0.0, p.first = 0;
    p.term = w->term;
    p.partials = w->partials + (c == 0 ? 0 : w->blocks[0]);
    return p;
}

/* Fold the partials of both colours and bring the norms back. */
static int finish_norms(cuda_newton *w, dg_newton_norms *norms, dg_error *err) {
    dg_cuda_state *st = w->st;
    dg_final_reduce_kernel<<<1, 256, 0, st->stream>>>(w->partials, w->blocks[0] + w->blocks[1],
                                                      w->result);
    DG_CUDA_LAUNCHED("Newton reduction kernel");
    dg_cuda_partial host;
    DG_CUDA_TRY(cudaMemcpyAsync(&host, w->result, sizeof host, cudaMemcpyDeviceToHost, st->stream),
                "cudaMemcpyAsync (Newton norms)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "the Newton kernels (cudaStreamSynchronize)");
    norms->max_abs = host.max_abs, norms->sum_sq = host.sum_sq, norms->finite = host.nonfinite == 0;
    return DG_OK;
}

template <typename T> static int residual(cuda_newton *w, dg_newton_norms *norms, dg_error *err) {
    dg_cuda_state *st = w->st;
    const int status = dg_cuda_wrap_phi(st, err); /* periodic axes: G sees the images */
    if (status != DG_OK) return status;
    for (int c = 0; c < 2; ++c) {
        newton_params<T> p = params_of<T>(w, c, static_cast<T *>(st->phi[c]),
                                          static_cast<const T *>(st->phi[1 - c]));
        dg_newton_residual_kernel<T><<<w->blocks[c], NEWTON_THREADS, 0, st->stream>>>(p);
        DG_CUDA_LAUNCHED("Newton residual kernel");
    }
    return finish_norms(w, norms, err);
}

static int inner(cuda_newton *w, int count, double omega, int measure, double *max_change,
                 const dg_newton_exchange *exchange, dg_error *err) {
    dg_cuda_state *st = w->st;
    const int first_colour = exchange ? exchange->first_colour : 0;
    for (int it = 0; it < count; ++it) {
        if (measure && it == count - 1)
            for (int c = 0; c < 2; ++c)
                DG_CUDA_TRY(cudaMemcpyAsync(w->snapshot[c], w->delta[c],
                                            st->half_count[c] * sizeof(float),
                                            cudaMemcpyDeviceToDevice, st->stream),
                            "cudaMemcpyAsync (Newton snapshot)");
        for (int k = 0; k < 2; ++k) {
            const int c = k ^ first_colour;
            newton_params<float> p = params_of<float>(w, c, NULL, NULL);
            p.omega = omega;
            dim3 grid, block;
            inner_rows(st, &grid, &block);
            dg_newton_inner_kernel<<<grid, block, 0, st->stream>>>(p);
            DG_CUDA_LAUNCHED("Newton inner sweep kernel");
            if (p.boundary_count > 0) {
                const int blocks = (p.boundary_count + NEWTON_THREADS - 1) / NEWTON_THREADS;
                dg_newton_inner_boundary_kernel<<<blocks, NEWTON_THREADS, 0, st->stream>>>(
                    p, st->sparse[c].index);
                DG_CUDA_LAUNCHED("Newton inner boundary kernel");
            }
            for (int k = 1; st->periodic && k <= st->seam_steps; ++k) {
                const int first = st->seam_start[c][k - 1], end = st->seam_start[c][k];
                if (end <= first) continue;
                dg_newton_seam_kernel<<<(end - first + NEWTON_THREADS - 1) / NEWTON_THREADS,
                                        NEWTON_THREADS, 0, st->stream>>>(
                    p, st->seam_index[c], st->seam_axes[c], st->seam_coef_raw[c], first, end);
                DG_CUDA_LAUNCHED("Newton inner seam kernel");
            }
            if (exchange) { /* delta_plane orders its copies after these kernels */
                const int status = exchange->after_colour(exchange->user, c, err);
                if (status != DG_OK) return status;
            }
        }
    }
    if (!measure) return DG_OK;
    for (int c = 0; c < 2; ++c) {
        newton_params<float> p = params_of<float>(w, c, NULL, NULL);
        dg_newton_change_kernel<<<w->blocks[c], NEWTON_THREADS, 0, st->stream>>>(p);
        DG_CUDA_LAUNCHED("Newton change kernel");
    }
    dg_newton_norms norms;
    int status = finish_norms(w, &norms, err);
    if (status == DG_OK) *max_change = norms.finite ? norms.max_abs : NAN;
    return status;
}

template <typename T>
static int step(cuda_newton *w, double lambda, int first, dg_newton_norms *norms, dg_error *err) {
    dg_cuda_state *st = w->st;
    for (int c = 0; c < 2; ++c) {
        newton_params<T> p = params_of<T>(w, c, static_cast<T *>(st->phi[c]),
                                          static_cast<const T *>(st->phi[1 - c]));
        p.lambda = lambda, p.first = first;
        dg_newton_step_kernel<T><<<w->blocks[c], NEWTON_THREADS, 0, st->stream>>>(p);
        DG_CUDA_LAUNCHED("Newton update kernel");
    }
    const int status = dg_cuda_wrap_phi(st, err); /* the faces follow their images */
    return status != DG_OK ? status : finish_norms(w, norms, err);
}

static void close_peer_delta(cuda_newton *w, int slot) {
    if (w->peer_delta[slot]) cudaIpcCloseMemHandle(w->peer_delta[slot]);
    w->peer_delta[slot] = NULL, w->peer_half0[slot] = w->peer_total[slot] = 0;
}

static void cuda_newton_end(void *workspace) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    if (!w) return;
    cudaSetDevice(w->st->device);
    close_peer_delta(w, 0), close_peer_delta(w, 1);
    dg_cuda_mg_jacobian_end(w->mg);
    dg_mg_free(&w->plan);
    /* delta, a and b: one allocation for both colours, at [0] */
    cudaFree(w->delta[0]), cudaFree(w->a[0]), cudaFree(w->b[0]);
    for (int c = 0; c < 2; ++c) {
        cudaFree(w->start[c]), cudaFree(w->snapshot[c]);
        cudaFree(w->boundary_inv[c]), cudaFree(w->boundary_weight[c]), cudaFree(w->bmap[c]);
    }
    cudaFree(w->partials), cudaFree(w->result);
    free(w);
}

__global__ void dg_newton_float_kernel(float *out, const double *in, size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (float)in[i];
}

static int allocate(cuda_newton *w, dg_error *err) {
    dg_cuda_state *st = w->st;
    const size_t points = st->half_count[0] + st->half_count[1];
    const size_t need = points * (st->es + 4 * sizeof(float) + sizeof(int));
    int status = dg_cuda_check_free(st, need, "the Newton workspace", err);
    if (status != DG_OK) return status;
    float **split[3] = {w->delta, w->a, w->b}; /* both colours in one array each */
    for (int k = 0; k < 3; ++k) {
        DG_CUDA_TRY(cudaMalloc((void **)&split[k][0], points * sizeof(float)),
                    "cudaMalloc (Newton step and system)");
        split[k][1] = split[k][0] + st->half_count[0];
    }
    /* all three zeroed: the kernels write only interior points, and multigrid's row-pair
       kernels read a (their factor) at a row's face point too, discarding it */
    for (int k = 0; k < 3; ++k)
        DG_CUDA_TRY(cudaMemsetAsync(split[k][0], 0, points * sizeof(float), st->stream),
                    "cudaMemsetAsync (Newton step and system)");
    for (int c = 0; c < 2; ++c) {
        const size_t n = st->half_count[c];
        const dg_cuda_sparse *sp = &st->sparse[c];
        const size_t nb = (size_t)sp->boundary_count + 1;
        DG_CUDA_TRY(cudaMalloc(&w->start[c], n * st->es), "cudaMalloc (Newton start)");
        DG_CUDA_TRY(cudaMalloc((void **)&w->snapshot[c], n * sizeof(float)),
                    "cudaMalloc (Newton snapshot)");
        DG_CUDA_TRY(cudaMalloc((void **)&w->boundary_inv[c], nb * sizeof(float)),
                    "cudaMalloc (Newton boundary diagonal)");
        DG_CUDA_TRY(cudaMalloc((void **)&w->boundary_weight[c], 6 * nb * sizeof(float)),
                    "cudaMalloc (Newton boundary weights)");
        DG_CUDA_TRY(cudaMalloc((void **)&w->bmap[c], n * sizeof(int)), "cudaMalloc (Newton map)");
        DG_CUDA_TRY(cudaMemsetAsync(w->bmap[c], 0xff, n * sizeof(int), st->stream),
                    "cudaMemsetAsync (Newton map)");
        if (sp->total_count > 0) {
            const int blocks = (sp->total_count + NEWTON_THREADS - 1) / NEWTON_THREADS;
            dg_newton_bmap_kernel<<<blocks, NEWTON_THREADS, 0, st->stream>>>(w->bmap[c], sp->index,
                                                                             sp->total_count);
            DG_CUDA_LAUNCHED("Newton map kernel");
        }
        if (sp->boundary_count > 0) {
            const size_t nw = 6 * (size_t)sp->boundary_count;
            const unsigned blocks = (unsigned)((nw + NEWTON_THREADS - 1) / NEWTON_THREADS);
            dg_newton_float_kernel<<<blocks, NEWTON_THREADS, 0, st->stream>>>(w->boundary_weight[c],
                                                                              sp->weight_raw, nw);
            DG_CUDA_LAUNCHED("Newton weight conversion kernel");
        }
        size_t blocks = (n + NEWTON_THREADS - 1) / NEWTON_THREADS;
        const size_t most = (size_t)st->sm_count * 8;
        w->blocks[c] = (int)(blocks < 1 ? 1 : blocks > most ? most : blocks);
    }
    DG_CUDA_TRY(
        cudaMalloc((void **)&w->partials, (w->blocks[0] + w->blocks[1]) * sizeof(dg_cuda_partial)),
        "cudaMalloc (Newton partials)");
    DG_CUDA_TRY(cudaMalloc((void **)&w->result, sizeof(dg_cuda_partial)),
                "cudaMalloc (Newton result)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "Newton set-up (cudaStreamSynchronize)");
    return DG_OK;
}

static int cuda_newton_begin(void *backend_state, const dg_newton_term *term, void **workspace,
                             dg_error *err) {
    *workspace = NULL;
    dg_cuda_state *st = static_cast<dg_cuda_state *>(backend_state);
    if (!st->has_medium) return dg_error_set(err, DG_ERR_STATE, "CUDA backend: no medium");
    DG_CUDA_TRY(cudaSetDevice(st->device), "cudaSetDevice");
    cuda_newton *w = static_cast<cuda_newton *>(calloc(1, sizeof *w));
    if (!w) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (Newton workspace)");
    w->st = st;
    w->term = *term;
    int status = allocate(w, err);
    if (status != DG_OK) {
        cuda_newton_end(w);
        return status;
    }
    *workspace = w;
    return DG_OK;
}

static int cuda_newton_residual(void *workspace, dg_newton_norms *norms, dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    return w->st->is_float ? residual<float>(w, norms, err) : residual<double>(w, norms, err);
}

static int cuda_newton_zero_step(void *workspace, dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    for (int c = 0; c < 2; ++c)
        DG_CUDA_TRY(
            cudaMemsetAsync(w->delta[c], 0, w->st->half_count[c] * sizeof(float), w->st->stream),
            "cudaMemsetAsync (Newton step)");
    return DG_OK;
}

static int cuda_newton_inner(void *workspace, int count, double omega, int measure,
                             double *max_change, const dg_newton_exchange *exchange,
                             dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    return inner(w, count, omega, measure, max_change, exchange, err);
}

/* One colour of plane z of the step to or from the host, on the backend's stream (after the
   sweeps queued before it, before those queued after), waited for. */
static int cuda_newton_delta_plane(void *workspace, int z, int colour, float *values, int put,
                                   dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    dg_cuda_state *st = w->st;
    if (z < 0 || z >= st->nz || (colour != 0 && colour != 1))
        return dg_error_set(err, DG_ERR_INTERNAL, "Newton step plane %d, colour %d", z, colour);
    DG_CUDA_TRY(cudaSetDevice(st->device), "cudaSetDevice");
    long first, end;
    dg_plane_range(st->nx, st->ny, z, colour, &first, &end);
    float *delta = w->delta[colour] + first;
    const size_t bytes = (size_t)(end - first) * sizeof(float);
    DG_CUDA_TRY(
        cudaMemcpyAsync(put ? static_cast<void *>(delta) : static_cast<void *>(values),
                        put ? static_cast<const void *>(values) : static_cast<const void *>(delta),
                        bytes, put ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, st->stream),
        "cudaMemcpyAsync (Newton step plane)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize (Newton step plane)");
    return DG_OK;
}

static int cuda_newton_step(void *workspace, double lambda, int first, dg_newton_norms *norms,
                            dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    return w->st->is_float ? step<float>(w, lambda, first, norms, err)
                           : step<double>(w, lambda, first, norms, err);
}

static int cuda_newton_mg_begin(void *workspace, const dg_prepared *prep, int threads,
                                dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    if (prep->half_count[0] != w->st->half_count[0])
        return dg_error_set(err, DG_ERR_INTERNAL, "Newton multigrid: the medium is not loaded");
    dg_mg_params params;
    dg_mg_default_params(&params);
    char message[512];
    int status = dg_mg_plan(&w->plan, prep, &params, threads, message, sizeof message);
    if (status != DG_OK) return dg_error_set(err, status, "%s", message);
    return dg_cuda_mg_jacobian_begin(w->st->device, &w->plan, threads, &w->mg, err);
}

/* The system a, b of the last residual (its kernels have ended: finish_norms waited) and the
   answer into delta, on multigrid's own stream, which has ended when this returns. */
static int cuda_newton_inner_mg(void *workspace, const dg_mg_control *control,
                                dg_mg_outcome *outcome, dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    if (!w->mg) return dg_error_set(err, DG_ERR_INTERNAL, "Newton multigrid: no hierarchy");
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    return dg_cuda_mg_jacobian_solve(w->mg, w->a[0], w->b[0], w->delta[0], control, outcome, err);
}

/* ---- The step shared with the neighbouring MPI ranks' devices (CUDA IPC) ------------------ */

typedef struct delta_blob {
    char magic[8]; /* "dgstep1" */
    int device;
    unsigned long long half0, total; /* colour 1 starts at half0; both colours */
    cudaIpcMemHandle_t handle;
} delta_blob;

static_assert(sizeof(delta_blob) <= DG_PEER_HANDLE_BYTES, "DG_PEER_HANDLE_BYTES is too small");

static int cuda_newton_delta_export(void *workspace, unsigned char *handle, dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    delta_blob b;
    memset(&b, 0, sizeof b);
    memcpy(b.magic, "dgstep1", 8);
    b.device = w->st->device;
    b.half0 = w->st->half_count[0], b.total = w->st->half_count[0] + w->st->half_count[1];
    const cudaError_t code = cudaIpcGetMemHandle(&b.handle, w->delta[0]);
    if (code != cudaSuccess) {
        cudaGetLastError(); /* not sticky */
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "CUDA backend: the Newton step on device %d cannot be shared "
                            "(cudaIpcGetMemHandle: %s)",
                            w->st->device, cudaGetErrorString(code));
    }
    memset(handle, 0, DG_PEER_HANDLE_BYTES);
    memcpy(handle, &b, sizeof b);
    return DG_OK;
}

static int cuda_newton_delta_open(void *workspace, int slot, const unsigned char *handle,
                                  dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    if (slot < 0 || slot > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CUDA backend: peer slot %d", slot);
    DG_CUDA_TRY(cudaSetDevice(w->st->device), "cudaSetDevice");
    close_peer_delta(w, slot);
    if (!handle) return DG_OK;
    delta_blob b;
    memcpy(&b, handle, sizeof b);
    if (memcmp(b.magic, "dgstep1", 8) != 0)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: a peer's Newton step is not of this build");
    void *p = NULL;
    const cudaError_t code = cudaIpcOpenMemHandle(&p, b.handle, cudaIpcMemLazyEnablePeerAccess);
    if (code != cudaSuccess) {
        cudaGetLastError(); /* not sticky */
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "CUDA backend: device %d cannot map the Newton step of device %d "
                            "(cudaIpcOpenMemHandle: %s)",
                            w->st->device, b.device, cudaGetErrorString(code));
    }
    w->peer_delta[slot] = static_cast<float *>(p);
    w->peer_half0[slot] = (size_t)b.half0, w->peer_total[slot] = (size_t)b.total;
    return DG_OK;
}

/* Queue, behind the sweeps already queued, a copy of count values of the peer's step of
   peer_colour from half-index peer_first into this step's colour at first. */
static int cuda_newton_delta_pull(void *workspace, int slot, int peer_colour, long peer_first,
                                  int colour, long first, long count, dg_error *err) {
    cuda_newton *w = static_cast<cuda_newton *>(workspace);
    dg_cuda_state *st = w->st;
    const size_t peer_base = peer_colour == 1 && slot >= 0 && slot <= 1 ? w->peer_half0[slot] : 0;
    if (slot < 0 || slot > 1 || !w->peer_delta[slot] || (colour != 0 && colour != 1) || count < 0 ||
        peer_first < 0 || first < 0 ||
        peer_base + (size_t)(peer_first + count) > w->peer_total[slot] ||
        (size_t)(first + count) > st->half_count[colour])
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: Newton step copy of %ld values from slot %d colour %d "
                            "at %ld into colour %d at %ld",
                            count, slot, peer_colour, peer_first, colour, first);
    if (count == 0) return DG_OK;
    DG_CUDA_TRY(
        cudaMemcpyAsync(w->delta[colour] + first, w->peer_delta[slot] + peer_base + peer_first,
                        (size_t)count * sizeof(float), cudaMemcpyDeviceToDevice, st->stream),
        "cudaMemcpyAsync (Newton step plane from a peer's device)");
    return DG_OK;
}

static const dg_newton_ops cuda_newton_ops = {
    cuda_newton_begin,        cuda_newton_end,        cuda_newton_residual,
    cuda_newton_zero_step,    cuda_newton_inner,      cuda_newton_step,
    cuda_newton_mg_begin,     cuda_newton_inner_mg,   cuda_newton_delta_plane,
    cuda_newton_delta_export, cuda_newton_delta_open, cuda_newton_delta_pull,
};

extern "C" const dg_newton_ops *dg_cuda_newton(void) {
    return &cuda_newton_ops;
}
