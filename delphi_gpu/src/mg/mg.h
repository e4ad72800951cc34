/* Multigrid-preconditioned conjugate gradients for the linear equations the SOR solves.
 *
 * The SOR's fixed point is A phi = b with A = I - C in DelPhi's scaled form: C holds, per point
 * and face, factor[flag] + boundary weight (the same coefficients the sweep uses), b the charge
 * sources, and the face values of phi enter through the neighbours.  A = D^-1 M with M
 * symmetric (M_ij = -eps_ij, M_ii = D_i = sum of face permittivities + ionic term), so CG runs
 * on A in the inner product weighted by D: the residual and the stopping test stay in the
 * SOR's own scaled form (exactly the SOR's operator), D only enters dot products and the
 * restriction.  D is recovered up to one constant from the coefficient ratios along grid
 * lines (D_j / D_i = C_ij / C_ji).  The preconditioner is one symmetric cycle: red-black
 * Gauss-Seidel on the fine grid with A, 2x2x2 aggregation with Galerkin coarse operators
 * (exact 7-point stencils that keep the permittivity jump), coarse levels in float (W-cycle,
 * V below 200 000 unknowns), the coarsest level solved exactly by its dense inverse.
 */
#ifndef DG_MG_H
#define DG_MG_H

#include "../solver_internal.h"

/* With no criterion and no fixed count: the max change tolerance used. */
#define DG_MG_DEFAULT_MAX_CHANGE 1e-5
/* A linear solve stops on DelPhi's own criterion, the change of phi over one iteration, here
   one cycle (the CG step alpha p): max |alpha p| <= maxc (likewise rms and norm), once the true
   scaled residual (the change a Jacobi sweep would make) is within the same tolerance.  Measured
   against reference solutions (docs/MULTIGRID.md, "Stopping rule"): the error left after a
   cycle is 0.1-0.7 times that cycle's change, so the answer is at least as close to the exact
   discrete solution as the SOR's (whose error is 0.35-6 times maxc), on proteins as on the
   benchmark's medium; the residual alone measured the error of a protein's low-energy modes
   poorly (max error 3.5-17 times the final max residual). */
/* Newton's steps by multigrid stop on the scaled residual (an inexact Newton method's forcing
   term); their floor is this many times the SOR's inner change floor. */
#define DG_MG_NEWTON_RESIDUAL_PER_CHANGE 0.1
/* Cap on cycles when max_iterations is 0. */
#define DG_MG_MAX_CYCLES 500
/* Stop (not converged) after this many cycles without a 1 % fall of the max residual. */
#define DG_MG_STALL_CYCLES 20
/* DG_SOLVER_AUTO picks multigrid for a linear equation with at least (edge - 2)^3 interior
   points: a grid edge from which multigrid was measured to reach the tolerance sooner than the
   SOR in dg_bench_mg (docs/MULTIGRID.md: CPU from 161^3 in every run; CUDA, PERFORMANCE.md run
   34, a process's first solve: 1.23-1.26x at 161^3 in mixed and double, 1.21-1.78x at 177^3,
   with 0.15 M salt 0.98-1.17x at 161^3 and 1.00-1.23x at 177^3; at 129^3 0.79-1.15x).  Newton's
   steps on CUDA keep the edge where they were measured faster by multigrid (PERFORMANCE.md run
   27: 1.04-1.09x at 193^3, 0.77x at 129^3). */
#define DG_MG_AUTO_EDGE_CPU         161
#define DG_MG_AUTO_EDGE_CUDA        161
#define DG_MG_AUTO_EDGE_CUDA_NEWTON 193
/* Newton's steps with periodic axes on CUDA: a z-periodic bundle of duplexes in 0.15 M salt
   (PERFORMANCE.md run 66) took longer by multigrid at 257^3 and 385^3 (0.115 against 0.073 s,
   0.39 against 0.32 s: more cycles per step than without the periodic z, 47 against 34) and
   less from 513^3 (0.64 against 0.80 s; 641^3 1.34 against 2.11 s). */
