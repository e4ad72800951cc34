/* DelPhi-convention entry points (itit/nitit semantics): map DelPhi's arguments and COMMON
 * values onto the solver API and add what is DelPhi-specific around the solve (see
 * delphi_gpu/delphi_compat.h).  The typed bodies are in delphi_compat_template.h. */
#define _DEFAULT_SOURCE /* madvise */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "delphi_compat_internal.h"
#include "host_pool.h"
#include "delphi_gpu/delphi_compat.h"
#include "delphi_gpu/delphi_gpu.h"
#include "solver_internal.h"

/* itit counts a stopping criterion as set only from this size on (DelPhi's tolerance). */
#define DELPHI_CRITERION_FLOOR 1e-7
/* nitit leaves nlit = icon1 = this (its nonlinear block length) in COMMON. */
#define DELPHI_NONLINEAR_BLOCK 10
/* nitit raises a requested number of nonlinear iterations up to this bound ... */
#define DELPHI_NONIT_RAISE_BELOW 20
/* ... to this value. */
#define DELPHI_NONIT_RAISED 30

void dg_delphi_default_control(dg_delphi_control *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->struct_size = (int)sizeof *c;
    c->version = DG_DELPHI_CONTROL_VERSION;
    c->icon1 = 10;
    c->icon2 = 1;
    c->backend = DG_BACKEND_AUTO;
    c->gpu_min_points = DG_DELPHI_GPU_MIN_POINTS;
}

/* Record a failure in the report (prefixed with the entry point's name); returns status. */
static int compat_fail(dg_delphi_report *r, const char *entry, int status, const char *format,
                       ...) {
    int used = snprintf(r->message, sizeof r->message, "%s: ", entry);
    if (used < 0 || (size_t)used >= sizeof r->message) return status;
    va_list args;
    va_start(args, format);
    vsnprintf(r->message + used, sizeof r->message - (size_t)used, format, args);
    va_end(args);
    return status;
}

static int finite_nonnegative(double v) {
    return isfinite(v) && v >= 0.0;
}

/* The control values both routines need, and the options this version does not support. */
static int check_control(const dg_delphi_control *c, const char *entry, dg_delphi_report *r) {
    if (!c) return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT, "control is NULL");
    if (c->struct_size != (int)sizeof *c || c->version != DG_DELPHI_CONTROL_VERSION)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "control was not set up by dg_delphi_default_control() of this "
                           "library version (struct_size %d, version %d)",
                           c->struct_size, c->version);
    if (c->igrid < DG_MIN_GRID_SIZE || c->igrid % 2 == 0 || c->igrid > 1289)
        return compat_fail(r, entry, DG_ERR_INVALID_GRID,
                           "igrid = %d: must be odd and between %d and 1289", c->igrid,
                           DG_MIN_GRID_SIZE);
    if (c->nlit < 1)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "nlit = %d: the iteration limit must be >= 1", c->nlit);
    if (c->icon1 < 1 || c->icon2 < 1)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "icon1 = %d, icon2 = %d: check interval and stride must be >= 1",
                           c->icon1, c->icon2);
    if (!finite_nonnegative(c->rmsc) || !finite_nonnegative(c->maxc) ||
        !finite_nonnegative(c->normc))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "rmsc = %g, maxc = %g, normc = %g: criteria must be >= 0", c->rmsc,
                           c->maxc, c->normc);
    if (c->mixed_precision != 0 && c->mixed_precision != 1)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "mixed_precision = %d: must be 0 (the arrays' kind) or 1 (mixed)",
                           c->mixed_precision);
    if (c->gpu_min_points < 0)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT, "gpu_min_points = %d: must be >= 0",
                           c->gpu_min_points);
    if (c->diff)
        return compat_fail(r, entry, DG_ERR_UNSUPPORTED,
                           "DelPhi's \"diff\" option (uniform-dielectric rerun) is not supported");
    if (c->chebyshev)
        return compat_fail(r, entry, DG_ERR_UNSUPPORTED,
                           "Chebyshev iteration (chebit) is not supported; use plain SOR");
    for (int i = 3; i < 6; ++i) /* iper(1..3) are the periodic axes (dg_options.periodic) */
        if (c->periodic[i])
            return compat_fail(r, entry, DG_ERR_UNSUPPORTED,
                               "the voltage drop along %c (iper(%d) is set) is not supported",
                               "xyz"[i - 3], i + 1);
    if (!isfinite(c->gten) || c->gten > 0.0)
        return compat_fail(r, entry, DG_ERR_UNSUPPORTED,
                           "the grid-energy stopping criterion (grdcon, gten = %g) is not "
                           "supported; use rmsc or maxc",
                           c->gten);
    return DG_OK;
}

