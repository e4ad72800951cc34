/* Kernel launchers: the only translation unit that instantiates the kernel templates, for float
 * and double.  Every launch is checked; execution errors surface at the next synchronisation. */
#include "cuda_internal.cuh"

#include "cuda_aux_kernels.cuh"
#include "cuda_reduce.cuh"
#include "cuda_sparse.cuh"
#include "cuda_sweep.cuh"
#include "cuda_sweep_pair.cuh"
#include "cuda_sweep_wide.cuh"

#define DG_CUDA_AUX_THREADS 256

/* Blocks of a grid-stride launch over count items. */
static unsigned aux_blocks(const dg_cuda_state *st, size_t count) {
    size_t blocks = (count + DG_CUDA_AUX_THREADS - 1) / DG_CUDA_AUX_THREADS;
    const size_t most = (size_t)st->sm_count * 16;
    if (blocks > most) blocks = most;
    return blocks > 0 ? (unsigned)blocks : 1u;
}

int dg_cuda_sparse_blocks(int count) {
    return (count + DG_CUDA_AUX_THREADS - 1) / DG_CUDA_AUX_THREADS;
}

int dg_cuda_sweep_mode(const dg_cuda_state *st) {
    if (st->mixed) return DG_SWEEP_RHS;
    if (!st->has_salt) return DG_SWEEP_POISSON;
    return st->nonlinear_active ? DG_SWEEP_NONLINEAR : DG_SWEEP_PB;
}

/* ---- Sweeps ------------------------------------------------------------------------------ */

size_t dg_cuda_sweep_shared_bytes(const dg_cuda_shape *s, size_t element_size) {
    /* planes per barrier (or pairs per thread), double-buffered */
    return 2 * (size_t)s->planes * s->width * s->bx * s->by * element_size;
}

/* The (planes per barrier, prefetch depth, pairs per thread, layout) that have kernels: 1 plane
   1 pair: depth 1..3 (variants 1-3); 2 planes: depth 1..2 (4-5); float only, 1 plane, adjacent
   pairs: 2 pairs depth 1..3 (6-8), 4 pairs depth 1..2 (9-10); segments: the same (11-15). */
static int sweep_variant(const dg_cuda_shape *s) {
    const int d = s->depth, seg = s->segments ? 5 : 0;
    if (s->width == 1 && s->planes == 1 && d >= 1 && d <= 3) return d;
    if (s->width == 1 && s->planes == 2 && d >= 1 && d <= 2) return 3 + d;
    if (s->width == 2 && s->planes == 1 && d >= 1 && d <= 3) return 5 + d + seg;
    if (s->width == 4 && s->planes == 1 && d >= 1 && d <= 2) return 8 + d + seg;
    return 0;
}

template <typename T, int MODE, bool MEASURE, int DEPTH, int PLANES, int WIDTH, bool SEGMENTS>
static void sweep_launch(const dg_cuda_shape *s, size_t shared, cudaStream_t stream,
                         const dg_sweep_params<T> &p) {
    const dim3 block(s->bx, s->by), grid(s->tiles_x, s->tiles_y, s->zchunks);
    if constexpr (WIDTH > 1 && sizeof(T) == 8)
        return; /* no double kernel: sweep_variant names none (dg_cuda_make_shape refuses it) */
    else if constexpr (WIDTH > 1)
        dg_sweep_wide_kernel<T, MODE, MEASURE, DEPTH, WIDTH, SEGMENTS>
            <<<grid, block, shared, stream>>>(p);
    else if constexpr (PLANES == 1)
        dg_sweep_kernel<T, MODE, MEASURE, DEPTH><<<grid, block, shared, stream>>>(p);
    else
        dg_sweep_pair_kernel<T, MODE, MEASURE, DEPTH><<<grid, block, shared, stream>>>(p);
}