#define DG_MG_AUTO_EDGE_CUDA_NEWTON_PERIODIC 513
/* Largest coarsest level (unknowns) solved by a dense inverse. */
#define DG_MG_DENSE_MAX 64
/* Float's resolution, in float epsilons times max |phi|: a float linear solve whose cycle
   changed phi by no more than this ends at float's resolution (DG_OUTCOME_FLOAT_RESOLUTION,
   unless the criterion is met) once the change has stopped falling (more than
   DG_MG_FLOAT_STALL times the smallest change of the cycles before) in DG_MG_FLOAT_VOTES cycles
   in a row: rounding, not convergence, sets it then (the SOR's float floor has the same level,
   float_floor.c).  From that level on every cycle recomputes the residual as b - A x, summed in
   double and rounded once, and restarts the directions from it.  A maxc below one rounding of
   the largest potential (float epsilon times max |phi|) is out of reach: such a solve ends at
   float's resolution at once when a cycle's change and the true residual are both within that
   rounding (dg_mg_met's DG_MG_AT_RESOLUTION; going on until the change stopped falling gave
   the same max error at 65^3-385^3 in 3-4 more cycles).  A Newton step's float solve counts a
   scaled residual this small as met. */
#define DG_MG_FLOAT_FLOOR 16.0
/* A converging cycle shrinks the change by 0.1-0.6 near that level; rounding noise does not. */
#define DG_MG_FLOAT_STALL 0.75
/* One stalled cycle can be a step that repairs what the noise had hidden (a +1 e charge in a
   homogeneous medium, 97^3: 5.3e-4, then 2.4e-3 at the charged point, then 7.0e-4, 9.3e-5 and
   4.3e-5 kT/e, 0.4 epsilons of max |phi|). */
#define DG_MG_FLOAT_VOTES 2
/* Float vectors (float, and CUDA's mixed precision: r, p, q in float) replace the CG
   recurrence's residual by the true one, b - A x summed in double, when its max has fallen by
   this factor since the last true one: the float r carries rounding errors of about float's
   epsilon times the r it started from, so it must be renewed as it falls.  Mixed, measured at
   385^3-769^3 (docs/MULTIGRID.md, run 31): 2^-10 keeps the double loop's cycle counts
   (13 / 13 / 14) with 4-5 true residuals; 2^-16 cost a cycle at 769^3, 2^-24 one at 513^3 and
   three at 769^3, and none between the start and the end stalled near float's resolution of
   the first r (3e-4 against 4.7e3 at 385^3).  Float: without it the first true residual near
   float's resolution revealed an error the recurrence had hidden (385^3 at maxc 1e-3: a cycle
   that changed phi by 3.0e-3 was followed by one of 1.1e-2 where the double loop's was
   1.4e-4). */
#define DG_MG_RELIABLE_FALL 0x1p-10

/** One coarse level: m unknowns per dimension on a grid padded by one ghost layer (zero).
 *  cx[p] is the (positive) coupling between padded points p and p+1, likewise cy, cz.
 *  Along an axis that wraps (bit a of wrap: the fine grid's periodic axis a, m >= 2 there) the
 *  level is periodic too: unknown m's link to the next is the seam link to unknown 1 (cx at
 *  X = m), the ghost X = 0 stands for X = m and X = m + 1 for X = 1, and the ghost coupling
 *  cx at X = 0 repeats cx at X = m (dg_mg_wrap_level copies a vector's ghosts from their
 *  images), so a stencil reads its neighbours across the seam as any other. */
typedef struct dg_mg_level {
    int mx, my, mz;
    long sx, sy; /* padded strides: 1, mx+2 or mx+3, sx (my+2 or my+3); sx and sy odd */
    size_t padded;
    int wrap; /* periodic axes of this level (dg_periodic_axis bits) */
    float *diag, *cx, *cy, *cz;
    float *e, *rhs;
} dg_mg_level;

/** The ghosts of v (a level's padded vector) on the level's wrapping axes take their images'
 *  values: X = 0 that of X = m, X = m + 1 that of X = 1 (other coordinates interior, the only
 *  ghosts a stencil reads).  Nothing without wrapping axes. */
