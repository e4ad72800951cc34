/* Sweep launch shapes: tiles over x-y, chunks along z, and the autotune (block shapes are
 * chosen by measurement).
 *
 * The autotune times whole iterations of the solve itself: every shape computes every point
 * with the same arithmetic, so the results do not depend on which shape ran an iteration and
 * tuning costs no extra work or memory.  Round 1: after one untimed warm-up iteration each
 * candidate runs DG_CUDA_TIMED_ITERATIONS timed iterations (CUDA events) and keeps its fastest;
 * round 2: the DG_CUDA_RETUNE_CANDIDATES fastest of round 1 are timed again in
 * DG_CUDA_CONFIRM_PASSES interleaved passes (one iteration each per pass, so a drift of the
 * device's speed during the tuning touches them alike), and the fastest by round 2's times is
 * kept for this handle, grid and sweep mode.  Only iterations like the steady ones are timed: not
 * a measured one (its sweep also reduces the change) and not the first of a block (it starts on
 * an idle device after the check's synchronisation), unless a block has no other.  Measured on
 * an H100 at 385^3 (docs/PERFORMANCE.md, run 29): with one round of sums of two iterations,
 * measured ones included, the program kept a different float shape in each run (0.149-0.172 ms
 * per sweep under the profiler, against 0.134 for the best); with these rules it kept the same
 * shape in every run of a mode (1hpv, float and double, with and without salt, 3 runs each). */
#include <math.h>

#include "cuda_internal.cuh"

#define DG_CUDA_DEFAULT_BX       16
#define DG_CUDA_DEFAULT_BY       16
#define DG_CUDA_CHUNK_PLANES     40 /* planes per z chunk on large grids (measured, PERFORMANCE.md) */
#define DG_CUDA_MIN_CHUNK_PLANES 8

/* Autotune candidates: block shapes (x counts threads, each of `width` pairs of grid points),
   each with these sweep variants: {planes per barrier, prefetch depth, pairs per thread,
   segments layout}.  The wider ones (cuda_sweep_wide.cuh, float only) move more bytes per
   thread, for 4-byte and 2-byte data; their tiles are 2 or 4 times as wide, so they are timed
   on the first `narrow_count` shapes only (block x up to 34 threads). */
static const int candidate_shapes[][2] = {{16, 16}, {32, 8}, {32, 16}, {32, 32}, {16, 32},
                                          {34, 30}, {64, 8}, {64, 16}, {66, 15}};
static const int candidate_count = sizeof candidate_shapes / sizeof candidate_shapes[0];
static const int narrow_count = 6;
/* Four pairs per thread ({1, 1, 4, 0|1}) is not a candidate: on an H100 at 385^3 (float
   Laplace sweeps, PERFORMANCE.md run 21) it took 0.72-1.01 ms per two iterations against the
   best shape's 0.54, so timing it only lengthened the tuning; dg_cuda_set_pairs_per_thread still
   forces it. */
static const int candidate_variants[][4] = {{1, 2, 1, 0}, {1, 3, 1, 0}, {2, 1, 1, 0}, {2, 2, 1, 0},
                                            {1, 2, 2, 0}, {1, 3, 2, 0}, {1, 2, 2, 1}, {1, 3, 2, 1}};
static const int variant_count = sizeof candidate_variants / sizeof candidate_variants[0];

/* Chunks along z.  Measured on an H100 (docs/PERFORMANCE.md): when every block marches through
   all planes, all blocks read the same few planes at once and the sweep loses 10-20 % of its
   bandwidth; chunks of about 40 planes, many blocks in flight at different depths, do best.
   Small grids take shorter chunks (down to 8 planes) until there are two blocks per resident
   slot.  Each chunk re-reads 2 planes of the other colour, 2 / (3 * 40) of the traffic. */
static int choose_zchunks(int tiles, int slots, int planes) {
    int k = (planes + DG_CUDA_CHUNK_PLANES - 1) / DG_CUDA_CHUNK_PLANES;
    const int fill = (2 * slots + tiles - 1) / tiles, most = planes / DG_CUDA_MIN_CHUNK_PLANES;
    if (k < fill) k = fill < most ? fill : most;
    return k > 0 ? k : 1;
}