/* False when the shape names no kernel (nothing launched). */
template <typename T, int MODE, bool MEASURE>
static bool sweep_depth(const dg_cuda_shape *s, size_t shared, cudaStream_t stream,
                        const dg_sweep_params<T> &p) {
    switch (sweep_variant(s)) {
    case 1:
        sweep_launch<T, MODE, MEASURE, 1, 1, 1, false>(s, shared, stream, p);
        return true;
    case 2:
        sweep_launch<T, MODE, MEASURE, 2, 1, 1, false>(s, shared, stream, p);
        return true;
    case 3:
        sweep_launch<T, MODE, MEASURE, 3, 1, 1, false>(s, shared, stream, p);
        return true;
    case 4:
        sweep_launch<T, MODE, MEASURE, 1, 2, 1, false>(s, shared, stream, p);
        return true;
    case 5:
        sweep_launch<T, MODE, MEASURE, 2, 2, 1, false>(s, shared, stream, p);
        return true;
    case 6:
        sweep_launch<T, MODE, MEASURE, 1, 1, 2, false>(s, shared, stream, p);
        return true;
    case 7:
        sweep_launch<T, MODE, MEASURE, 2, 1, 2, false>(s, shared, stream, p);
        return true;
    case 8:
        sweep_launch<T, MODE, MEASURE, 3, 1, 2, false>(s, shared, stream, p);
        return true;
    case 9:
        sweep_launch<T, MODE, MEASURE, 1, 1, 4, false>(s, shared, stream, p);
        return true;
    case 10:
        sweep_launch<T, MODE, MEASURE, 2, 1, 4, false>(s, shared, stream, p);
        return true;
    case 11:
        sweep_launch<T, MODE, MEASURE, 1, 1, 2, true>(s, shared, stream, p);
        return true;
    case 12:
        sweep_launch<T, MODE, MEASURE, 2, 1, 2, true>(s, shared, stream, p);
        return true;
    case 13:
        sweep_launch<T, MODE, MEASURE, 3, 1, 2, true>(s, shared, stream, p);
        return true;
    case 14:
        sweep_launch<T, MODE, MEASURE, 1, 1, 4, true>(s, shared, stream, p);
        return true;
    case 15:
        sweep_launch<T, MODE, MEASURE, 2, 1, 4, true>(s, shared, stream, p);
        return true;
    default:
        return false;
    }
}

template <typename T>
static int launch_sweep(dg_cuda_state *st, const dg_cuda_shape *shape, int colour, bool measure,
                        int stride, dg_error *err) {
    dg_sweep_params<T> p;
    p.cur = st->phi[colour];
    p.other = st->phi[1 - colour];
    p.flag = st->flag[colour];
    /* mixed's correction sweep takes the salt bit from its rhs (refine_rhs.h) and reads the
       flags only when measured (colour 1's sparse marks): an unmeasured one skips that byte */
    if (dg_cuda_sweep_mode(st) == DG_SWEEP_RHS && !measure) p.flag = NULL;
    p.qmap = static_cast<const T *>(st->qmap[colour]);
    p.rhs = st->rhs[colour];
    p.rhs_mask = dg_rhs_value_mask(st->has_salt);
    p.plane = (unsigned)st->nx * (unsigned)st->ny;
    p.nx = st->nx, p.ny = st->ny, p.nz = st->nz, p.colour = colour;
    p.planes_per_chunk = shape->planes_per_chunk;
    p.keep = (T)(1.0 - st->omega);
    p.w0 = (T)(st->omega * st->factor[0]);
    p.w1 = (T)(st->omega * st->factor[1]);
    p.stride = stride;
    p.partials = st->partials;
    p.scale = st->refine_scale;
    const size_t shared = dg_cuda_sweep_shared_bytes(shape, sizeof(T));
    bool launched = false;
    switch (dg_cuda_sweep_mode(st) * 2 + (measure ? 1 : 0)) {
    case 0:
        launched = sweep_depth<T, DG_SWEEP_POISSON, false>(shape, shared, st->stream, p);
        break;
    case 1:
        launched = sweep_depth<T, DG_SWEEP_POISSON, true>(shape, shared, st->stream, p);
        break;
    case 2:
        launched = sweep_depth<T, DG_SWEEP_PB, false>(shape, shared, st->stream, p);
        break;
    case 3:
        launched = sweep_depth<T, DG_SWEEP_PB, true>(shape, shared, st->stream, p);
        break;
    case 4:
        launched = sweep_depth<T, DG_SWEEP_NONLINEAR, false>(shape, shared, st->stream, p);
        break;
    case 5:
        launched = sweep_depth<T, DG_SWEEP_NONLINEAR, true>(shape, shared, st->stream, p);
        break;
    default: /* mixed's correction sweeps: float only (their storage is binary16) */
        if constexpr (sizeof(T) == sizeof(float))
            launched = measure ? sweep_depth<T, DG_SWEEP_RHS, true>(shape, shared, st->stream, p)
                               : sweep_depth<T, DG_SWEEP_RHS, false>(shape, shared, st->stream, p);
        break;
    }
    if (!launched)
        return dg_error_set(err, DG_ERR_INTERNAL,
                            "no sweep kernel with depth %d, %d planes, %d pairs per thread (%s)",
                            shape->depth, shape->planes, shape->width,
                            shape->segments ? "segments" : "adjacent");
    DG_CUDA_LAUNCHED("sweep kernel");
    return DG_OK;
}

