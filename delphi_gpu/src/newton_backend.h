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

/** Called by `inner` after each colour's sweep (and its seam steps) of every inner iteration:
 *  over MPI ranks, the step's halo planes of that colour (mpi/mpi_backend.c).  The sweeps take
 *  colour first_colour first (a rank whose slab starts on an odd global plane sweeps its local
 *  colour 1 first, the global order). */
typedef struct dg_newton_exchange {
    int first_colour;
    int (*after_colour)(void *user, int colour, dg_error *err);
    void *user;
} dg_newton_exchange;

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
       over the last iteration (all interior points) goes to *max_change.  exchange: NULL in one
       process (colour 0 first, nothing between the colours). */
    int (*inner)(void *workspace, int count, double omega, int measure, double *max_change,
                 const dg_newton_exchange *exchange, dg_error *err);
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
    /* The step's values of one colour in plane z (dg_plane_range's points, contiguous in the
       half grid), out of delta into values (put = 0) or from values into delta (put = 1). */
    int (*delta_plane)(void *workspace, int z, int colour, float *values, int put, dg_error *err);
    /* The step shared with the neighbouring MPI ranks' devices (CUDA IPC; NULL where the
       backend cannot): delta_export writes an opaque blob of DG_PEER_HANDLE_BYTES, delta_open
       maps a neighbour's (slot 0 below, 1 above; NULL unmaps), delta_pull queues behind the
       queued work a copy of count values of the mapped step's peer_colour from half-index
       peer_first into this step's colour at first (the caller makes sure they are final). */
    int (*delta_export)(void *workspace, unsigned char *handle, dg_error *err);
    int (*delta_open)(void *workspace, int slot, const unsigned char *handle, dg_error *err);
    int (*delta_pull)(void *workspace, int slot, int peer_colour, long peer_first, int colour,
                      long first, long count, dg_error *err);
} dg_newton_ops;

extern const dg_newton_ops dg_cpu_newton_ops;

/** The CUDA backend's Newton ops, or NULL in a build without CUDA. */
const dg_newton_ops *dg_cuda_newton(void);

/** A backend's own Newton ops (CPU or CUDA), or NULL. */
const dg_newton_ops *dg_newton_ops_of(const dg_backend_ops *backend);

#ifdef DG_MPI
/** Newton over MPI ranks (mpi/mpi_backend.c): each rank's own Newton ops on its slab, the
 *  step's halo planes exchanged after every colour of an inner sweep and phi's after every
 *  update, the norms reduced over the ranks.  begin takes the MPI backend's state. */
extern const dg_newton_ops dg_mpi_newton_ops;
#endif

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