/* Extra checks of nitit's nonlinear parameters. */
static int check_nonlinear_control(const dg_delphi_control *c, double qfact, const char *entry,
                                   dg_delphi_report *r) {
    if (!(isfinite(c->ionic_strength) && c->ionic_strength > 0.0))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "ionic strength (rionst) = %g: nonlinear PB needs salt",
                           c->ionic_strength);
    if (!(isfinite(c->epsout) && c->epsout > 0.0) || !(isfinite(c->deblen) && c->deblen > 0.0) ||
        !(isfinite(c->scale) && c->scale > 0.0))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "epsout = %g, deblen = %g, scale = %g: all must be > 0", c->epsout,
                           c->deblen, c->scale);
    for (int i = 0; i < 4; ++i)
        if (!isfinite(c->chi[i]))
            return compat_fail(r, entry, DG_ERR_NONFINITE_INPUT, "chi%d is %g", i + 2, c->chi[i]);
    if (c->manual_relpar && !(isfinite(c->relpar) && c->relpar > 0.0 && c->relpar < 2.0))
        return compat_fail(r, entry, DG_ERR_BAD_OMEGA,
                           "relpar = %g with manual relaxation: must be in (0, 2)", c->relpar);
    if (!finite_nonnegative(qfact))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT, "qfact = %g: must be >= 0", qfact);
    if (c->nonit < 0)
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT, "nonit = %d is negative", c->nonit);
    return DG_OK;
}

/* The arrays and counts both routines receive. */
static int check_lists(const void *idpos, const void *db, const void *iqpos, const void *qval,
                       int icount2a, int icount2b, int icount1a, int icount1b, double spec, int nsp,
                       const void *phimap, const char *entry, dg_delphi_report *r) {
    if (!phimap) return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT, "phimap is NULL");
    if (icount2a < 0 || icount2b < icount2a)
        return compat_fail(r, entry, DG_ERR_COUNT_MISMATCH,
                           "icount2a = %d, icount2b = %d: need 0 <= icount2a <= icount2b", icount2a,
                           icount2b);
    if (icount1a < 0 || icount1b < icount1a)
        return compat_fail(r, entry, DG_ERR_COUNT_MISMATCH,
                           "icount1a = %d, icount1b = %d: need 0 <= icount1a <= icount1b", icount1a,
                           icount1b);
    if (nsp < icount2b)
        return compat_fail(r, entry, DG_ERR_COUNT_MISMATCH,
                           "nsp = %d is smaller than the number of boundary points icount2b = %d",
                           nsp, icount2b);
    if (icount2b > 0 && (!idpos || !db))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "idpos or db is NULL with %d boundary points", icount2b);
    if (icount1b > 0 && (!iqpos || !qval))
        return compat_fail(r, entry, DG_ERR_INVALID_ARGUMENT,
                           "iqpos or qval is NULL with %d charged points", icount1b);
    if (!(isfinite(spec) && spec >= 0.0 && spec < 1.0))
        return compat_fail(r, entry, DG_ERR_BAD_OMEGA,
                           "spec (Gauss-Seidel spectral radius) = %g: must be in [0, 1)", spec);
    return DG_OK;
}

