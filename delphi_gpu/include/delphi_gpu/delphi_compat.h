/* delphi-gpu: DelPhi-convention entry points, drop-in replacements for DelPhi's SOR routines.
 *
 * dg_delphi_itit_* and dg_delphi_nitit_* take DelPhi's data exactly as its linear (`itit`) and
 * nonlinear (`nitit`) SOR routines receive it (same arguments, same order, same half-grid
 * conventions, 1-based half-indices in idpos/iqpos, db(6,nsp) in the face order x-, x+, y-, y+,
 * z-, z+), plus the values DelPhi keeps in COMMON blocks, gathered in dg_delphi_control.  They
 * behave as DelPhi's routines do:
 *  - the same red-black SOR with omega = 2/(1+sqrt(1-spec)) computed in the caller's REAL kind;
 *  - the same stopping rules (itit: a criterion counts only when max(rmsc, maxc, normc) >= 1e-7,
 *    automatic mode runs until it is met; nitit: linear phase of nlit sweeps continued while the
 *    max change is >= 0.22 kT/e, then blocks of 10 nonlinear sweeps with DelPhi's relaxation);
 *  - the same final phimap: faces unchanged, interior = potential, and for itit DelPhi's
 *    phi(1,1,1) signature (truncated to 4 decimals, then +-0.00008);
 *  - the same side effects on the caller's data: db, sf1, sf2 and qval come back multiplied by
 *    omega (the linear factor) as DelPhi leaves them (on the GPU this runs beside the
 *    iterations, so a call that fails after its medium was set has scaled them too; DelPhi
 *    stops then anyway); the COMMON values DelPhi itself changes
 *    come back in dg_delphi_report (itit: icon1 clipped to nlit; nitit: nlit = icon1 = 10 and
 *    the final relpar), for the caller to store.
 * The work arrays (phimap1..3, ibndx/y/z, bndx1..4, qmap1/2, debmap1/2) are accepted for
 * signature compatibility and not touched (NULL is allowed); gval, idirectalg and cgbp are not
 * used.  Periodic axes (iper(1..3), pbx/pby/pbz) are solved by dg_options.periodic's ordering:
 * stock's converged potential, not its iteration count (its face copies leave the couplings
 * across the seam lagged; that ordering diverges where this one converges).  DelPhi's "diff"
 * option, Chebyshev iteration (chebit), the voltage drops (iper(4..6)) and the grid-energy stop
 * (grdcon) are not supported: they return DG_ERR_UNSUPPORTED, naming the option.
 * The library never prints: progress goes to control->progress, messages to the report.
 */
#ifndef DELPHI_GPU_DELPHI_COMPAT_H
#define DELPHI_GPU_DELPHI_COMPAT_H

#include "delphi_gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the dg_delphi_control layout (stored by dg_delphi_default_control). */
#define DG_DELPHI_CONTROL_VERSION 1

/** Default of dg_delphi_control.gpu_min_points: 41^3 grid points.  Measured on an H100
    (2026-11-23, scripts/device/kit.sh): a first kit call at 33^3 takes the same time on the CPU
    and on the GPU (with the background start-up), at 49^3 the GPU is 4x faster. */
#define DG_DELPHI_GPU_MIN_POINTS 68921

/** Length of the text buffers in dg_delphi_report (including the terminating NUL). */
#define DG_DELPHI_NOTICE_LENGTH  256
#define DG_DELPHI_MESSAGE_LENGTH 1024

/** DelPhi's COMMON-block values the SOR routines read, and the delphi-gpu settings.
 *  Always start from dg_delphi_default_control().  Names in brackets are DelPhi's. */