template <typename T, int MODE, int DEPTH, int PLANES, int WIDTH, bool SEGMENTS>
static cudaError_t occupancy(int *blocks, int threads, size_t shared) {
    if constexpr (WIDTH > 1 && sizeof(T) == 8)
        return cudaErrorInvalidValue;
    else if constexpr (WIDTH > 1)
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            blocks, dg_sweep_wide_kernel<T, MODE, false, DEPTH, WIDTH, SEGMENTS>, threads, shared);
    else if constexpr (PLANES == 1)
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            blocks, dg_sweep_kernel<T, MODE, false, DEPTH>, threads, shared);
    else
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            blocks, dg_sweep_pair_kernel<T, MODE, false, DEPTH>, threads, shared);
}

template <typename T, int MODE>
static cudaError_t occupancy_depth(const dg_cuda_shape *s, int *blocks, size_t shared) {
    const int threads = s->bx * s->by;
    switch (sweep_variant(s)) {
    case 1:
        return occupancy<T, MODE, 1, 1, 1, false>(blocks, threads, shared);
    case 2:
        return occupancy<T, MODE, 2, 1, 1, false>(blocks, threads, shared);
    case 3:
        return occupancy<T, MODE, 3, 1, 1, false>(blocks, threads, shared);
    case 4:
        return occupancy<T, MODE, 1, 2, 1, false>(blocks, threads, shared);
    case 5:
        return occupancy<T, MODE, 2, 2, 1, false>(blocks, threads, shared);
    case 6:
        return occupancy<T, MODE, 1, 1, 2, false>(blocks, threads, shared);
    case 7:
        return occupancy<T, MODE, 2, 1, 2, false>(blocks, threads, shared);
    case 8:
        return occupancy<T, MODE, 3, 1, 2, false>(blocks, threads, shared);
    case 9:
        return occupancy<T, MODE, 1, 1, 4, false>(blocks, threads, shared);
    case 10:
        return occupancy<T, MODE, 2, 1, 4, false>(blocks, threads, shared);
    case 11:
        return occupancy<T, MODE, 1, 1, 2, true>(blocks, threads, shared);
    case 12:
        return occupancy<T, MODE, 2, 1, 2, true>(blocks, threads, shared);
    case 13:
        return occupancy<T, MODE, 3, 1, 2, true>(blocks, threads, shared);
    case 14:
        return occupancy<T, MODE, 1, 1, 4, true>(blocks, threads, shared);
    case 15:
        return occupancy<T, MODE, 2, 1, 4, true>(blocks, threads, shared);
    default:
        return cudaErrorInvalidValue;
    }
}

template <typename T>
static int sweep_occupancy(dg_cuda_state *st, const dg_cuda_shape *s, int *blocks_per_sm,
                           dg_error *err) {
    const size_t shared = dg_cuda_sweep_shared_bytes(s, sizeof(T));
    /* by the medium only (not the mixed phase), so that the partials sized from it suffice */
    const cudaError_t code = st->has_salt
                                 ? occupancy_depth<T, DG_SWEEP_PB>(s, blocks_per_sm, shared)
                                 : occupancy_depth<T, DG_SWEEP_POISSON>(s, blocks_per_sm, shared);
    DG_CUDA_TRY(code, "cudaOccupancyMaxActiveBlocksPerMultiprocessor (sweep)");
    return DG_OK;
}