void dg_mg_wrap_level(const dg_mg_level *l, float *v);

/** Tuning of the cycle (defaults in dg_mg_default_params). */
typedef struct dg_mg_params {
    int pre_sweeps, post_sweeps; /* fine level: red-black GS sweeps before/after its correction */
    int coarse_sweeps;   /* coarse levels (not the coarsest): sweeps before and after, each */
    int coarsest_sweeps; /* symmetric GS sweeps on the coarsest level; 0 = exact (dense inverse) */
    int coarsest_size;   /* stop coarsening at this many unknowns or fewer (<= DG_MG_DENSE_MAX) */
    double correction_scale;   /* over-correction of the aggregation coarse correction: the
                                  fine level's, and a coarse level's that visits the next twice */
    double single_visit_scale; /* a coarse level's that visits the next once (dg_mg_scale) */
    int coarse_visits;         /* coarse corrections per coarse level: 1 = V-cycle, 2 = W */
    long w_min_unknowns;       /* a level with fewer unknowns visits the next once (V below) */
} dg_mg_params;

/* Inline functions the host and the CUDA kernels share. */
#ifdef __CUDACC__
#define DG_MG_HOST_DEVICE __host__ __device__
#else
#define DG_MG_HOST_DEVICE
#endif

/** Coarse corrections a level of this many unknowns makes. */
DG_MG_HOST_DEVICE static inline int dg_mg_visits(const dg_mg_params *p, long unknowns) {
    return unknowns < p->w_min_unknowns ? 1 : p->coarse_visits;
}

/** The scale of the correction a coarse level of this many unknowns takes from the next one
 *  (the fine level always takes correction_scale). */
DG_MG_HOST_DEVICE static inline double dg_mg_scale(const dg_mg_params *p, long unknowns) {
    return dg_mg_visits(p, unknowns) == 1 ? p->single_visit_scale : p->correction_scale;
}

/** The hierarchy built once per medium (fine level from the prepared medium). */
typedef struct dg_mg_hierarchy {
    const dg_prepared *prep;
    dg_mg_params params;
    int threads;
    float *dscale;       /* D per full-grid point (0 on faces) */
    float *z;            /* preconditioner output on the full grid (faces 0) */
    unsigned char *salt; /* 1 where the salt factor applies, full grid (all 0 without salt) */
    int level_count;
    dg_mg_level *levels;     /* levels[0] = first coarse level */
    int coarsest_count;      /* unknowns of the coarsest level (0 without levels) */
    float *coarsest_inverse; /* its exact inverse (dg_mg_build; the CUDA path builds its own) */
    /* A Newton step's Jacobian in place of the linear operator (dg_mg_jacobian_begin; all NULL
       for a linear solve).  The caller fills factor, weight and rhs, then dg_mg_jacobian_update
       rebuilds D and the coarse diagonals from them. */
    float *factor;      /* per full-grid point: replaces factor[salt] (0 on the faces) */
    double *weight[2];  /* the boundary weights of each colour's list, 6 per point */
    float *rhs;         /* per full-grid point: replaces the charges (0 on the faces) */
    float *dscale_base; /* D of the linear operator */
    float **diag_base;  /* each level's diagonal of the linear operator */
} dg_mg_hierarchy;

void dg_mg_default_params(dg_mg_params *params);

/** Level dimensions only (no arrays): what the CUDA path needs to build the levels on the
 *  device.  Returns a dg_status; message on error. */
int dg_mg_plan(dg_mg_hierarchy *h, const dg_prepared *prep, const dg_mg_params *params, int threads,
               char *message, size_t message_size);

/** Build D, the fine couplings and the coarse levels.  Returns a dg_status; message on error. */
int dg_mg_build(dg_mg_hierarchy *h, const dg_prepared *prep, const dg_mg_params *params,
                int threads, char *message, size_t message_size);

void dg_mg_free(dg_mg_hierarchy *h);

/** The exact inverse of level l's operator (arrays diag, cx, cy, cz laid out as l's), unknown t
 *  at X = 1 + t % mx, Y = 1 + (t / mx) % my, Z = 1 + t / (mx my); inverse is m x m floats.
 *  DG_ERR_INTERNAL if the operator is not positive definite, DG_ERR_OUT_OF_MEMORY. */