/* Solver options for a DelPhi-convention run (icon1 already clipped where DelPhi clips it). */
static void delphi_options(const dg_delphi_control *c, int nonlinear, int precision, double spec,
                           double omega, int icon1, double qfact, dg_options *o) {
    dg_default_options(o);
    o->backend = c->backend;
    o->device = c->device;
    o->num_threads = c->num_threads;
    o->precision = c->mixed_precision ? DG_PRECISION_MIXED : precision;
    o->equation = nonlinear ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_LINEAR;
    o->omega = omega;
    o->spectral_radius = spec;
    o->iterations = c->nlit;
    o->check_interval = icon1;
    o->check_stride = c->icon2;
    o->progress = c->progress;
    o->progress_user_data = c->progress_user_data;
    o->periodic = (c->periodic[0] ? DG_PERIODIC_X : 0) | (c->periodic[1] ? DG_PERIODIC_Y : 0) |
                  (c->periodic[2] ? DG_PERIODIC_Z : 0);
    o->run_until_converged = 0;
    if (!nonlinear) {
        /* itit: below the floor no criterion is set and exactly nlit iterations run. */
        double largest = fmax(c->rmsc, fmax(c->maxc, c->normc));
        if (largest >= DELPHI_CRITERION_FLOOR) {
            o->rms_change_tol = c->rmsc;
            o->max_change_tol = c->maxc;
            o->norm_change_tol = c->normc;
            o->run_until_converged = c->automatic ? 1 : 0;
        }
        return;
    }
    o->rms_change_tol = c->rmsc;
    o->max_change_tol = c->maxc;
    o->norm_change_tol = c->normc;
    o->nonlinear_blocks = c->nonit <= DELPHI_NONIT_RAISE_BELOW ? DELPHI_NONIT_RAISED : c->nonit;
    o->relpar = c->manual_relpar ? c->relpar : 0.0;
    o->qfact = qfact;
}

/* AUTO while CUDA has not been started in this process (no warm-up begun, no CUDA solver made
   by a call): a grid below this many points runs on the CPU backend, since CUDA's start-up
   (0.20-0.33 s on an H100 machine) would cost more than the whole CPU loop.  Measured with
   kit_bench (scripts/device/kit.sh, PERFORMANCE.md runs 20-22): at 193^3 a cold CUDA call
   spends 0.21-0.23 s starting plus 0.013 s iterating, the CPU backend (16 threads) 0.21-0.23 s
   iterating; a DelPhi run of a Born ion on an 81^3 grid took 0.06-0.09 s in stock and 0.32-0.35 s
   with the kit on a cold GPU. */
#define GPU_MIN_POINTS_COLD (193L * 193 * 193)

static atomic_int cuda_started; /* 1 once the warm-up began or a call made a CUDA solver */

/* AUTO on a grid smaller than gpu_min_points (or, while CUDA is not started, smaller than
   GPU_MIN_POINTS_COLD, unless gpu_min_points is 0): the CPU backend, and the report says why. */
static void choose_backend(const dg_delphi_control *c, dg_options *o, dg_delphi_report *r) {
    const long points = (long)c->igrid * c->igrid * c->igrid;
    if (o->backend != DG_BACKEND_AUTO) return;
    if (points < (long)c->gpu_min_points) {
        o->backend = DG_BACKEND_CPU;
        snprintf(r->notice, sizeof r->notice,
                 "using the CPU backend (grid %d^3 = %ld points is below gpu_min_points = %d, "
                 "DELPHI_GPU_MIN_POINTS in the kit, where the GPU cannot win)",
                 c->igrid, points, c->gpu_min_points);
    } else if (c->gpu_min_points > 0 && points < GPU_MIN_POINTS_COLD &&
               !atomic_load(&cuda_started)) {
        o->backend = DG_BACKEND_CPU;
        snprintf(r->notice, sizeof r->notice,
                 "using the CPU backend (grid %d^3 = %ld points is below %ld and CUDA is not "
                 "started: its start-up would cost more than the CPU loop; "
                 "DELPHI_GPU_EARLY_START=1 starts it early, DELPHI_GPU_BACKEND=cuda forces it)",
                 c->igrid, points, GPU_MIN_POINTS_COLD);
    }
}

/* Keep the solver's latest notice in the report (each API call clears it, so this is called
   right after dg_create, where the CPU fallback of AUTO is announced, and again at the end). */
static void keep_notice(dg_solver s, dg_delphi_report *r) {
    const char *notice = dg_notice(s);
    if (notice && notice[0]) snprintf(r->notice, sizeof r->notice, "%s", notice);
}

/* ---- timing (delphi_compat_internal.h) ----------------------------------------------------- */

static _Thread_local dg_delphi_timing last_timing;

void dg_delphi_last_timing(dg_delphi_timing *timing) {
    *timing = last_timing;
}

void dg_delphi_last_call_seconds(double *call, double *loop) {
    if (call) *call = last_timing.total;
    if (loop) *loop = last_timing.loop;
}

