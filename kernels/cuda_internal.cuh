/* The CUDA backend's state and internal entry points (CUDA translation units only).
 *
 * Device layout of a medium (T = float or double, the working precision):
 *   phi[c]     half grid of colour c (prepared.h conventions: h = w / 2, colour = w & 1)
 *   flag[c]    1 byte per half point: bit 0 = salt factor applies (PB only), and in colour 1
 *              bit 1 = the point is on a sparse list (the convergence sample takes its change
 *              from the sparse kernel, not the sweep).  Poisson has flag[0] = NULL and flag[1]
 *              carrying bit 1 only.
 *   qmap[c]    nonlinear lagged source (allocated on first use)
 *   sparse[c]  boundary points (with 6 weights) followed by charge-only points; sorted by
 *              half-index, one entry per point, so the correction kernel has no write races.
 */
#ifndef DG_CUDA_INTERNAL_CUH
#define DG_CUDA_INTERNAL_CUH

#include <cuda_fp16.h> /* before refine_half.h, which the C linkage block below includes */
#include <cuda_runtime.h>
#include <stddef.h>

extern "C" {
#include "backend.h"
#include "refine_half.h"
#include "refine_rhs.h"
#include "delphi_gpu/delphi_gpu_types.h"
#include "cuda_backend.h"
}

/* Mixed precision's scale of the correction for the current refinement step (refine_half.h), in
   device memory: the residual's pass sets it, the sweeps and the fold read it. */
struct dg_refine_scale {
    unsigned max_bits; /* largest |rhs| of the step, as float bits */
    float scale;       /* the correction is stored times this power of two */
    double inv;        /* 1 / scale (exact) */
};

/* Per-block partial of the convergence reduction (also the final result). */
struct dg_cuda_partial {
    double max_abs;
    double sum_sq;
    int nonfinite; /* count of non-finite deltas */
    int pad;
};

struct dg_cuda_sparse {
    int boundary_count; /* entries [0, boundary_count) carry 6 weights */
    int total_count;    /* boundary entries + charge-only entries */
    int *index;         /* [total] half-index, ascending */
    double *weight_raw; /* [6 * boundary] unscaled weights (double) */
    double *source_raw; /* [total] unscaled sources, 0 where the point has no charge */
    void *weight;       /* [6 * boundary] T, omega * weight, as the CPU backend rounds them */
    void *source;       /* [total] T, omega * source */
    void *last;         /* [total] T, value after the last correction (colour 1 only) */
    cudaTextureObject_t tex_index, tex_weight, tex_source; /* 0 when not created */
};

/* Block shape and z chunking of the sweep kernels. */
struct dg_cuda_shape {
    int bx, by;           /* threads: x pairs (2 grid points each) and y rows */
    int depth;            /* barriers ahead that loads are issued (dg_sweep_kernel DEPTH) */
    int planes;           /* planes updated per barrier (1 or 2, dg_sweep_kernel PLANES) */
    int width;            /* pairs per thread along x (1, or 2 / 4: dg_sweep_wide_kernel) */
    int segments;         /* width > 1: 1 = the SEGMENTS layout, 0 = adjacent pairs */
    int tiles_x, tiles_y; /* blocks over the x-y plane */
    int zchunks;          /* blocks along z; each marches over planes_per_chunk planes */
    int planes_per_chunk;
    int blocks; /* total blocks of one sweep launch */
};

#define DG_CUDA_MAX_CANDIDATES DG_CUDA_TUNE_MAX
/* A later sweep mode on a tuned grid times only this many of the fastest earlier candidates;
   the second round of every tuning re-times this many of the first round's fastest. */
#define DG_CUDA_RETUNE_CANDIDATES 8
/* Round 1: timed iterations per candidate (one after another); round 2: passes over its
   candidates (one iteration each per pass). */