int dg_cuda_sweep_occupancy(dg_cuda_state *st, const dg_cuda_shape *s, int *blocks_per_sm,
                            dg_error *err) {
    return st->is_float ? sweep_occupancy<float>(st, s, blocks_per_sm, err)
                        : sweep_occupancy<double>(st, s, blocks_per_sm, err);
}

/* ---- Sparse corrections ------------------------------------------------------------------- */

template <typename T, bool TEXTURE, bool TRACK, bool MEASURE>
static void sparse_launch(int blocks, cudaStream_t stream, const dg_sparse_params<T> &p,
                          bool half) {
    if constexpr (sizeof(T) == sizeof(float))
        if (half) {
            dg_sparse_kernel<T, TEXTURE, TRACK, MEASURE, dg_half16>
                <<<blocks, DG_CUDA_AUX_THREADS, 0, stream>>>(p);
            return;
        }
    dg_sparse_kernel<T, TEXTURE, TRACK, MEASURE, T><<<blocks, DG_CUDA_AUX_THREADS, 0, stream>>>(p);
}

template <typename T>
static int launch_sparse(dg_cuda_state *st, int colour, bool measure, int stride,
                         dg_cuda_partial *partials, dg_error *err) {
    const dg_cuda_sparse *sp = &st->sparse[colour];
    if (sp->total_count == 0) return DG_OK;
    dg_sparse_params<T> p;
    p.cur = st->phi[colour];
    p.other = st->phi[1 - colour];
    p.scale = st->refine_scale;
    /* mixed's correction: binary16 (refine_half.h), its sources 0 and left out */
    const bool half = dg_cuda_sweep_mode(st) == DG_SWEEP_RHS;
    p.boundary_count = sp->boundary_count, p.total_count = sp->total_count;
    p.index = sp->index;
    p.weight = static_cast<const T *>(sp->weight);
    p.source = static_cast<const T *>(sp->source);
    p.last = static_cast<T *>(sp->last);
    for (int f = 0; f < 6; ++f)
        p.offset[f] = (int)st->offsets[colour][f];
    p.tex_index = sp->tex_index, p.tex_weight = sp->tex_weight, p.tex_source = sp->tex_source;
    p.stride = stride;
    p.partials = partials;
    const int blocks = dg_cuda_sparse_blocks(sp->total_count);
    const bool texture = st->sparse_reader == DG_CUDA_READER_TEXTURE;
    const bool track = colour == 1;
    switch ((texture ? 4 : 0) + (track ? 2 : 0) + (measure ? 1 : 0)) {
    case 0:
        sparse_launch<T, false, false, false>(blocks, st->stream, p, half);
        break;
    case 2:
        sparse_launch<T, false, true, false>(blocks, st->stream, p, half);
        break;
    case 3:
        sparse_launch<T, false, true, true>(blocks, st->stream, p, half);
        break;
    case 4:
        sparse_launch<T, true, false, false>(blocks, st->stream, p, half);
        break;
    case 6:
        sparse_launch<T, true, true, false>(blocks, st->stream, p, half);
        break;
    case 7:
        sparse_launch<T, true, true, true>(blocks, st->stream, p, half);
        break;
    default:
        return dg_error_set(err, DG_ERR_INTERNAL, "measured correction of colour %d", colour);
    }
    DG_CUDA_LAUNCHED("correction kernel");
    return DG_OK;
}

template <typename T>
static int iteration(dg_cuda_state *st, const dg_cuda_shape *shape, int measure, int stride,
                     dg_error *err) {
    int status = DG_OK;
    for (int c = 0; c < 2 && status == DG_OK; ++c) {
        const bool measured = measure && c == 1;
        status = launch_sweep<T>(st, shape, c, measured, stride, err);
        if (status == DG_OK)
            status = launch_sparse<T>(st, c, measured, stride, st->partials + shape->blocks, err);
        if (status == DG_OK) status = dg_cuda_launch_periodic(st, c, err);
    }
    return status;
}