int dg_mg_dense_inverse(const dg_mg_level *l, const float *diag, const float *cx, const float *cy,
                        const float *cz, float *inverse);

/** l->e = inverse * l->rhs on the interior unknowns (sums in double, in unknown order). */
void dg_mg_dense_solve(const dg_mg_level *l, const float *inverse);

/** Coarse part of the V-cycle: solve level l approximately for levels[l].rhs into levels[l].e. */
void dg_mg_coarse_cycle(dg_mg_hierarchy *h, int l);

/** The Jacobian of a Newton step, J' = I - C', in place of the linear operator A = I - C of a
 *  built hierarchy (dg_mg_build): J' has a factor of its own at every point (factor_i = f_i /
 *  (1 + d_i), f_i the medium's factor[salt]), the boundary weights scaled alike and a
 *  right-hand side of its own.  D (1 + d) symmetrises J' as D does A, so the weight becomes
 *  D_i f_i / factor_i, and the Galerkin coarse operators change only on their diagonals, by the
 *  aggregated D_i d_i.  begin allocates factor, weight, rhs and the linear operator's D and
 *  diagonals; update (after the caller filled factor, weight and rhs) sets D, the coarse
 *  diagonals and the coarsest inverse.  Return a dg_status; message on error. */
int dg_mg_jacobian_begin(dg_mg_hierarchy *h, char *message, size_t message_size);
int dg_mg_jacobian_update(dg_mg_hierarchy *h, char *message, size_t message_size);

/** The weight ratio D'_i / D_i = f / factor of a Jacobian point, bounded (d may overflow);
 *  the host and the device share it. */
#define DG_MG_JACOBIAN_RATIO_MAX 1e12
DG_MG_HOST_DEVICE static inline double dg_mg_jacobian_ratio(double f, float factor) {
    const double ratio = f / (double)factor;
    return factor > 0.0f && ratio < DG_MG_JACOBIAN_RATIO_MAX ? ratio : DG_MG_JACOBIAN_RATIO_MAX;
}

/** Bytes the hierarchy holds per fine grid point (for reports). */
double dg_mg_bytes_per_point(const dg_mg_hierarchy *h);

/** Max |v| and the sum of v^2 over the interior of a grid vector v. */
typedef struct dg_mg_measures {
    double max_abs, sum_sq;
} dg_mg_measures;

/** Called after every cycle with the cycles done and the measures of that cycle's change of
 *  phi (the CG step alpha p).  Non-zero asks the loop to stop: unless the criterion is met, the
 *  solve ends with DG_OUTCOME_STOPPED and x as it stands is the answer. */
typedef int (*dg_mg_cycle_fn)(void *user, int cycles, dg_mg_measures change);

/** The stopping rule of one solve, shared by the CPU and CUDA loops (dg_mg_met). */
typedef struct dg_mg_control {
    double change_tol[3];    /* on the last cycle's change: max, rms, norm (0 = unused) */
    double residual_tol[3];  /* on the scaled residual: max, rms, norm (0 = unused) */
    int fixed;               /* run exactly cap cycles (no criterion, a fixed count) */
    int cap;                 /* most cycles */
    int stall;               /* stop after this many cycles without a 1 % fall of max |r| */
    double floor;            /* max |r| <= floor * max |phi| counts as met (0: none) */
    double change_floor;     /* a cycle's max change <= change_floor * max |phi| that no longer
                                falls ends the solve at float's resolution (0: none) */
    dg_mg_cycle_fn on_cycle; /* NULL: none */
    void *on_cycle_user;
} dg_mg_control;

/** What a solve reached: cycles done, outcome, the final residual's measures and the last
 *  cycle's change (max, rms, norm; 0 before a cycle). */