#define DG_CUDA_TIMED_ITERATIONS 2
#define DG_CUDA_CONFIRM_PASSES   3
#define DG_CUDA_TUNE_SLOTS                                                                         \
    (DG_CUDA_TIMED_ITERATIONS * DG_CUDA_MAX_CANDIDATES +                                           \
     DG_CUDA_CONFIRM_PASSES * DG_CUDA_RETUNE_CANDIDATES)

struct dg_cuda_tuner {
    int active; /* timing candidates now */
    int count;  /* candidates */
    dg_cuda_shape candidate[DG_CUDA_MAX_CANDIDATES];
    float ms[DG_CUDA_MAX_CANDIDATES]; /* each candidate's fastest timed iteration so far */
    int round;                        /* 1: every candidate; 2: the fastest of round 1 again */
    int slots;                        /* timed iterations scheduled so far (both rounds) */
    int round_start;                  /* first slot of the current round */
    int next; /* slots of this round timed + 1 (0: the round's warm-up iteration is due) */
    short slot_candidate[DG_CUDA_TUNE_SLOTS];
    cudaEvent_t event[2 * DG_CUDA_TUNE_SLOTS];
    int tuned_nx, tuned_ny, tuned_nz; /* grid the kept shapes were tuned for (0 = none) */
    dg_cuda_shape best;               /* the last tuning's choice */
    int mode;                         /* sweep mode (DG_SWEEP_*) being tuned now */
    int tuned_modes;                  /* bit m: best_by_mode[m] holds mode m's choice */
    int full;                         /* timing every candidate (not only the ranked ones) */
    dg_cuda_shape best_by_mode[4];
    dg_cuda_shape ranked[DG_CUDA_RETUNE_CANDIDATES]; /* the fastest of the last full tuning */
    int ranked_count;
};

struct dg_cuda_state {
    dg_backend_config config;
    int device;
    cudaStream_t stream;
    char device_name[256];
    int sm_count;
    int max_texture_linear; /* elements of a 1D linear texture */
    int is_float;
    size_t es; /* sizeof(T) */

    /* Grid and medium. */
    int has_medium;
    int nx, ny, nz;
    size_t half_count[2];
    size_t interior_count;
    long long offsets[2][6];
    int has_salt;
    double factor[2];
    double nonlinear_coefficient, chi[4];
    /* Periodic axes (prepared.h, cuda_periodic.cu): the wrap's face-point pairs and blocks,
       where store_phi gathers the wrapped face values (device, then host; 2 per pair, in
       double), and the seam lists per colour on the device (the coefficients in double, and
       times omega in T). */
    int periodic;
    long wrap_pairs;
    int wrap_blocks;
    double *wrap_values, *wrap_host;
    int seam_steps, seam_start[2][4];
    int *seam_index[2];
    unsigned char *seam_axes[2];
    double *seam_coef_raw[2];
    void *seam_coef[2];
    size_t medium_bytes; /* device bytes held for the medium */
    /* The multigrid solve's workspace (cuda_mg.cu), kept for the next multigrid solve on this
       backend: freed by dg_cuda_free_mg_workspace (a medium of another size, destroy, or an
       allocation of the backend's own that needs the room: dg_cuda_check_free). */
    void *mg_workspace;
    size_t mg_workspace_bytes;

    void *phi[2];
    unsigned char *flag[2];
    void *qmap[2];
    int nonlinear_active;
    dg_cuda_sparse sparse[2];

    /* Transfers (cuda_transfer.cu): two device slabs of whole full-grid planes, and two
       page-locked host slabs of the same size (allocated on the first transfer, kept until
       destroy), so that one slab's copy between the caller's array and pinned memory (on the
       host threads) overlaps the other's DMA. */
    void *staging_slab[2];
    size_t staging_bytes; /* bytes of one slab */
    void *staging;        /* the slab the split/merge launchers read or write now */
    void *pinned[2];
    int pinned_mapped[2];       /* dg_cuda_pin_alloc's kind of pinned[b] */
    size_t pinned_bytes;        /* bytes of one pinned slab (0: none yet) */
    cudaEvent_t pinned_done[2]; /* recorded after the last DMA that used pinned[b] */
    double store_wait_seconds;  /* the latest store_phi's waits for the device */