int dg_cuda_make_shape(dg_cuda_state *st, int bx, int by, dg_cuda_shape *s, dg_error *err) {
    const int pairs = (st->nx - 1) / 2, rows = st->ny - 2, planes = st->nz - 2;
    const int w = st->width, seg = w > 1 && st->segments;
    const int most_depth = st->planes == 2 ? 2 : w == 4 ? 2 : DG_CUDA_MAX_DEPTH;
    if (st->planes < 1 || st->planes > 2 || st->depth < 1 || st->depth > most_depth ||
        (w != 1 && w != 2 && w != 4) || (w > 1 && (st->planes != 1 || !st->is_float)))
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "no %s sweep kernel with prefetch depth %d, %d planes per barrier "
                            "and %d pairs per thread",
                            st->is_float ? "float" : "double", st->depth, st->planes, w);
    s->bx = bx, s->by = by, s->depth = st->depth, s->planes = st->planes, s->width = w;
    s->segments = seg;
    s->tiles_x = (pairs + (bx - 2) * w - 1) / ((bx - 2) * w);
    s->tiles_y = (rows + by - 3) / (by - 2);
    if (s->tiles_y > 65535)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "grid %d x %d x %d needs %d thread blocks along y with %d x %d "
                            "blocks; CUDA allows 65535 (use a larger block_y)",
                            st->nx, st->ny, st->nz, s->tiles_y, bx, by);
    int per_sm = 0;
    int status = dg_cuda_sweep_occupancy(st, s, &per_sm, err);
    if (status != DG_OK) return status;
    if (per_sm < 1)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "sweep blocks of %d x %d threads cannot run on device %d (%s)", bx, by,
                            st->device, st->device_name);
    const int tiles = s->tiles_x * s->tiles_y;
    int k = choose_zchunks(tiles, per_sm * st->sm_count, planes);
    if (k > 65535) k = 65535;
    s->planes_per_chunk = (planes + k - 1) / k;
    s->zchunks = (planes + s->planes_per_chunk - 1) / s->planes_per_chunk;
    s->blocks = tiles * s->zchunks;
    return DG_OK;
}

/* Make a shape at a given prefetch depth, planes per barrier, pairs per thread and layout (the
   state's are restored). */
static int make_shape_at(dg_cuda_state *st, int bx, int by, int depth, int planes, int width,
                         int segments, dg_cuda_shape *s, dg_error *err) {
    const int saved_depth = st->depth, saved_planes = st->planes, saved_width = st->width,
              saved_segments = st->segments;
    st->depth = depth, st->planes = planes, st->width = width, st->segments = segments;
    const int status = dg_cuda_make_shape(st, bx, by, s, err);
    st->depth = saved_depth, st->planes = saved_planes, st->width = saved_width,
    st->segments = saved_segments;
    return status;
}

/* Over every shape, prefetch depth, planes per barrier and pairs per thread this handle may use,
   so that changing them later (dg_cuda_set_prefetch_depth, dg_cuda_set_planes_per_barrier,
   dg_cuda_set_pairs_per_thread) never outgrows the partials. */
int dg_cuda_max_blocks(dg_cuda_state *st, int *blocks, dg_error *err) {
    *blocks = 0;
    dg_cuda_shape s;
    int status = DG_OK;
    for (int width = 1; width <= (st->is_float ? DG_CUDA_MAX_WIDTH : 1); width *= 2)
        for (int planes = 1; planes <= (width == 1 ? 2 : 1); ++planes) {
            const int most = planes == 2 || width == 4 ? 2 : DG_CUDA_MAX_DEPTH;
            for (int depth = 1; depth <= most; ++depth) {
                const int fixed = st->config.block_x > 0;
                for (int i = 0; i < (fixed ? 1 : candidate_count); ++i) {
                    const int bx = fixed ? st->config.block_x : candidate_shapes[i][0];
                    const int by = fixed ? st->config.block_y : candidate_shapes[i][1];
                    status = make_shape_at(st, bx, by, depth, planes, width, 0, &s, err);
                    if (status != DG_OK) return status;
                    if (s.blocks > *blocks) *blocks = s.blocks;
                }
            }
        }
    return status;
}

