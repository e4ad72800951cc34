/* The seam between the Newton driver (newton.c) and a backend's Newton kernels.
 *
 * The discrete nonlinear equation, in the prepared form (prepared.h) scaled by each point's
 * diagonal, is at every interior point i
 *
 *     G_i(phi) = phi_i - factor_i * sum_nbr phi - sum_f weight_f phi_f - source_i
 *                - flag_i * factor[1] * R(phi_i) = 0
 *
 * where R is the ionic term beyond its linear part (the linear part is in factor[1]).  With
 * fraction 1 this is the fixed point of DelPhi's nitit sweep.  G is in kT/e: it is the change a
 * Jacobi update would make.  A Newton step solves J delta = -G with J = I - A + diag(d),
 * d_i = -flag_i factor[1] R'(phi_i), by red-black SOR: the sweep of the linear solver with each
 * point's update divided by 1 + d_i.
 */
#ifndef DG_NEWTON_BACKEND_H
#define DG_NEWTON_BACKEND_H

#include <math.h>

#include "backend.h"
#include "mg/mg.h"

/** The ionic term R beyond the linear part, at salt points. */
typedef struct dg_newton_term {
    int exact;        /* 1: R = amplitude (p - sinh(z p) / z); 0: DelPhi's polynomial, no cut-off */
    double valence;   /* z (exact) */
    double amplitude; /* exact: coefficient such that R ~ coefficient chi1 p^3 for small p */
    double coefficient, chi[4]; /* polynomial: coefficient p^2 (chi0 + p (chi1 + ...)) */
    double salt_factor;         /* factor[1]: R enters G scaled by it */
} dg_newton_term;

/** Norms over all interior points, accumulated in double in a fixed order. */
typedef struct dg_newton_norms {
    double max_abs; /* max |value| */
    double sum_sq;  /* sum of value^2 */
    int finite;     /* 0 if any value was NaN/Inf */
} dg_newton_norms;

typedef struct dg_newton_ops {
    /* Allocate the workspace for the backend state's current medium and phi (loaded). */
    int (*begin)(void *backend_state, const dg_newton_term *term, void **workspace, dg_error *err);
    void (*end)(void *workspace);
    /* G at the current phi (kept for the next inner solve with the diagonal d at phi); norms
       of G. */
    int (*residual)(void *workspace, dg_newton_norms *norms, dg_error *err);
    /* delta <- 0. */
    int (*zero_step)(void *workspace, dg_error *err);
    /* count red-black SOR iterations on J delta = -G; when measure, the max |change of delta|
       over the last iteration (all interior points) goes to *max_change. */
    int (*inner)(void *workspace, int count, double omega, int measure, double *max_change,
                 dg_error *err);
    /* phi <- phi_start + lambda delta, where phi_start is phi at the call with first = 1;
       norms of lambda delta. */
    int (*step)(void *workspace, double lambda, int first, dg_newton_norms *norms, dg_error *err);
    /* Multigrid for the inner solves (solver MULTIGRID): mg_begin builds the workspace's
       hierarchy of the medium prep (threads for host loops, 0 = all); inner_mg solves the step's
       equation in its scaled form, J' delta = -b with J' = diag(inv) J and b = inv G (inv =
       1 / (1 + d), at the phi of the last residual), by multigrid-preconditioned CG in float
       from delta = 0 to control, on the scaled residual -b - J' delta (the change a Jacobi
       sweep would make, as the SOR's), and leaves its answer in delta. */
    int (*mg_begin)(void *workspace, const dg_prepared *prep, int threads, dg_error *err);
    int (*inner_mg)(void *workspace, const dg_mg_control *control, dg_mg_outcome *outcome,
                    dg_error *err);
} dg_newton_ops;

extern const dg_newton_ops dg_cpu_newton_ops;

/** The CUDA backend's Newton ops, or NULL in a build without CUDA. */
const dg_newton_ops *dg_cuda_newton(void);

#ifdef __CUDACC__
#define DG_NEWTON_HD __host__ __device__
#else
#define DG_NEWTON_HD
#endif

/** R and R' of a term at p, in double (the host and device kernels share this). */
DG_NEWTON_HD static inline double dg_newton_remainder(const dg_newton_term *t, double p,
                                                      double *derivative) {
    if (t->exact) {
        const double z = t->valence, zp = z * p;
        if (!(fabs(zp) < 700.0)) { /* sinh and cosh overflow (or p is NaN) */
            *derivative = t->amplitude * (1.0 - cosh(zp));
            return t->amplitude * (p - sinh(zp) / z);
        }
        /* One expm1 for both: cosh - 1 = m^2 / (2 e), sinh = (m + m / e) / 2, m = e - 1. */
        const double m = expm1(zp), e = 1.0 + m;
        *derivative = -t->amplitude * (m * m / (2.0 * e));
        return t->amplitude * (p - 0.5 * (m + m / e) / z);
    }
    const double *c = t->chi;
    *derivative =
        t->coefficient * p * (2.0 * c[0] + p * (3.0 * c[1] + p * (4.0 * c[2] + p * 5.0 * c[3])));
    return t->coefficient * p * p * (c[0] + p * (c[1] + p * (c[2] + p * c[3])));
}

#endif /* DG_NEWTON_BACKEND_H */