    dg_cuda_partial *partials; /* per-block partials of the measured iteration */
    int partial_capacity;
    int partial_count; /* partials written by the last measured iteration */
    dg_cuda_partial *result_device;
    dg_cuda_partial *result_host; /* pinned */

    double omega;
    dg_cuda_shape shape;
    int shape_from_autotune;
    dg_cuda_tuner tuner;
    int sparse_reader; /* DG_CUDA_READER_LDG or DG_CUDA_READER_TEXTURE */
    int depth;         /* prefetch depth of the sweeps (DG_CUDA_DEFAULT_DEPTH unless set) */
    int planes;        /* planes per barrier of the sweeps (1 unless set) */
    int width;         /* pairs per thread of the sweeps (1 unless set) */
    int segments;      /* their layout (cuda_sweep_wide.cuh; 0 unless set) */
    int shape_mode;    /* sweep mode (DG_SWEEP_*) the shape in use was chosen for */
    int sweep_forced;  /* depth, planes or width set by hand: no re-tuning per mode */

    /* sample_change (cuda_decomposed.cu): snapshot, per-block partials, pinned copy of them. */
    void *sample;
    long sample_capacity;
    dg_cuda_partial *sample_partials, *sample_partials_host;
    int sample_partial_capacity;

    /* Halos from device to device (cuda_decomposed.cu): the half grids of another process's
       backend, mapped by CUDA IPC into slot 0 or 1 (NULL when not mapped), and their lengths. */
    void *peer_phi[2][2];
    size_t peer_count[2][2];

    /* Mixed precision (cuda_refine.cu): phi holds the correction (binary16 times the step's
       scale, refine_half.h), the sweeps run in DG_SWEEP_RHS mode on rhs, the list sources are
       scaled to 0 (they are in the residual). */
    int mixed;
    dg_refine_scale *refine_scale;  /* device memory */
    double *phi_d[2];               /* the iterate in double */
    double *qmap_d[2];              /* nonlinear source in double (allocated on first use) */
    dg_rhs16 *rhs[2];               /* residual / factor and the salt flag (refine_rhs.h) */
    unsigned long long *sample_max; /* float precision: max |value| of the sample (bits) */
    int sample_stride;              /* stride of the last measured iteration */
    int refine_pending; /* iterations since the last fold (0: correction is zero); a fold due
                           (>= refine_sweeps) waits for the next iterate, store_phi or
                           nonlinear source, so that it runs with the next residual */
    int refine_sweeps;  /* fold after this many (dg_refine_sweeps, set with omega) */
};

#define DG_CUDA_DEFAULT_DEPTH 2
#define DG_CUDA_MAX_DEPTH     3 /* with 1 plane per barrier; 2 with 2 planes */
#define DG_CUDA_MAX_WIDTH     4 /* pairs per thread: 1, 2 (depth 1..3) or 4 (depth 1..2) */

/* ---- Errors ---------------------------------------------------------------------------- */

/** Record a failed CUDA call: DG_ERR_DEVICE_OUT_OF_MEMORY for allocation failures, else
 *  DG_ERR_DEVICE.  Returns the status. */
int dg_cuda_fail(dg_error *err, cudaError_t code, const char *what);

#define DG_CUDA_TRY(call, what)                                                                    \
    do {                                                                                           \
        cudaError_t dg_cuda_code_ = (call);                                                        \
        if (dg_cuda_code_ != cudaSuccess) return dg_cuda_fail(err, dg_cuda_code_, what);           \
    } while (0)

/* A kernel launch: configuration errors now, execution errors at the next synchronisation. */
#define DG_CUDA_LAUNCHED(what) DG_CUDA_TRY(cudaGetLastError(), "launch of " what)