const char *dg_delphi_last_call_parts(void) {
    static _Thread_local char text[560];
    const dg_delphi_timing *t = &last_timing;
    snprintf(text, sizeof text,
             "check %.4f, solver %.4f%s, prepare %.4f, upload %.4f, phi check %.4f, phi in %.4f, "
             "plan %.4f, loop %.4f, phi out %.4f (waiting for the device %.4f), finish %.4f, "
             "release %.4f, total %.4f; omega scaling %.4f (ended %.4f after the loop)",
             t->check, t->handle, t->reused ? " (kept)" : "", t->prepare, t->upload, t->check_phi,
             t->load, t->spectral, t->loop, t->store, t->store_wait, t->finish, t->release,
             t->total, t->scaling, t->scaling_late);
    return text;
}

static void record_timing(const dg_delphi_timing *t) {
    last_timing = *t;
}

static void finish_timing(dg_delphi_timing *t, double start) {
    t->total = dg_wall_seconds() - start;
    record_timing(t);
}

/* ---- the solver kept between calls --------------------------------------------------------
   DelPhi calls itit (or nitit) more than once per run (focusing, two-run solvation energies):
   one solver is kept from call to call, so that the backend's start (CUDA's context queries,
   stream and pinned buffers; the CPU's thread set-up) and its autotuned CUDA block shape are
   paid once.  It serves a call that asks for the same backend, precision, device and thread
   count (its options are replaced, its medium set anew); otherwise it is replaced.  One caller
   at a time uses it: a call made while another thread holds it gets a solver of its own,
   destroyed at the end.  A call that fails destroys the kept solver. */
typedef struct kept_solver {
    dg_solver solver; /* NULL when none is kept */
    int backend;      /* as asked for (AUTO, CPU or CUDA) */
    int resolved;     /* what it runs on (CPU or CUDA) */
    int precision, device, num_threads;
} kept_solver;

static kept_solver kept;
static atomic_int kept_busy; /* 1 while a call (or the warm-up) holds kept */

/* The same backend, precision, device and threads; AUTO is served by a kept CUDA solver. */
static int kept_fits(const dg_options *o) {
    const int backend = kept.backend == o->backend ||
                        (o->backend == DG_BACKEND_AUTO && kept.resolved == DG_BACKEND_CUDA);
    return kept.solver && backend && kept.precision == o->precision && kept.device == o->device &&
           kept.num_threads == o->num_threads;
}

static void keep(dg_solver s, const dg_options *o) {
    if (s->options.backend == DG_BACKEND_CUDA) atomic_store(&cuda_started, 1);
    kept.solver = s;
    kept.backend = o->backend, kept.resolved = s->options.backend;
    kept.precision = o->precision, kept.device = o->device, kept.num_threads = o->num_threads;
}

/* A solver for o in *solver (on failure possibly a handle holding the error, or NULL); *taken = 1
   when the kept slot was taken (give_back_solver must then be called); *reused = 1 when the
   kept solver serves the call. */
static int take_solver(const dg_options *o, dg_solver *solver, int *taken, int *reused) {
    *solver = NULL, *taken = 0, *reused = 0;
    dg_delphi_wait_warm_up();
    if (atomic_exchange(&kept_busy, 1) != 0) return dg_create(solver, o); /* in use elsewhere */
    *taken = 1;
    if (kept_fits(o) && dg_set_options(kept.solver, o) == DG_OK) {
        *solver = kept.solver, *reused = 1;
        return DG_OK;
    }
    dg_destroy(kept.solver);
    kept.solver = NULL;
    int st = dg_create(solver, o);
    if (st == DG_OK) keep(*solver, o);
    return st;
}

/* The end of a call: the kept solver stays after a success; any other solver is destroyed. */
static void give_back_solver(dg_solver solver, int taken, int status) {
    if (!taken) { /* a solver of this call's own */
        dg_destroy(solver);
        return;
    }
    if (solver != kept.solver || status != DG_OK) {
        if (solver == kept.solver) kept.solver = NULL;
        dg_destroy(solver);
    }
    atomic_store(&kept_busy, 0);
}

/* ---- the warm-up (dg_delphi_begin_warm_up) ------------------------------------------------
   A background thread starts CUDA on the device and runs two iterations of a tiny salt problem
   in double and then in float, through the solver API, so that the kernels the SOR loop uses
   are loaded (CUDA loads them on first use) before DelPhi's first call; the float solver is
   then kept (DelPhi's default build is single precision).  Every failure only means no
   warm-up: the first call meets and reports it. */