typedef struct dg_mg_outcome {
    int cycles, outcome;
    double max_abs, rms, norm;
    double change_max, change_rms, change_norm;
    /* CUDA: phi to the device, the cycles (from the first residual to the last), the answer
       back to the caller; the rest of dg_cuda_mg_solve is the hierarchy's set-up, of which
       check_wait_seconds waited for dg_solve's phi check and release_seconds freed the device's
       arrays; graph_seconds (part of cycle_seconds) captured the cycle as a CUDA graph */
    double phi_in_seconds, cycle_seconds, phi_out_seconds, check_wait_seconds, release_seconds;
    double graph_seconds;
} dg_mg_outcome;

void dg_mg_make_control(const dg_options *options, int is_double, dg_mg_control *c);

/** What dg_mg_met finds. */
enum {
    DG_MG_GOING = 0,        /* go on */
    DG_MG_MET = 1,          /* the criterion is met (or the residual floor) */
    DG_MG_RESOLUTION = 2,   /* the change stopped falling at float's resolution (votes) */
    DG_MG_AT_RESOLUTION = 3 /* the change is within one rounding of max |phi|, maxc below it */
};

/** DG_MG_MET if a tolerance i with change_tol[i] or residual_tol[i] set is met by both the last
 *  cycle's change and the residual (an unset one is no condition) or the residual is within
 *  floor * phi_max; else (float: change_floor set) DG_MG_AT_RESOLUTION if change_tol[0] is set
 *  and below FLT_EPSILON * phi_max and the max change and the max residual are both within
 *  that (the loops end the solve at once); else DG_MG_RESOLUTION if the change is within
 *  change_floor * phi_max and
 *  above DG_MG_FLOAT_STALL * earlier (it stopped falling; the loops end the solve after
 *  DG_MG_FLOAT_VOTES such cycles in a row); else DG_MG_GOING.  change: the last cycle's (before
 *  any cycle: dg_mg_no_change); earlier: the smallest max change of the cycles before it
 *  (HUGE_VAL when none). */
int dg_mg_met(const dg_mg_control *c, dg_mg_measures residual, dg_mg_measures change,
              double earlier, double phi_max, double interior);

/** The loops' verdict after float's votes (votes: the loop's counter, 0 at its start):
 *  DG_MG_AT_RESOLUTION ends the solve at once, DG_MG_RESOLUTION after DG_MG_FLOAT_VOTES such
 *  cycles in a row (one can be a step that repairs what the rounded residual had hidden);
 *  returns DG_MG_RESOLUTION to end there, else verdict (DG_MG_GOING for a vote short of it). */
int dg_mg_vote(int verdict, int *votes);

/** The change to assume before the first cycle: none when the residual is exactly zero (x is
 *  the exact solution), else unbounded. */
dg_mg_measures dg_mg_no_change(dg_mg_measures residual);

/* dg_phi_check_view.wait's answer for a check that has not ended (when not asked to block). */
#define DG_MG_CHECK_RUNNING 2

/** Test hook (kernels/cuda_mg.cu): when on, a CUDA multigrid solve whose sample of phi's
 *  interior is all +0.0 starts its cycles before taking the check's verdict even when the check
 *  has already ended, as it does when the check is still running; what the verdict then
 *  decides (a second solve from the whole phi, or DG_ERR_NONFINITE_INPUT) is what the tests
 *  exercise.  Off by default; no effect without CUDA. */
void dg_cuda_mg_speculate_always(int on);

/** Test hook (kernels/cuda_mg_build.cu): CUDA multigrid solves give the levels of at least
 *  `unknowns` unknowns their classes of uniform stencils (kernels/cuda_mg.cuh, level_view.cls);
 *  a negative value restores the default (32768), LONG_MAX gives none.  The classes change which
 *  arrays a coefficient is read from, never its value, so every setting gives the same bits. */
void dg_cuda_mg_class_min(long unknowns);