/* Time every candidate, or (ranked) only the fastest of the last full tuning of this grid. */
static int start_tuner(dg_cuda_state *st, int ranked, dg_error *err) {
    dg_cuda_tuner *t = &st->tuner;
    t->count = 0;
    t->full = !ranked;
    for (int k = 0; ranked && k < t->ranked_count; ++k) {
        const dg_cuda_shape *r = &t->ranked[k];
        int status = make_shape_at(st, r->bx, r->by, r->depth, r->planes, r->width, r->segments,
                                   &t->candidate[t->count], err);
        if (status != DG_OK) return status;
        t->ms[t->count++] = 0.0f;
    }
    for (int v = 0; !ranked && v < variant_count; ++v) {
        const int wide = candidate_variants[v][2] > 1;
        if (wide && !st->is_float) continue; /* float kernels only */
        const int shapes = wide ? narrow_count : candidate_count;
        for (int i = 0; i < shapes && t->count < DG_CUDA_MAX_CANDIDATES; ++i) {
            int status = make_shape_at(st, candidate_shapes[i][0], candidate_shapes[i][1],
                                       candidate_variants[v][1], candidate_variants[v][0],
                                       candidate_variants[v][2], candidate_variants[v][3],
                                       &t->candidate[t->count], err);
            if (status != DG_OK) return status;
            t->ms[t->count++] = 0.0f;
        }
    }
    t->round = 1;
    t->round_start = 0;
    t->slots = 0;
    for (int i = 0; i < t->count; ++i)
        for (int j = 0; j < DG_CUDA_TIMED_ITERATIONS; ++j)
            t->slot_candidate[t->slots++] = (short)i;
    for (int i = 0; i < 2 * t->slots; ++i)
        if (!t->event[i]) DG_CUDA_TRY(cudaEventCreate(&t->event[i]), "cudaEventCreate");
    t->next = 0;
    t->active = 1;
    t->mode = dg_cuda_sweep_mode(st);
    return DG_OK;
}

/* Mode m's tuned shape, refitted to this state (the chunks depend on the medium). */
static int tuned_shape(dg_cuda_state *st, int m, dg_error *err) {
    const dg_cuda_shape *b = &st->tuner.best_by_mode[m];
    st->shape_from_autotune = 1;
    return make_shape_at(st, b->bx, b->by, b->depth, b->planes, b->width, b->segments, &st->shape,
                         err);
}

int dg_cuda_choose_shape(dg_cuda_state *st, dg_error *err) {
    dg_cuda_tuner *t = &st->tuner;
    t->active = 0;
    st->shape_from_autotune = 0;
    const int mode = dg_cuda_sweep_mode(st);
    st->shape_mode = mode;
    if (st->config.block_x > 0)
        return dg_cuda_make_shape(st, st->config.block_x, st->config.block_y, &st->shape, err);
    if (t->tuned_nx != st->nx || t->tuned_ny != st->ny || t->tuned_nz != st->nz)
        t->tuned_modes = 0; /* tuned for another grid */
    if (st->config.autotune && (t->tuned_modes >> mode & 1)) return tuned_shape(st, mode, err);
    int status = dg_cuda_make_shape(st, DG_CUDA_DEFAULT_BX, DG_CUDA_DEFAULT_BY, &st->shape, err);
    if (status == DG_OK && st->config.autotune) status = start_tuner(st, 0, err);
    return status;
}

/* The k fastest candidates by t->ms into order[] (ties keep the candidate order). */
static int fastest(const dg_cuda_tuner *t, int k, int *order) {
    unsigned char taken[DG_CUDA_MAX_CANDIDATES] = {0};
    int n = 0;
    while (n < k && n < t->count) {
        int best = -1;
        for (int i = 0; i < t->count; ++i)
            if (!taken[i] && (best < 0 || t->ms[i] < t->ms[best])) best = i;
        taken[best] = 1;
        order[n++] = best;
    }
    return n;
}

/* A round's iterations all timed: read them (each candidate keeps its fastest iteration); after
   round 1 schedule round 2 on its fastest candidates and sweep with the fastest meanwhile; after
   round 2 keep the fastest (and, after a full tuning, rank the fastest few). */