/* Bytes per element of the half grids phi[c]: the working precision's, except in mixed precision,
   where they hold only the correction in binary16 (refine_half.h; the iterate is phi_d). */
static inline size_t dg_cuda_half_bytes(const dg_cuda_state *st) {
    return st->mixed ? sizeof(dg_half16) : st->es;
}

/* ---- Medium, transfers (cuda_medium.cu, cuda_transfer.cu) ------------------------------ */

int dg_cuda_set_medium(dg_cuda_state *st, const dg_prepared *prep, dg_error *err);
void dg_cuda_free_medium(dg_cuda_state *st);
/** Free the multigrid workspace kept by st (cuda_mg.cu), if any. */
void dg_cuda_free_mg_workspace(dg_cuda_state *st);
int dg_cuda_load_phi(dg_cuda_state *st, const void *phi, int is_double, dg_error *err);
int dg_cuda_store_phi(dg_cuda_state *st, void *phi, int is_double, dg_error *err);
/** load_phi of a phi whose interior is +0.0: only the face points cross (transfer_host.h). */
int dg_cuda_load_phi_faces(dg_cuda_state *st, const void *phi, int is_double, dg_error *err);
/** bytes from host src to device dst through the pinned slabs, queued on the stream (the
 *  caller synchronises before src may change). */
int dg_cuda_upload(dg_cuda_state *st, void *dst, const void *src, size_t bytes, dg_error *err);
/** dg_cuda_upload with the slabs filled by `threads` host threads (1: the calling thread alone,
 *  which then never waits for a job of another thread on the host pool). */
int dg_cuda_upload_threads(dg_cuda_state *st, void *dst, const void *src, size_t bytes, int threads,
                           dg_error *err);
/** Free the pinned slabs and their events (destroy). */
void dg_cuda_free_pinned(dg_cuda_state *st);
/** bytes of page-locked host memory into *ptr (cuda_pinned.cu); *mapped says how it was made,
 *  for dg_cuda_pin_free. */
cudaError_t dg_cuda_pin_alloc(void **ptr, size_t bytes, int *mapped);
void dg_cuda_pin_free(void *ptr, size_t bytes, int mapped);
int dg_cuda_alloc_qmap(dg_cuda_state *st, dg_error *err);
/* Debye-Hueckel sums at the face points (backend op face_potentials), cuda_faces.cu. */
/* dg_spectral_radius on the device (cuda_spectral.cu; the backend's spectral_radius). */
int dg_cuda_spectral_radius(dg_cuda_state *st, const dg_prepared *prep, double *out, dg_error *err);

int dg_cuda_face_potentials(dg_cuda_state *st, const dg_face_request *request, double *out,
                            dg_error *err);

/** Coulomb sums at target points (stages.h), in double. */
int dg_cuda_pair_potentials(dg_cuda_state *st, const dg_pair_request *request, double *out,
                            long *skipped, dg_error *err);
/** Coulomb field sums at target points (stages.h, dg_stage_pair_fields_on): 3 per target. */
int dg_cuda_pair_fields(dg_cuda_state *st, const dg_pair_request *request, double *out,
                        long *skipped, dg_error *err);

/** Surface sites (stages.h). */
int dg_cuda_surface_sites(dg_cuda_state *st, const dg_surface_request *request,
                          const double *points, long count, double reach, double *sites,
                          int *owners, long *unprojected, dg_error *err);

/** Arc dots of a molecular surface (stages.h): counts[count] per atom, *dots malloc'ed. */
int dg_cuda_arc_dots(dg_cuda_state *st, const dg_arc_dots_request *request, int *counts,
                     double **dots, long *total, dg_error *err);

/** The medium maps (stages.h). */
int dg_cuda_medium_maps(dg_cuda_state *st, const dg_surface_request *request,
                        unsigned char *face[3], unsigned char *ion, dg_medium_counts *counts,
                        dg_error *err);