/** The CUDA solve (kernels/cuda_mg.cu): phi is the caller's full grid (double when
 *  phi_is_double, else float), uploaded once (only its six faces when the interior is all +0.0,
 *  packed on threads host threads, 0 = OpenMP's default); the answer's interior is written back
 *  into it once, unless the outcome is DIVERGED or an error occurs (phi is then untouched).
 *  check (NULL: none, the whole phi goes up) is dg_solve's check of phi (dg_phi_check_view,
 *  solver_internal.h); a non-finite phi stops the solve with DG_ERR_NONFINITE_INPUT, phi
 *  untouched.  The device's set-up runs while the check does; when the check is still running
 *  as phi goes up and a sample of phi's interior is all +0.0, only the faces go up (as the
 *  check's thread packed them) and the cycles start, and the check is waited for before the
 *  answer is written: a non-zero interior then goes up whole and the solve runs again
 *  (kernels/cuda_mg.cu, "phi's check").  precision (a dg_precision): DOUBLE runs the CG in
 *  double, FLOAT in float; MIXED keeps x in double and r, p, q in float, replacing r by the
 *  true residual computed in double whenever it has fallen by 2^-10 (reliable updates), and
 *  stops on the true residual as DOUBLE does.  h is a plan (dg_mg_plan): D, the salt map and
 *  the levels are built on the device by the same formulas as dg_mg_build.  backend_state: the
 *  solver's CUDA backend state (dg_cuda_backend()'s), whose page-locked transfer slabs the
 *  answer borrows once it has made them, or NULL.  DG_ERR_BACKEND_NOT_BUILT without CUDA. */
int dg_cuda_mg_solve(int device, void *backend_state, const dg_mg_hierarchy *h, int precision,
                     void *phi, int phi_is_double, const dg_phi_check_view *check, int threads,
                     const dg_mg_control *control, dg_mg_outcome *outcome, dg_error *err);

/** A Newton step's equation J' delta = -b on the device (kernels/cuda_mg.cu), for the CUDA
 *  backend's Newton (kernels/cuda_newton.cu).  begin builds the hierarchy of plan (dg_mg_plan,
 *  kept by the caller until end) on the device.  solve takes device arrays in the split layout
 *  (colour 0's half grid, then colour 1's from plan's half_count[0] on): factor (J's factor at
 *  every point, as dg_mg_jacobian_begin's), b, and delta for the answer; it rebuilds D and the
 *  coarse diagonals from factor, runs float multigrid-preconditioned CG from delta = 0 to
 *  control and writes delta's interior.  DG_ERR_BACKEND_NOT_BUILT without CUDA. */
int dg_cuda_mg_jacobian_begin(int device, const dg_mg_hierarchy *plan, int threads, void **state,
                              dg_error *err);
int dg_cuda_mg_jacobian_solve(void *state, const float *factor, const float *b, float *delta,
                              const dg_mg_control *control, dg_mg_outcome *outcome, dg_error *err);
void dg_cuda_mg_jacobian_end(void *state);

/** 1 when a periodic axis's seam links are not symmetric: the medium does not repeat across
 *  its faces (the permittivity between points 0 and 1 differs from the one between n-2 and
 *  n-1 along some interior line), so A is not self-adjoint in the D-weighted product and CG
 *  may fail (measured: a sphere across an x face whose medium was not periodic in x stalled
 *  after 23 cycles, far from the SOR's answer).  where gets a sentence naming the axis, line
 *  and ratio.  0 when it repeats (or no periodic axis), -1 out of memory (mg_seam.c). */
int dg_mg_seam_mismatch(const dg_prepared *prep, char *where, size_t size);

/** Non-zero when every axis is periodic and no point has salt: the operator is singular (a
 *  constant is in its null space), so multigrid refuses it and AUTO takes the SOR. */
int dg_mg_singular_periodic(const dg_prepared *prep);

/** Multigrid solve of the linear equation (phi in s->mg_phi), called by dg_run_solver. */
int dg_mg_run(dg_solver s, dg_result *result);

/** The solve in working precision: phi is a full grid (faces hold the boundary values), solved
 *  in place to control.  Returns a dg_status; err on error. */
int dg_mg_solve_f(dg_mg_hierarchy *h, float *phi, const dg_mg_control *control,
                  dg_mg_outcome *outcome, dg_error *err);
int dg_mg_solve_d(dg_mg_hierarchy *h, double *phi, const dg_mg_control *control,
                  dg_mg_outcome *outcome, dg_error *err);

#endif /* DG_MG_H */