enum { WARM_NONE, WARM_RUNNING, WARM_JOINED };
static pthread_mutex_t warm_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t warm_thread;
static int warm_state = WARM_NONE;
static int warm_device;

/* The warm-up's problem in each REAL kind (delphi_compat_template.h). */
static int warm_up_solve_f(dg_solver s);
static int warm_up_solve_d(dg_solver s);

/* A CUDA solver of the given precision that ran the warm-up's problem, or NULL. */
static dg_solver warm_up_solver(int precision) {
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CUDA, o.device = warm_device, o.precision = precision;
    o.iterations = 2, o.spectral_radius = 0.9, o.run_until_converged = 0;
    dg_solver s = NULL;
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = precision == DG_PRECISION_FLOAT ? warm_up_solve_f(s) : warm_up_solve_d(s);
    if (st != DG_OK) {
        dg_destroy(s);
        return NULL;
    }
    return s;
}

/* Page-locked slabs of the kept solver, allocated during the warm-up: one transfer chunk (an
   eighth of the grid in double) of grids up to about 290^3, so a first call on an AChE-sized
   grid (219^3: 10.7 MB) does not pin memory itself. */
#define WARM_PINNED_FLOOR ((size_t)24 << 20)

static void *warm_up_main(void *unused) {
    (void)unused;
    dg_pool_start(0); /* the host pool's workers, for the calls' copies and conversions */
    dg_cuda_set_pinned_floor(WARM_PINNED_FLOOR);
    dg_destroy(warm_up_solver(DG_PRECISION_DOUBLE));
    dg_solver s = warm_up_solver(DG_PRECISION_FLOAT);
    if (!s) return NULL;
    /* Kept as a DelPhi call would keep it: the kit's options, float, on this device. */
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CUDA, o.device = warm_device, o.precision = DG_PRECISION_FLOAT;
    if (atomic_exchange(&kept_busy, 1) != 0) { /* cannot happen: calls wait for the warm-up */
        dg_destroy(s);
        return NULL;
    }
    dg_destroy(kept.solver);
    keep(s, &o);
    atomic_store(&kept_busy, 0);
    return NULL;
}

int dg_delphi_begin_warm_up(int device) {
    if (device < 0) return DG_ERR_INVALID_ARGUMENT;
    if (!dg_backend_built(DG_BACKEND_CUDA)) return DG_ERR_BACKEND_NOT_BUILT;
    int status = DG_OK;
    pthread_mutex_lock(&warm_lock);
    if (warm_state == WARM_NONE) {
        warm_device = device;
        if (pthread_create(&warm_thread, NULL, warm_up_main, NULL) == 0) {
            warm_state = WARM_RUNNING;
            atomic_store(&cuda_started, 1);
        } else
            status = DG_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&warm_lock);
    return status;
}

void dg_delphi_wait_warm_up(void) {
    pthread_mutex_lock(&warm_lock);
    if (warm_state == WARM_RUNNING) {
        pthread_join(warm_thread, NULL);
        warm_state = WARM_JOINED;
    }
    pthread_mutex_unlock(&warm_lock);
}

/* ---- the grid watch (dg_delphi_watch_grid) -------------------------------------------------
   A background thread reads the caller's grid size (DelPhi's igrid, through grid_size) every
   WATCH_PERIOD_NS and begins the warm-up once it reaches the edge given, so that CUDA's start-up
   overlaps DelPhi's set-up for large grids and is never begun for small ones (a process that
   ends while CUDA is starting must wait for it: exiting during the start-up crashed 2 of 35
   test processes on an H100 machine, docs/PERFORMANCE.md run 24).  The first itit/nitit call
   ends the watch (dg_delphi_stop_watch), as does the end of the program. */
#define WATCH_PERIOD_NS 5000000L

enum { WATCH_NONE, WATCH_RUNNING, WATCH_STOPPING };
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_wake = PTHREAD_COND_INITIALIZER;
static pthread_t watch_thread;
static int watch_state = WATCH_NONE, watch_stop, watch_edge, watch_device;
static int (*watch_grid_size)(void);