int dg_cuda_launch_iteration(dg_cuda_state *st, const dg_cuda_shape *shape, int measure, int stride,
                             dg_error *err) {
    if (measure) {
        const int count = shape->blocks + dg_cuda_sparse_blocks(st->sparse[1].total_count);
        if (count > st->partial_capacity)
            return dg_error_set(err, DG_ERR_INTERNAL, "reduction needs %d partials, %d allocated",
                                count, st->partial_capacity);
        st->partial_count = count;
        st->sample_stride = stride;
    }
    return st->is_float ? iteration<float>(st, shape, measure, stride, err)
                        : iteration<double>(st, shape, measure, stride, err);
}

template <typename T> static int colour_pass(dg_cuda_state *st, int colour, dg_error *err) {
    int status = launch_sweep<T>(st, &st->shape, colour, false, 1, err);
    if (status == DG_OK) status = launch_sparse<T>(st, colour, false, 1, NULL, err);
    if (status == DG_OK) status = dg_cuda_launch_periodic(st, colour, err);
    return status;
}

int dg_cuda_launch_colour(dg_cuda_state *st, int colour, dg_error *err) {
    return st->is_float ? colour_pass<float>(st, colour, err)
                        : colour_pass<double>(st, colour, err);
}

int dg_cuda_finish_measure(dg_cuda_state *st, dg_change *change, dg_error *err) {
    dg_final_reduce_kernel<<<1, 256, 0, st->stream>>>(st->partials, st->partial_count,
                                                      st->result_device);
    DG_CUDA_LAUNCHED("reduction kernel");
    DG_CUDA_TRY(cudaMemcpyAsync(st->result_host, st->result_device, sizeof(dg_cuda_partial),
                                cudaMemcpyDeviceToHost, st->stream),
                "cudaMemcpyAsync (convergence result)");
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "the iterations (cudaStreamSynchronize)");
    change->max_abs = st->result_host->max_abs;
    change->sum_sq = st->result_host->sum_sq;
    change->finite = st->result_host->nonfinite == 0;
    change->max_value = 0.0;
    if (st->is_float && !st->mixed) { /* float's resolution scale */
        int status = dg_cuda_sample_max_launch(st, st->sample_stride, err);
        if (status == DG_OK) status = dg_cuda_sample_max_read(st, &change->max_value, err);
        if (status != DG_OK) return status;
    }
    return DG_OK;
}

/* ---- Auxiliary kernels -------------------------------------------------------------------- */

template <typename T> static int rescale(dg_cuda_state *st, dg_error *err) {
    for (int c = 0; c < 2; ++c) {
        const dg_cuda_sparse *sp = &st->sparse[c];
        const size_t nw = 6 * (size_t)sp->boundary_count, ns = (size_t)sp->total_count;
        if (nw > 0) {
            dg_rescale_kernel<T><<<aux_blocks(st, nw), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
                static_cast<T *>(sp->weight), sp->weight_raw, nw, st->omega);
            DG_CUDA_LAUNCHED("weight scaling kernel");
        }
        if (ns > 0) {
            /* mixed precision: the sources are in the residual, the correction has none */
            const double scale = st->mixed ? 0.0 : st->omega;
            dg_rescale_kernel<T><<<aux_blocks(st, ns), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
                static_cast<T *>(sp->source), sp->source_raw, ns, scale);
            DG_CUDA_LAUNCHED("source scaling kernel");
        }
        const size_t nq = st->periodic ? 3 * (size_t)st->seam_start[c][st->seam_steps] : 0;
        if (nq > 0) { /* periodic axes' seam coefficients (prepared.h) */
            dg_rescale_kernel<T><<<aux_blocks(st, nq), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
                static_cast<T *>(st->seam_coef[c]), st->seam_coef_raw[c], nq, st->omega);
            DG_CUDA_LAUNCHED("seam scaling kernel");
        }
    }
    return DG_OK;
}

int dg_cuda_launch_rescale(dg_cuda_state *st, dg_error *err) {
    return st->is_float ? rescale<float>(st, err) : rescale<double>(st, err);
}

