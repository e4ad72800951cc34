/* Mixed precision on the CPU backend (DG_PRECISION_MIXED): the iterate phi lives in double;
 * blocks of iterations solve for a float correction e with the float sweeps, then phi += e in
 * double (the "fold", once dg_refine_sweeps or more iterations ran: backend.h).
 *
 * The red-black SOR update of one point is phi <- (1 - omega) phi + omega T(phi), T the affine
 * map of prepared.h (uniform stencil, boundary weights, charges, lagged nonlinear source).  With
 * phi = phi_d + e and phi_d held fixed during a block, T(phi_d + e) = T(phi_d) + T0(e) (T0 the
 * linear part), so the update of e is
 *
 *     e <- (1 - omega) e + omega (T0(e) + r),   r = T(phi_d) - phi_d  (the residual, in double)
 *
 * and phi_d + e follows exactly the double SOR iterates (up to the rounding of e, which
 * shrinks with e).  The float sweep carries r as rhs = r / factor[flag] so that it adds
 * omega * factor * rhs = omega * r through the stencil weight; the charges enter only through r.
 * The correction is held as e * scale rounded to binary16 after every update (refine_half.h: the
 * CUDA backend stores it in 2 bytes; here the float grids hold those values), scale a power of
 * two set from the step's largest rhs, which the sweeps add times scale.
 */
#ifndef DG_CPU_REFINE_H
#define DG_CPU_REFINE_H

#include "../prepared.h"
#include "../refine_half.h"
#include "../refine_rhs.h"

typedef struct dg_cpu_refine {
    double *phi[2];   /* the iterate in double (faces included) */
    double *qmap[2];  /* nonlinear lagged source in double (allocated on first use) */
    dg_rhs16 *rhs[2]; /* residual / factor of the point and its salt flag (refine_rhs.h) */
    float scale;      /* the step's scale of the correction (dg_half_scale of the largest rhs) */
    double inv_scale; /* 1 / scale */
    /* Points on a sparse list, grouped by half-index: group g covers entries
       entry[start[g] .. start[g+1]); an entry k >= 0 is boundary entry k, k < 0 charge -k-1. */
    int group_count[2];
    int *start[2];
    int *entry[2];
} dg_cpu_refine;

/** Allocate for a prepared medium (zeroed); DG_OK or DG_ERR_OUT_OF_MEMORY. */
int dg_cpu_refine_alloc(dg_cpu_refine *r, const dg_prepared *p);
void dg_cpu_refine_free(dg_cpu_refine *r);

/** Full grid (double or float) -> the double iterate; clears the nonlinear source. */
void dg_cpu_refine_load(dg_cpu_refine *r, const dg_prepared *p, const void *phi, int is_double,
                        int threads);
/** Periodic axes: each face point of a wrap pair (prepared.h, dg_wrap_pair) takes its image's
 *  value, so that the residual sees the periodic neighbours; the correction's seam steps keep
 *  them so (a fold adds the same correction to a face point and its image). */
void dg_cpu_refine_wrap(dg_cpu_refine *r, const dg_prepared *p);
/** The double iterate -> full grid: the interior points, and with periodic axes the face points
 *  of the wrap pairs. */
void dg_cpu_refine_store(const dg_cpu_refine *r, const dg_prepared *p, void *phi, int is_double,
                         int threads);

/** rhs = (T(phi) - phi) / factor at every interior point, in double, rounded to float, then to
 *  the 16-bit rhs with the point's salt flag (refine_rhs.h); then the step's scale from the
 *  largest |rhs|. */
void dg_cpu_refine_residual(dg_cpu_refine *r, const dg_prepared *p, int nonlinear, int threads);

/** phi += e / scale in double at every half point; e = 0. */
void dg_cpu_refine_fold(dg_cpu_refine *r, const dg_prepared *p, float *const e[2], int threads);

/** The correction f = 0 at every half point (refinement from the iterate as it is). */
void dg_cpu_refine_zero_correction(const dg_prepared *p, float *const f[2]);

/** Nonlinear source from the double iterate (DelPhi's polynomial, as the other precisions);
 *  DG_OK or DG_ERR_OUT_OF_MEMORY. */
int dg_cpu_refine_nonlinear_source(dg_cpu_refine *r, const dg_prepared *p, double fraction,
                                   int threads);

#endif /* DG_CPU_REFINE_H */