static void *watch_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&watch_lock);
    while (!watch_stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WATCH_PERIOD_NS;
        if (until.tv_nsec >= 1000000000L) until.tv_sec += 1, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&watch_wake, &watch_lock, &until);
        if (watch_stop) break;
        if (watch_grid_size() >= watch_edge) {
            pthread_mutex_unlock(&watch_lock);
            (void)dg_delphi_begin_warm_up(watch_device); /* a failure: the first call reports */
            return NULL;
        }
    }
    pthread_mutex_unlock(&watch_lock);
    return NULL;
}

int dg_delphi_watch_grid(int (*grid_size)(void), int min_edge, int device) {
    if (!grid_size || min_edge < 1 || device < 0) return DG_ERR_INVALID_ARGUMENT;
    if (!dg_backend_built(DG_BACKEND_CUDA)) return DG_ERR_BACKEND_NOT_BUILT;
    int status = DG_OK;
    pthread_mutex_lock(&watch_lock);
    if (watch_state == WATCH_NONE) { /* else one runs (or is ending): nothing new */
        watch_grid_size = grid_size, watch_edge = min_edge, watch_device = device;
        watch_stop = 0;
        if (pthread_create(&watch_thread, NULL, watch_main, NULL) == 0)
            watch_state = WATCH_RUNNING;
        else
            status = DG_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&watch_lock);
    return status;
}

void dg_delphi_stop_watch(void) {
    pthread_mutex_lock(&watch_lock);
    const int running = watch_state == WATCH_RUNNING;
    watch_stop = 1;
    if (running) {
        watch_state = WATCH_STOPPING; /* a new watch waits until this one has ended */
        pthread_cond_signal(&watch_wake);
    }
    pthread_mutex_unlock(&watch_lock);
    if (!running) return;
    pthread_join(watch_thread, NULL);
    pthread_mutex_lock(&watch_lock);
    watch_state = WATCH_NONE;
    pthread_mutex_unlock(&watch_lock);
}

int dg_delphi_warm_up_begun(void) {
    pthread_mutex_lock(&warm_lock);
    const int begun = warm_state != WARM_NONE;
    pthread_mutex_unlock(&warm_lock);
    return begun;
}

void dg_delphi_drop_kept_solver(void) {
    dg_delphi_wait_warm_up();
    if (atomic_exchange(&kept_busy, 1) != 0) return;
    dg_destroy(kept.solver);
    kept.solver = NULL;
    atomic_store(&kept_busy, 0);
}

/* ---- float and double bodies ------------------------------------------------------------- */
/* Elements per range of the omega scaling on the host pool: 2 MB of floats, the memory one page
   table maps, since without salt the scaling's writes are the first to sf1's and sf2's pages. */
#define SCALE_GRAIN ((size_t)1 << 19)

/* The whole pages of [begin, begin + bytes) made present and writable ahead of the writes that
   follow, where the system can (Linux >= 5.14; otherwise, or on any failure, the writes fault
   as usual).  Contents are unchanged.  Without salt DelPhi never writes sf1 and sf2, and
   faulting their 2 x 21 MB in page by page (219^3) took 16-40 ms on 16 threads of an H100
   machine, populating it 3 ms (docs/PERFORMANCE.md, run 25). */
static void populate_for_writing(void *begin, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    static size_t page;
    if (!page) {
        const long size = sysconf(_SC_PAGESIZE);
        page = size > 0 ? (size_t)size : 4096;
    }
    const uintptr_t first = ((uintptr_t)begin + page - 1) & ~(uintptr_t)(page - 1);
    const uintptr_t end = ((uintptr_t)begin + bytes) & ~(uintptr_t)(page - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)begin, (void)bytes;
#endif
}

/* Each pass defines delphi_itit_impl_* and delphi_nitit_impl_*; the entry points follow. */
#define REAL                 float
#define SFX(name)            name##_f
#define DG_PRECISION_OF_REAL DG_PRECISION_FLOAT
#define REAL_SQRT            sqrtf
#define REAL_TRUNC           truncf
#define SUFFIX_TEXT          "_f"
#include "delphi_compat_template.h"
#undef REAL
#undef SFX
#undef DG_PRECISION_OF_REAL
#undef REAL_SQRT
#undef REAL_TRUNC
#undef SUFFIX_TEXT

