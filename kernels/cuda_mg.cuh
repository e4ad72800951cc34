/* Shared by the CUDA multigrid files (cuda_mg.cu: the cycle and the CG loop; cuda_mg_build.cu:
 * the hierarchy): launch sizes, the grid and level views, the device state. */
#ifndef DG_CUDA_MG_CUH
#define DG_CUDA_MG_CUH

#include "cuda_internal.cuh"

extern "C" {
#include "mg/mg.h"
}

#define MG_THREADS       256
#define MG_PARTIALS      1024 /* blocks of every reducing or streaming kernel (grid-stride) */
#define MG_EDGE_PARTIALS 64   /* blocks of each colour's reducing boundary kernel */
#define MG_ROW_LANES     64   /* threads along an interior row in the full-grid kernels */
#define MG_TAIL_THREADS  1024 /* the one block of k_tail */
#define MG_TAIL_UNKNOWNS 4096 /* levels with fewer unknowns run inside k_tail */
#define DG_MG_TAIL_DEPTH 24   /* most levels k_tail handles */
#define MG_ROW_SUBS      (MG_THREADS / MG_ROW_LANES) /* rows a block works on at a time */

struct mg_sums {
    double max_abs, sum_sq, phi_max;
    int nonfinite, pad;
};

/* The device's sums (mg_device.result): the residual's measures, (r, z)_D of this cycle, (p, q)_D,
   the new direction's max |p| and sum p^2 with max |x| after x's last step (phi_max), (r, z)_D
   of the previous cycle, and the last update's alpha (sum_sq). */
enum { MG_MEASURES, MG_RZ, MG_PQ, MG_DIRECTION, MG_RZ_OLD, MG_ALPHA, MG_SUMS };

struct grid_dims {
    int nx, ny, nz;
    long long sy, sz;
    long long interior; /* (nx-2)(ny-2)(nz-2) */
    long long h0;       /* points of colour 0, (nx ny nz + 1) / 2: the split layout's offset */
    long long points;   /* nx ny nz */
    int periodic;       /* dg_periodic_axis bits: those faces hold their images (prepared.h) */
};

/* The fine level's smoother arrays (z, its float right-hand side rf) and the salt map are stored
   split by colour, as the SOR's half grids: colour 0 (w even: x + y + z even, every dimension
   being odd) first, then colour 1, point w at w / 2 within its colour.  A colour sweep then
   reads and writes contiguous runs instead of every other element of a full grid. */
static __device__ __forceinline__ long long split_index(long long h0, long long w) {
    return (w & 1) * h0 + (w >> 1);
}
static __device__ __forceinline__ long long split_index(const grid_dims &g, long long w) {
    return split_index(g.h0, w);
}

/* Full index of the t-th interior point (x fastest). */
static __device__ __forceinline__ long long interior_index(const grid_dims &g, long long t,
                                                           int *colour) {
    const unsigned mx = g.nx - 2, my = g.ny - 2, tt = (unsigned)t; /* interior < 2^32 */
    const int x = 1 + (int)(tt % mx);
    const unsigned rest = tt / mx;
    const int y = 1 + (int)(rest % my), z = 1 + (int)(rest / my);
    *colour = (x + y + z) & 1;
    return x + g.sy * y + g.sz * z;
}

/* A coarse level's padded strides are odd (dg_mg_plan), so a padded index q's parity is its
   point's colour: e, rhs and the class bytes are stored split by colour as the fine level's z,
   q at split_index(h0, q) (level_at), so that a colour sweep reads and writes contiguous runs.
   diag, cx, cy and cz (read only at points whose stencil is not uniform) keep the plain order. */
struct level_view {
    int mx, my, mz;
    long long sx, sy, count; /* count = mx*my*mz */
    long long padded, h0;    /* padded points, of which (padded + 1) / 2 have colour 0 */
    int wrap;                /* the axes along which the level is periodic (dg_mg_level.wrap) */
    float *diag, *cx, *cy, *cz, *e, *rhs;
    /* Levels of at least MG_CLASS_MIN unknowns in a linear solve (dg_cuda_mg_build; NULL
       otherwise and until then): each point's class, MG_IRREGULAR where its stencil is not
       uniform, and each class's (coupling, diagonal).  A point of a class has the same coupling
       c to every neighbour inside the level (those to the ghost layer are 0 in cx, cy, cz and
       multiply e = 0 there; along a wrapping axis the ghost stands for the point across the
       seam, whose coupling counts), so the sweeps and restrictions read 1 byte for it instead of 16
       and compute the same expression with c in place of each coupling: the same bits. */
    unsigned char *cls;
    float2 *classes;
};

/* The largest face of a level: the threads that wrap its ghosts (k_wrap_level) or its
   couplings (k_wrap_couplings) take. */