static int finish_round(dg_cuda_state *st, dg_error *err) {
    dg_cuda_tuner *t = &st->tuner;
    DG_CUDA_TRY(cudaEventSynchronize(t->event[2 * t->slots - 1]),
                "cudaEventSynchronize (autotune)");
    if (t->round == 2) /* the final choice by round 2's times alone: its passes interleave */
        for (int slot = t->round_start; slot < t->slots; ++slot)
            t->ms[t->slot_candidate[slot]] = 0.0f;
    for (int slot = t->round_start; slot < t->slots; ++slot) {
        float ms = 0.0f;
        DG_CUDA_TRY(cudaEventElapsedTime(&ms, t->event[2 * slot], t->event[2 * slot + 1]),
                    "cudaEventElapsedTime (autotune)");
        const int i = t->slot_candidate[slot];
        if (t->ms[i] == 0.0f || ms < t->ms[i]) t->ms[i] = ms; /* 0: not timed yet */
    }
    int order[DG_CUDA_MAX_CANDIDATES] = {0};
    if (t->round == 1) {
        const int n = fastest(t, DG_CUDA_RETUNE_CANDIDATES, order);
        if (t->full) {
            t->ranked_count = n;
            for (int k = 0; k < n; ++k)
                t->ranked[k] = t->candidate[order[k]];
        }
        t->round = 2;
        t->round_start = t->slots;
        for (int j = 0; j < DG_CUDA_CONFIRM_PASSES; ++j)
            for (int k = 0; k < n; ++k)
                t->slot_candidate[t->slots++] = (short)order[k];
        for (int i = 2 * t->round_start; i < 2 * t->slots; ++i)
            if (!t->event[i]) DG_CUDA_TRY(cudaEventCreate(&t->event[i]), "cudaEventCreate");
        st->shape = t->candidate[order[0]]; /* until round 2 is done */
        t->next = 0;                        /* a warm-up iteration with that shape first */
        return DG_OK;
    }
    fastest(t, 1, order);
    t->best = t->candidate[order[0]];
    if (t->tuned_nx != st->nx || t->tuned_ny != st->ny || t->tuned_nz != st->nz) t->tuned_modes = 0;
    t->best_by_mode[t->mode] = t->best;
    t->tuned_modes |= 1 << t->mode;
    t->tuned_nx = st->nx, t->tuned_ny = st->ny, t->tuned_nz = st->nz;
    t->active = 0;
    st->shape = t->best;
    st->shape_from_autotune = 1;
    return DG_OK;
}

/* The sweep mode changed since the shape was chosen (the nonlinear source began): the tuned shape
   of the new mode, else tune for it (a tuner still timing the old mode starts over): among the
   fastest DG_CUDA_RETUNE_CANDIDATES of a full tuning of this grid in another mode if there is one
   (the modes differ by one load per point; so the re-tuning costs 17 iterations, not all
   candidates'), else all candidates.  With a fixed block or a forced variant, keep the shape. */
static int follow_mode(dg_cuda_state *st, dg_error *err) {
    dg_cuda_tuner *t = &st->tuner;
    const int mode = dg_cuda_sweep_mode(st);
    if (mode == st->shape_mode && (!t->active || t->mode == mode)) return DG_OK;
    st->shape_mode = mode;
    if (st->config.block_x > 0 || !st->config.autotune || st->sweep_forced) return DG_OK;
    t->active = 0;
    if (t->tuned_modes >> mode & 1) return tuned_shape(st, mode, err);
    const int same_grid = t->tuned_nx == st->nx && t->tuned_ny == st->ny && t->tuned_nz == st->nz;
    return start_tuner(st, same_grid && t->tuned_modes != 0 && t->ranked_count > 0, err);
}

int dg_cuda_tuned_iteration(dg_cuda_state *st, int measure, int timeable, int stride,
                            dg_error *err) {
    dg_cuda_tuner *t = &st->tuner;
    const int followed = follow_mode(st, err);
    if (followed != DG_OK) return followed;
    if (!t->active || t->next == 0 || !timeable) { /* normal, warm-up or untimed iteration */
        if (t->active && t->next == 0) t->next = 1;
        return dg_cuda_launch_iteration(st, &st->shape, measure, stride, err);
    }
    const int slot = t->round_start + t->next - 1, candidate = t->slot_candidate[slot];
    DG_CUDA_TRY(cudaEventRecord(t->event[2 * slot], st->stream), "cudaEventRecord (autotune)");
    int status = dg_cuda_launch_iteration(st, &t->candidate[candidate], measure, stride, err);
    if (status != DG_OK) return status;
    DG_CUDA_TRY(cudaEventRecord(t->event[2 * slot + 1], st->stream), "cudaEventRecord (autotune)");
    if (++t->next == 1 + t->slots - t->round_start) return finish_round(st, err);
    return DG_OK;
}