/** Bytes free on the current device, with a message naming need and free on failure. */
int dg_cuda_check_free(dg_cuda_state *st, size_t need, const char *what, dg_error *err);

/* ---- Launch shapes (cuda_shape.cu) ----------------------------------------------------- */

/** Fill shape (tiles, z chunks, blocks) for a bx x by block at st->depth, st->planes and
 *  st->width on the grid; DG_ERR_UNSUPPORTED for a combination that has no kernel. */
int dg_cuda_make_shape(dg_cuda_state *st, int bx, int by, dg_cuda_shape *shape, dg_error *err);
/** Choose the shape after set_medium: fixed, default or cached autotune; starts the tuner. */
int dg_cuda_choose_shape(dg_cuda_state *st, dg_error *err);
/** Largest block count of any shape the sweeps may use on this grid (partials capacity). */
int dg_cuda_max_blocks(dg_cuda_state *st, int *blocks, dg_error *err);
/** Run one iteration, timing it for the autotune when the tuner is active and `timeable` (an
 *  iteration like the steady ones: not measured, not the first after a synchronisation); when
 *  the sweep mode changed (the nonlinear source began) switch to that mode's tuned shape, or tune
 *  for it. */
int dg_cuda_tuned_iteration(dg_cuda_state *st, int measure, int timeable, int stride,
                            dg_error *err);

/* ---- Kernel launchers (cuda_launch.cu) -------------------------------------------------- */

/** One iteration: odd sweep + corrections, even sweep + corrections (measured if asked). */
int dg_cuda_launch_iteration(dg_cuda_state *st, const dg_cuda_shape *shape, int measure, int stride,
                             dg_error *err);
/** Periodic axes (cuda_periodic.cu): the wrap's sizes from the prepared medium (set_medium),
 *  its buffers (allocated after the half grids, freed with the medium). */
void dg_cuda_wrap_setup(dg_cuda_state *st, const dg_prepared *prep);
int dg_cuda_wrap_alloc(dg_cuda_state *st, const dg_prepared *prep, dg_error *err);
void dg_cuda_wrap_free(dg_cuda_state *st);
/** Periodic axes (cuda_periodic.cu), after colour c's sweep and corrections: the seam steps,
 *  which also wrap the other colour's faces (prepared.h).  No launch without periodic axes. */
int dg_cuda_launch_periodic(dg_cuda_state *st, int colour, dg_error *err);
/** store_phi's last step with periodic axes: the face points the wrap sets, from the half grids
 *  (mixed precision: the double iterate) into phi (cuda_periodic.cu). */
int dg_cuda_store_wrapped_faces(dg_cuda_state *st, void *phi, int is_double, dg_error *err);
/** Mixed precision with periodic axes, after load_phi: the double iterate's face points of the
 *  wrap take their images' values (cuda_periodic.cu). */
int dg_cuda_wrap_iterate(dg_cuda_state *st, dg_error *err);
/** Newton's method with periodic axes: the face points of the wrap in the half grids phi
 *  (float or double, not mixed) take their images' values (cuda_periodic.cu). */
int dg_cuda_wrap_phi(dg_cuda_state *st, dg_error *err);
/** Reduce the partials of the measured iteration into result_device and copy it back. */
int dg_cuda_finish_measure(dg_cuda_state *st, dg_change *change, dg_error *err);
int dg_cuda_launch_rescale(dg_cuda_state *st, dg_error *err);
int dg_cuda_launch_nonlinear_source(dg_cuda_state *st, double fraction, dg_error *err);
int dg_cuda_launch_mark_sparse(dg_cuda_state *st, dg_error *err);
int dg_cuda_launch_gather_last(dg_cuda_state *st, dg_error *err);
/** Full-grid slab [w0, w0 + count) in staging (double or float) <-> half grids. */
int dg_cuda_launch_split(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err);
int dg_cuda_launch_merge(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err);
/** The sweep mode (DG_SWEEP_*, cuda_sweep.cuh) of the state's next iterations. */
int dg_cuda_sweep_mode(const dg_cuda_state *st);
/** Half an iteration: sweep and corrections of one colour with the current shape. */
int dg_cuda_launch_colour(dg_cuda_state *st, int colour, dg_error *err);
/* Backend ops of a domain-decomposed iteration (cuda_decomposed.cu). */
int dg_cuda_plane_values(dg_cuda_state *st, int z, int colour, void *buf, int to_backend,
                         dg_error *err);
