/* Extra entry points of the CUDA backend for its tests and benchmark (C, no CUDA types).
 * The library itself reaches the backend only through backend.h's dg_cuda_backend(). */
#ifndef DG_CUDA_BACKEND_H
#define DG_CUDA_BACKEND_H

#include <stddef.h>

#include "backend.h"

/* How the correction kernel reads positions, weights and sources. */
#define DG_CUDA_READER_LDG     0 /* read-only data path (const __restrict__, __ldg) */
#define DG_CUDA_READER_TEXTURE 1 /* 1D texture objects over linear memory */

#define DG_CUDA_TUNE_MAX 80 /* most autotune candidates */

typedef struct dg_cuda_info {
    char device_name[256];
    int device;
    int sm_count;
    double free_mib, total_mib; /* device memory now */
    double medium_mib;          /* device memory held for the current medium */
    int block_x, block_y;       /* sweep block shape in use (x counts pairs of grid points) */
    int zchunks;                /* sweep blocks along z */
    int depth;                  /* barriers ahead that the sweep issues its loads */
    int planes;                 /* planes the sweep updates per barrier (1 or 2) */
    int width;                  /* pairs of grid points per sweep thread along x (1, 2 or 4) */
    int segments;               /* width > 1: 1 = segments layout, 0 = adjacent pairs */
    int autotuned;              /* 1 if the shape was chosen by the autotune */
    int tuning;                 /* 1 while the autotune is still timing candidates */
    int sparse_reader;          /* DG_CUDA_READER_* */
    int tune_count;             /* candidates the autotune timed (0 if it has not run) */
    int tune_bx[DG_CUDA_TUNE_MAX], tune_by[DG_CUDA_TUNE_MAX];
    int tune_depth[DG_CUDA_TUNE_MAX], tune_planes[DG_CUDA_TUNE_MAX];
    int tune_width[DG_CUDA_TUNE_MAX], tune_segments[DG_CUDA_TUNE_MAX];
    double tune_ms[DG_CUDA_TUNE_MAX]; /* each candidate's fastest timed iteration (ms) */
} dg_cuda_info;

/** Describe a CUDA backend state (from dg_cuda_backend()->create). */
int dg_cuda_get_info(void *state, dg_cuda_info *info, dg_error *err);

/** Choose how the correction kernel reads its lists (texture needs lists that fit a 1D
 *  texture; DG_ERR_UNSUPPORTED otherwise). */
int dg_cuda_set_sparse_reader(void *state, int reader, dg_error *err);

/** Barriers ahead that the sweep kernels issue their loads (1..3 with 1 plane per barrier,
 *  1..2 with 2), for measurements and tests; keeps the block shape, stops the autotune. */
int dg_cuda_set_prefetch_depth(void *state, int depth, dg_error *err);

/** Planes the sweep kernels update per barrier (1 or 2), for measurements and tests; keeps the
 *  block shape and depth, stops the autotune. */
int dg_cuda_set_planes_per_barrier(void *state, int planes, dg_error *err);

/** Pairs of grid points each sweep thread updates along x: 1, 2 or 4 (cuda_sweep_wide.cuh; 2 and 4
 *  in float and mixed only, with 1 plane per barrier, 4 with depth 1..2), adjacent (segments 0)
 *  or one per segment of the tile (segments 1), for measurements and tests; keeps the block
 *  shape, stops the autotune. */
int dg_cuda_set_pairs_per_thread(void *state, int width, int segments, dg_error *err);

/** Device-to-device cudaMemcpy bandwidth of device `device`: a buffer of `bytes` copied
 *  `repeats` times; GB/s counting bytes read plus bytes written (1 GB = 1e9 bytes). */
int dg_cuda_copy_bandwidth(int device, size_t bytes, int repeats, double *gb_per_s, dg_error *err);

#endif /* DG_CUDA_BACKEND_H */