__host__ __device__ __forceinline__ long long wrap_span(const level_view &l) {
    const long long a = (long long)l.my * l.mz, b = (long long)l.mx * l.mz,
                    c = (long long)l.mx * l.my;
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* Where padded point q's e, rhs and class byte are stored. */
static __device__ __forceinline__ long long level_at(const level_view &l, long long q) {
    return split_index(l.h0, q);
}

#define MG_CLASS_MIN 32768 /* levels with at least this many unknowns get classes */
#define MG_IRREGULAR 255   /* the class byte of a point whose stencil is not uniform */

static __device__ __forceinline__ long long level_index(const level_view &l, long long t, int *X,
                                                        int *Y, int *Z) {
    const unsigned tt = (unsigned)t, mx = l.mx, my = l.my; /* count < 2^32 */
    *X = 1 + (int)(tt % mx);
    const unsigned rest = tt / mx;
    *Y = 1 + (int)(rest % my), *Z = 1 + (int)(rest / my);
    return *X + l.sx * *Y + l.sy * *Z;
}

struct mg_device {
    grid_dims g;
    const dg_mg_hierarchy *h;
    float f0, df; /* the smoother's factors (float) */
    double f0d,
        dfd; /* the operator's (A p, b - A x): cast to the working precision, as on the CPU */
    unsigned char *salt;
    float *dscale, *z;
    int boundary_count[2], charge_count[2];
    int *boundary_index[2], *charge_index[2];
    double *boundary_weight[2], *charge_source[2];
    void *x, *r, *p, *q;        /* x double when is_double, r, p, q too unless mixed (float) */
    dg_cuda_state *backend;     /* the solve's CUDA backend (its pinned slabs), or NULL */
    int step_pending;           /* x has yet to take the last update's step alpha p */
    mg_sums *partials, *result; /* result: MG_SUMS sums (MG_MEASURES, ...) */
    level_view *levels;
    int level_count;
    level_view *levels_device; /* a device copy of levels (for k_tail) */
    int tail_first;            /* the first level k_tail runs (-1: none) */
    int blocks;                /* grid-stride blocks of the full-grid kernels */
    int colour_blocks;         /* blocks of the colour sweeps (MG_ROW_SUBS rows each) */
    cudaStream_t stream;
    void *arena; /* one allocation holding the arrays that setup carves from it */
    /* the levels' class data, in the arena: a linear solve's (setup's classes argument);
       NULL for a Newton step's Jacobian, whose coarse diagonals change from step to step */
    void *class_store;
    void *faces; /* the caller's packed faces on the device (dg_cuda_mg_upload_phi) */
    size_t arena_bytes;
    cudaGraphExec_t preconditioner; /* the V-cycle's fixed launch sequence, captured once */
    float *inverse;                 /* the coarsest level's exact inverse (coarsest_sweeps 0) */
    float *rf;                      /* the residual in float for the sweeps (split layout) */
    unsigned *boundary_bits;        /* a bit per full-grid point: a boundary point (either list) */
    void *caller;                   /* the caller's phi on the device when its type differs */
    const void *phi;                /* the caller's phi (host), uploaded during the build */
    /* is_double: x in double (double and mixed precision); interior_zero: from the check */
    int phi_is_double, is_double, interior_zero;
    const dg_phi_check_view *check; /* dg_cuda_mg_solve's (mg.h); NULL: none */
    int speculative; /* the cycles started before the check's verdict (interior taken as zero) */
    int threads;     /* host threads for the faces' packing (0 = OpenMP's default) */
    double phi_in_seconds, check_wait_seconds, graph_seconds; /* graph: capture, instantiation */
    /* A Newton step's Jacobian (dg_cuda_mg_jacobian_*; NULL for a linear solve): its factor
       and b (the caller's, split layout), the linear operator's D, level diagonals and
       boundary weights (boundary_weight then holds the Jacobian's) */
    const float *fac, *jac_b;
    float *dscale_base;
    float **diag_base;
    double *base_weight[2];
};

/** The caller's phi (d->phi) into d->x (cuda_mg.cu): one transfer, only the six faces when
 *  d->interior_zero; converted on the device when the caller's type is not the working one. */
int dg_cuda_mg_upload_phi(mg_device *d, dg_error *err);

/** The caller's check of phi as the set-up needs it (1: interior all +0.0, 0: not, -1:
 *  non-finite; 0 without a check): when the check is still running (or always, with
 *  dg_cuda_mg_speculate_always) and a sample of phi's interior is all +0.0, 1 at once with
 *  d->speculative set, and dg_cuda_mg_solve takes the verdict before writing the answer. */
int dg_cuda_mg_check_verdict(mg_device *d);

/** Blocks of MG_THREADS for count items (at least 1, at most 1048560; kernels grid-stride). */
int dg_cuda_mg_blocks(long long count);

/** cudaMalloc + copy of bytes from the host (1 byte allocated when bytes is 0). */
int dg_cuda_mg_upload(void **dst, const void *src, size_t bytes, const char *what, dg_error *err);

/** Build the salt map, D and the coarse operators of d (arrays allocated, lists uploaded);
 *  the caller's phi goes up (dg_cuda_mg_upload_phi) while the build's kernels run. */
int dg_cuda_mg_build(mg_device *d, dg_error *err);

/** Bytes of the class data of the levels of d (level_view.cls) that dg_cuda_mg_build makes
 *  when d->class_store points at them (carved from the workspace; NULL: no classes). */
size_t dg_cuda_mg_class_bytes(const mg_device *d);

#endif /* DG_CUDA_MG_CUH */