int dg_cuda_sample_change(dg_cuda_state *st, int colour, long first, long stride, long count,
                          int snapshot, dg_change *change, dg_error *err);
void dg_cuda_free_sample(dg_cuda_state *st);
int dg_cuda_peer_export(dg_cuda_state *st, unsigned char *handle, dg_error *err);
int dg_cuda_peer_open(dg_cuda_state *st, int slot, const unsigned char *handle, dg_error *err);
int dg_cuda_peer_pull(dg_cuda_state *st, int slot, int peer_colour, long peer_first, int colour,
                      long first, long count, dg_error *err);
/** Unmap every peer's half grids (destroy). */
void dg_cuda_peer_close_all(dg_cuda_state *st);
/** DG_OK if this device has code for the kernels of this build. */
int dg_cuda_probe_kernels(dg_error *err);
/** Max resident sweep blocks per multiprocessor for a block shape. */
int dg_cuda_sweep_occupancy(dg_cuda_state *st, const dg_cuda_shape *shape, int *blocks_per_sm,
                            dg_error *err);
/** Dynamic shared memory of a sweep launch. */
size_t dg_cuda_sweep_shared_bytes(const dg_cuda_shape *shape, size_t element_size);
/** Number of sparse-kernel blocks for colour 1 (partials after the sweep's). */
int dg_cuda_sparse_blocks(int count);

/* ---- Mixed precision and float's resolution (cuda_refine.cu) ------------------------------ */

/** Allocate the double iterate and the rhs after the medium upload (mixed only). */
int dg_cuda_refine_alloc(dg_cuda_state *st, dg_error *err);
void dg_cuda_refine_free(dg_cuda_state *st);
/** Full-grid slab in staging <-> the double iterate (load_phi/store_phi while mixed). */
int dg_cuda_refine_split(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err);
int dg_cuda_refine_merge(dg_cuda_state *st, size_t w0, size_t count, int is_double, dg_error *err);
/** After load_phi: refinement from the loaded iterate (the correction and its `last` values 0,
 *  the double source 0, the charge sources scaled to 0 in the sweeps). */
int dg_cuda_refine_after_load(dg_cuda_state *st, dg_error *err);
/** Residual of the double iterate into rhs (before a block of correction sweeps). */
int dg_cuda_refine_residual(dg_cuda_state *st, dg_error *err);
/** The pending fold (if any) and then the residual, in one pass over the grid: the same values
 *  as dg_cuda_refine_fold followed by dg_cuda_refine_residual. */
int dg_cuda_refine_fold_residual(dg_cuda_state *st, dg_error *err);
/** phi_d += correction, correction = 0, if any iterations ran since the last fold. */
int dg_cuda_refine_fold(dg_cuda_state *st, dg_error *err);
/** Nonlinear source from the double iterate. */
int dg_cuda_refine_nonlinear_source(dg_cuda_state *st, double fraction, dg_error *err);
/** Float precision: max |value| over the convergence sample of colour 1 (stream-ordered; the
 *  result is read after the next synchronisation by dg_cuda_sample_max_read). */
int dg_cuda_sample_max_launch(dg_cuda_state *st, int stride, dg_error *err);
int dg_cuda_sample_max_read(dg_cuda_state *st, double *value, dg_error *err);

#endif /* DG_CUDA_INTERNAL_CUH */