typedef struct dg_delphi_control {
    int struct_size; /**< sizeof(dg_delphi_control), set by dg_delphi_default_control */
    int version;     /**< DG_DELPHI_CONTROL_VERSION */

    /* ival1 */
    int igrid; /**< grid points per side (odd) [igrid]; required */
    int nlit;  /**< linear iteration limit; for nitit the linear phase [nlit]; >= 1 */
    int nonit; /**< nonlinear iterations [nnit]; nitit raises values <= 20 to 30; default 0 */
    int icon1; /**< convergence-check interval [icon1]; default 10 */
    int icon2; /**< stride over the even half grid in checks [icon2]; default 1 */

    /* log1 */
    int automatic;     /**< 1 = automatic iteration mode [iautocon]; default 0 */
    int manual_relpar; /**< 1 = relpar was given (no adaptive relaxation) [imanual]; default 0 */
    int periodic[6];   /**< [iper(1..6)]: 1..3 the periodic axes x, y, z; 4..6 (voltage drops)
                            nonzero is unsupported; default 0 */
    int diff;          /**< [diff] option; nonzero is unsupported; default 0 */
    int chebyshev;     /**< [icheb]; nonzero is unsupported; default 0 */

    /* val1 */
    double ionic_strength; /**< [rionst] (M); > 0 selects the salt form of itit; default 0 */
    double rmsc;           /**< rms-change criterion [res1]; default 0 */
    double maxc;           /**< max-change criterion [res2]; default 0 */
    double normc;          /**< norm-change criterion [res5]; default 0 */
    double gten;           /**< grid-energy criterion [gten]; > 0 is unsupported; default 0 */
    double epsout;         /**< exterior dielectric as DelPhi stores it [epsout]; nitit only */
    double deblen;         /**< Debye length (Angstrom) [deblen]; nitit only */
    double scale;          /**< grid points per Angstrom [scale]; nitit only */
    double chi[4];         /**< nonlinear Taylor coefficients [chi2, chi3, chi4, chi5] */
    double relpar;         /**< nonlinear relaxation parameter [relpar]; used when manual */

    /* delphi-gpu */
    int backend;              /**< dg_backend; default DG_BACKEND_AUTO */
    int device;               /**< CUDA device ordinal; default 0 */
    int num_threads;          /**< CPU threads, 0 = OpenMP's default; default 0 */
    dg_progress_fn progress;  /**< called after every convergence check; default NULL */
    void *progress_user_data; /**< passed to progress; default NULL */
    int mixed_precision;      /**< 1 = solve in DG_PRECISION_MIXED (float sweeps, double iterate
                                   and stopping test) whatever the REAL kind of the arrays, so a
                                   single-precision build can meet criteria below float's
                                   resolution; 0 = the arithmetic of the arrays' REAL kind
                                   (stock DelPhi); default 0 */
    /** With backend AUTO, grids of fewer points (igrid^3) run on the CPU backend, where the GPU
        cannot win (its start-up and per-iteration launch costs exceed the work); default
        DG_DELPHI_GPU_MIN_POINTS; 0 = always the GPU when one works. */
    int gpu_min_points;
} dg_delphi_control;

/** What a DelPhi-convention call reports back. */
typedef struct dg_delphi_report {
    dg_result result; /**< outcome, iterations, last changes, backend used, timings */
    int nlit;         /**< value for DelPhi's COMMON nlit after the call */
    int icon1;        /**< value for DelPhi's COMMON icon1 after the call */
    double relpar;    /**< value for DelPhi's COMMON relpar after the call */
    double omega;     /**< linear SOR factor, as computed in the caller's REAL kind */
    char notice[DG_DELPHI_NOTICE_LENGTH];   /**< e.g. the CPU fallback of DG_BACKEND_AUTO */
    char message[DG_DELPHI_MESSAGE_LENGTH]; /**< why the call failed; "" on success */
} dg_delphi_report;

/** Fill control with the defaults documented in dg_delphi_control. */
DG_API void dg_delphi_default_control(dg_delphi_control *control);

/* The entry points.  REAL is float (DelPhi's single-precision build) or double (its
 * double-precision build); the arithmetic is done in the same precision.  Array sizes, with
 * n = igrid^3: db[6*nsp], idpos[nsp], sf1/sf2/phimap1/phimap2[(n+1)/2], phimap/phimap3[n],
 * iqpos/qval/gval[icount1b], idebmap[n] (1 byte per point, nonzero = ions allowed).
 * report may be NULL (the message is then lost).  Returns a dg_status; an iteration that stops
 * at its limit or diverges is DG_OK with report->result.outcome saying so. */
#define DG_DECLARE_DELPHI_ENTRY_POINTS(REAL, SUFFIX)                                               \
    DG_API int dg_delphi_itit_##SUFFIX(                                                            \
        const int *idpos, REAL *db, REAL *sf1, REAL *sf2, const int *iqpos, REAL *qval,            \
        int icount2a, int icount2b, int icount1a, int icount1b, REAL spec, int nsp, REAL *phimap,  \
        REAL *phimap1, REAL *phimap2, REAL *phimap3, int *ibndx, int *ibndy, int *ibndz,           \
        REAL *bndx1, REAL *bndx2, REAL *bndx3, REAL *bndx4, const REAL *gval, int idirectalg,      \
        const REAL *cgbp, const dg_delphi_control *control, dg_delphi_report *report);             \
    DG_API int dg_delphi_nitit_##SUFFIX(                                                           \
        const int *idpos, REAL *db, REAL *sf1, REAL *sf2, const int *iqpos, REAL *qval,            \
        int icount2a, int icount2b, int icount1a, int icount1b, REAL spec, int nsp, REAL *phimap,  \
        REAL *phimap1, REAL *phimap2, REAL *phimap3, const unsigned char *idebmap, int *ibndx,     \
        int *ibndy, int *ibndz, REAL *bndx1, REAL *bndx2, REAL *bndx3, REAL *bndx4, REAL *qmap1,   \
        REAL *qmap2, REAL *debmap1, REAL *debmap2, int idirectalg, REAL qfact,                     \
        const dg_delphi_control *control, dg_delphi_report *report);