#define REAL                 double
#define SFX(name)            name##_d
#define DG_PRECISION_OF_REAL DG_PRECISION_DOUBLE
#define REAL_SQRT            sqrt
#define REAL_TRUNC           trunc
#define SUFFIX_TEXT          "_d"
#include "delphi_compat_template.h"
#undef REAL
#undef SFX
#undef DG_PRECISION_OF_REAL
#undef REAL_SQRT
#undef REAL_TRUNC
#undef SUFFIX_TEXT

int dg_delphi_itit_f(const int *idpos, float *db, float *sf1, float *sf2, const int *iqpos,
                     float *qval, int icount2a, int icount2b, int icount1a, int icount1b,
                     float spec, int nsp, float *phimap, float *phimap1, float *phimap2,
                     float *phimap3, int *ibndx, int *ibndy, int *ibndz, float *bndx1, float *bndx2,
                     float *bndx3, float *bndx4, const float *gval, int idirectalg,
                     const float *cgbp, const dg_delphi_control *control,
                     dg_delphi_report *report) {
    return delphi_itit_impl_f(idpos, db, sf1, sf2, iqpos, qval, icount2a, icount2b, icount1a,
                              icount1b, spec, nsp, phimap, phimap1, phimap2, phimap3, ibndx, ibndy,
                              ibndz, bndx1, bndx2, bndx3, bndx4, gval, idirectalg, cgbp, control,
                              report);
}

int dg_delphi_nitit_f(const int *idpos, float *db, float *sf1, float *sf2, const int *iqpos,
                      float *qval, int icount2a, int icount2b, int icount1a, int icount1b,
                      float spec, int nsp, float *phimap, float *phimap1, float *phimap2,
                      float *phimap3, const unsigned char *idebmap, int *ibndx, int *ibndy,
                      int *ibndz, float *bndx1, float *bndx2, float *bndx3, float *bndx4,
                      float *qmap1, float *qmap2, float *debmap1, float *debmap2, int idirectalg,
                      float qfact, const dg_delphi_control *control, dg_delphi_report *report) {
    return delphi_nitit_impl_f(idpos, db, sf1, sf2, iqpos, qval, icount2a, icount2b, icount1a,
                               icount1b, spec, nsp, phimap, phimap1, phimap2, phimap3, idebmap,
                               ibndx, ibndy, ibndz, bndx1, bndx2, bndx3, bndx4, qmap1, qmap2,
                               debmap1, debmap2, idirectalg, qfact, control, report);
}

int dg_delphi_itit_d(const int *idpos, double *db, double *sf1, double *sf2, const int *iqpos,
                     double *qval, int icount2a, int icount2b, int icount1a, int icount1b,
                     double spec, int nsp, double *phimap, double *phimap1, double *phimap2,
                     double *phimap3, int *ibndx, int *ibndy, int *ibndz, double *bndx1,
                     double *bndx2, double *bndx3, double *bndx4, const double *gval,
                     int idirectalg, const double *cgbp, const dg_delphi_control *control,
                     dg_delphi_report *report) {
    return delphi_itit_impl_d(idpos, db, sf1, sf2, iqpos, qval, icount2a, icount2b, icount1a,
                              icount1b, spec, nsp, phimap, phimap1, phimap2, phimap3, ibndx, ibndy,
                              ibndz, bndx1, bndx2, bndx3, bndx4, gval, idirectalg, cgbp, control,
                              report);
}

int dg_delphi_nitit_d(const int *idpos, double *db, double *sf1, double *sf2, const int *iqpos,
                      double *qval, int icount2a, int icount2b, int icount1a, int icount1b,
                      double spec, int nsp, double *phimap, double *phimap1, double *phimap2,
                      double *phimap3, const unsigned char *idebmap, int *ibndx, int *ibndy,
                      int *ibndz, double *bndx1, double *bndx2, double *bndx3, double *bndx4,
                      double *qmap1, double *qmap2, double *debmap1, double *debmap2,
                      int idirectalg, double qfact, const dg_delphi_control *control,
                      dg_delphi_report *report) {
    return delphi_nitit_impl_d(idpos, db, sf1, sf2, iqpos, qval, icount2a, icount2b, icount1a,
                               icount1b, spec, nsp, phimap, phimap1, phimap2, phimap3, idebmap,
                               ibndx, ibndy, ibndz, bndx1, bndx2, bndx3, bndx4, qmap1, qmap2,
                               debmap1, debmap2, idirectalg, qfact, control, report);
}