template <typename T>
static int nonlinear_source(dg_cuda_state *st, double fraction, dg_error *err) {
    const double scale = fraction * st->nonlinear_coefficient;
    for (int c = 0; c < 2; ++c) {
        const size_t n = st->half_count[c];
        dg_nonlinear_source_kernel<T><<<aux_blocks(st, n), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
            static_cast<T *>(st->qmap[c]), static_cast<const T *>(st->phi[c]), st->flag[c], n,
            scale, st->chi[0], st->chi[1], st->chi[2], st->chi[3]);
        DG_CUDA_LAUNCHED("nonlinear source kernel");
    }
    return DG_OK;
}

int dg_cuda_launch_nonlinear_source(dg_cuda_state *st, double fraction, dg_error *err) {
    return st->is_float ? nonlinear_source<float>(st, fraction, err)
                        : nonlinear_source<double>(st, fraction, err);
}

int dg_cuda_launch_mark_sparse(dg_cuda_state *st, dg_error *err) {
    const dg_cuda_sparse *sp = &st->sparse[1];
    if (sp->total_count == 0) return DG_OK;
    dg_mark_sparse_kernel<<<aux_blocks(st, sp->total_count), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
        st->flag[1], sp->index, sp->total_count);
    DG_CUDA_LAUNCHED("sparse marking kernel");
    return DG_OK;
}

int dg_cuda_launch_gather_last(dg_cuda_state *st, dg_error *err) {
    const dg_cuda_sparse *sp = &st->sparse[1];
    /* mixed: phi holds the correction, whose list values start at 0 (dg_cuda_refine_after_load) */
    if (sp->total_count == 0 || st->mixed) return DG_OK;
    const unsigned blocks = aux_blocks(st, sp->total_count);
    if (st->is_float)
        dg_gather_kernel<float><<<blocks, DG_CUDA_AUX_THREADS, 0, st->stream>>>(
            static_cast<float *>(sp->last), static_cast<const float *>(st->phi[1]), sp->index,
            sp->total_count);
    else
        dg_gather_kernel<double><<<blocks, DG_CUDA_AUX_THREADS, 0, st->stream>>>(
            static_cast<double *>(sp->last), static_cast<const double *>(st->phi[1]), sp->index,
            sp->total_count);
    DG_CUDA_LAUNCHED("gather kernel");
    return DG_OK;
}

template <typename T, typename S> static void split(dg_cuda_state *st, size_t w0, size_t count) {
    dg_split_kernel<T, S><<<aux_blocks(st, count), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
        static_cast<T *>(st->phi[0]), static_cast<T *>(st->phi[1]),
        static_cast<const S *>(st->staging), w0, count);
}

template <typename T, typename S> static void merge(dg_cuda_state *st, size_t w0, size_t count) {
    dg_merge_kernel<T, S><<<aux_blocks(st, count), DG_CUDA_AUX_THREADS, 0, st->stream>>>(
        static_cast<S *>(st->staging), static_cast<const T *>(st->phi[0]),
        static_cast<const T *>(st->phi[1]), w0, count);
}

int dg_cuda_launch_split(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err) {
    if (st->mixed) return dg_cuda_refine_split(st, w0, count, is_double, err);
    if (st->is_float)
        is_double ? split<float, double>(st, w0, count) : split<float, float>(st, w0, count);
    else
        is_double ? split<double, double>(st, w0, count) : split<double, float>(st, w0, count);
    DG_CUDA_LAUNCHED("split kernel");
    return DG_OK;
}

int dg_cuda_launch_merge(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err) {
    if (st->mixed) return dg_cuda_refine_merge(st, w0, count, is_double, err);
    if (st->is_float)
        is_double ? merge<float, double>(st, w0, count) : merge<float, float>(st, w0, count);
    else
        is_double ? merge<double, double>(st, w0, count) : merge<double, float>(st, w0, count);
    DG_CUDA_LAUNCHED("merge kernel");
    return DG_OK;
}

int dg_cuda_probe_kernels(dg_error *err) {
    cudaFuncAttributes attributes;
    DG_CUDA_TRY(cudaFuncGetAttributes(&attributes, dg_final_reduce_kernel),
                "cudaFuncGetAttributes");
    return DG_OK;
}