DG_DECLARE_DELPHI_ENTRY_POINTS(float, f)  /* dg_delphi_itit_f, dg_delphi_nitit_f */
DG_DECLARE_DELPHI_ENTRY_POINTS(double, d) /* dg_delphi_itit_d, dg_delphi_nitit_d */

/* The entry points keep one solver from call to call (DelPhi calls itit or nitit more than once
 * in focusing and two-run calculations): a call with the same backend, precision, device and
 * num_threads as the previous one reuses it (the backend's start and its autotuned CUDA block
 * shape are paid once); any other call replaces it; a failed call destroys it.  It holds the
 * backend's memory for the last grid (on the GPU, or on the host for the CPU backend) until
 * the process ends.  Calls from several threads at once are safe (one of them uses the kept
 * solver, the others solvers of their own). */

/** Begin, on a background thread, CUDA's start-up on device and a warm-up of the SOR kernels
 *  (two iterations of a tiny problem in double and in float, so that CUDA loads the kernels
 *  before the first call), leaving a float CUDA solver kept for the first call.  The entry
 *  points wait for it before they start.  Failures only mean no warm-up (the first call meets
 *  and reports them).  Returns DG_OK (also when already begun), DG_ERR_INVALID_ARGUMENT for
 *  device < 0, DG_ERR_BACKEND_NOT_BUILT without CUDA, DG_ERR_OUT_OF_MEMORY when no thread can
 *  be started. */
DG_API int dg_delphi_begin_warm_up(int device);

/** Wait for a warm-up begun by dg_delphi_begin_warm_up (returns at once when none was begun). */
DG_API void dg_delphi_wait_warm_up(void);

/** Wall seconds of the latest itit/nitit call made on the calling thread: the whole call (call;
 *  with any wait for CUDA's start-up or the warm-up, the medium's set-up and the transfers) and
 *  its iteration loop (loop); zeros before the first call.  Either pointer may be NULL. */
DG_API void dg_delphi_last_call_seconds(double *call, double *loop);

/** The parts of the latest itit/nitit call made on the calling thread, as text (seconds):
 *  argument check, taking or creating the solver (with any wait for CUDA's start-up; "kept"
 *  when the solver kept from an earlier call served it), DelPhi's lists turned into the medium
 *  (prepare) and handed to the backend (upload), phimap's check and load, the plan, the loop,
 *  phimap's store, DelPhi's arrays rescaled (finish), the release and the total.  The text
 *  stays valid until the thread's next call of this function. */
DG_API const char *dg_delphi_last_call_parts(void);

/** Watch the caller's grid edge on a background thread: grid_size() (DelPhi's igrid) is read
 *  every 5 ms, and the warm-up of dg_delphi_begin_warm_up(device) begins once it is at least
 *  min_edge, so that CUDA's start-up overlaps the caller's set-up on large grids and is never
 *  begun for small ones.  The watch ends when the warm-up begins, at the first itit/nitit call
 *  (which then chooses the backend itself) and with dg_delphi_stop_watch.  grid_size is called
 *  from the watching thread while the caller's own threads run: it must only read a value.
 *  Returns DG_OK (also when a watch was begun before), DG_ERR_INVALID_ARGUMENT (NULL
 *  grid_size, min_edge < 1, device < 0), DG_ERR_BACKEND_NOT_BUILT without CUDA,
 *  DG_ERR_OUT_OF_MEMORY when no thread can be started. */
DG_API int dg_delphi_watch_grid(int (*grid_size)(void), int min_edge, int device);

/** End a watch begun by dg_delphi_watch_grid without beginning the warm-up (if it has not begun
 *  yet); returns when the watching thread has ended, after which a new watch may be begun.  No
 *  effect when no watch runs. */
DG_API void dg_delphi_stop_watch(void);

/** 1 once a warm-up (dg_delphi_begin_warm_up, directly or through a watch) has begun in this
 *  process, else 0. */
DG_API int dg_delphi_warm_up_begun(void);

#ifdef __cplusplus
}
#endif

#endif /* DELPHI_GPU_DELPHI_COMPAT_H */
