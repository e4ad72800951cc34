/* Default options and their validation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver_internal.h"

void dg_default_options(dg_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = (int)sizeof *o;
    o->version = DG_OPTIONS_VERSION;
    o->backend = DG_BACKEND_AUTO;
    o->precision = DG_PRECISION_DOUBLE;
    o->device = 0;
    o->num_threads = 0;
    o->block_x = 0;
    o->block_y = 0;
    o->autotune = 1;
    o->equation = DG_EQUATION_AUTO;
    o->omega = 0.0;
    o->spectral_radius = 0.0;
    o->iterations = 0;
    o->run_until_converged = -1;
    o->max_iterations = 0;
    o->check_interval = 10;
    o->check_stride = 1;
    o->rms_change_tol = 0.0;
    o->max_change_tol = 0.0;
    o->norm_change_tol = 0.0;
    o->nonlinear_blocks = 30;
    o->relpar = 0.0;
    o->qfact = -1.0;
    o->divergence_checks = 8;
    o->divergence_factor = 100.0;
    o->progress = NULL;
    o->progress_user_data = NULL;
    o->solver = DG_SOLVER_SOR;
    o->nonlinear_method = DG_NONLINEAR_DELPHI;
    o->nonlinear_term = DG_NONLINEAR_TERM_AUTO;
    o->mpi_comm = NULL;
    o->periodic = 0;
}

/* Write a message and return the status (for the validation chain below). */
static int reject(char *message, size_t size, int status, const char *field, const char *why) {
    if (message && size) snprintf(message, size, "option %s: %s", field, why);
    return status;
}

static int finite_nonnegative(double v) {
    return isfinite(v) && v >= 0.0;
}

int dg_validate_options(const dg_options *o, char *msg, size_t size) {
    if (o->struct_size != (int)sizeof *o || o->version != DG_OPTIONS_VERSION)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "struct_size/version",
                      "not set by dg_default_options() of this library version");
    if (o->backend < DG_BACKEND_AUTO || o->backend > DG_BACKEND_CUDA)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "backend", "must be AUTO, CPU or CUDA");
    if (o->precision != DG_PRECISION_DOUBLE && o->precision != DG_PRECISION_FLOAT &&
        o->precision != DG_PRECISION_MIXED)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "precision",
                      "must be DOUBLE, FLOAT or MIXED");
    if (o->device < 0) return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "device", "negative");
    if (o->num_threads < 0 || o->num_threads > DG_MAX_THREADS) {
        if (msg && size)
            snprintf(msg, size, "option num_threads: %d is outside 0..%d (0 = OpenMP's default)",
                     o->num_threads, DG_MAX_THREADS);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (o->block_x < 0 || o->block_y < 0 || o->block_x * o->block_y > 1024 ||
        ((o->block_x == 0) != (o->block_y == 0)) || (o->block_x && o->block_x < 3) ||
        (o->block_y && o->block_y < 3))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "block_x/block_y",
                      "both 0 (default) or both >= 3 with block_x*block_y <= 1024");
    if (o->equation < DG_EQUATION_AUTO || o->equation > DG_EQUATION_NONLINEAR_PB)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "equation", "unknown value");
    if (!isfinite(o->omega) || (o->omega != 0.0 && (o->omega <= 0.0 || o->omega >= 2.0)))
        return reject(msg, size, DG_ERR_BAD_OMEGA, "omega", "must be 0 (automatic) or in (0, 2)");
    if (!isfinite(o->spectral_radius) || o->spectral_radius < 0.0 || o->spectral_radius >= 1.0)
        return reject(msg, size, DG_ERR_BAD_OMEGA, "spectral_radius",
                      "must be 0 (estimate) or in (0, 1)");
    if (o->iterations < 0)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "iterations", "negative");
    if (o->run_until_converged < -1 || o->run_until_converged > 1)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "run_until_converged",
                      "must be -1, 0 or 1");
    if (o->max_iterations < 0)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "max_iterations", "negative");
    if (o->check_interval < 1)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "check_interval", "must be >= 1");
    if (o->check_stride < 1)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "check_stride", "must be >= 1");
    if (!finite_nonnegative(o->rms_change_tol))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "rms_change_tol", "must be >= 0");
    if (!finite_nonnegative(o->max_change_tol))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "max_change_tol", "must be >= 0");
    if (!finite_nonnegative(o->norm_change_tol))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "norm_change_tol", "must be >= 0");
    if (o->nonlinear_blocks < 0)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "nonlinear_blocks", "negative");
    if (!isfinite(o->relpar) || o->relpar < 0.0 || o->relpar >= 2.0)
        return reject(msg, size, DG_ERR_BAD_OMEGA, "relpar", "must be 0 (adaptive) or in (0, 2)");
    if (!isfinite(o->qfact))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "qfact", "not finite");
    if (o->divergence_checks < 1)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "divergence_checks", "must be >= 1");
    if (!isfinite(o->divergence_factor) || o->divergence_factor <= 1.0)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "divergence_factor", "must be > 1");
    if (o->solver != DG_SOLVER_SOR && o->solver != DG_SOLVER_MULTIGRID &&
        o->solver != DG_SOLVER_AUTO)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "solver",
                      "must be SOR, MULTIGRID or AUTO");
    if (o->nonlinear_method != DG_NONLINEAR_DELPHI && o->nonlinear_method != DG_NONLINEAR_NEWTON)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "nonlinear_method",
                      "must be DELPHI or NEWTON");
    if (o->nonlinear_term < DG_NONLINEAR_TERM_AUTO || o->nonlinear_term > DG_NONLINEAR_TERM_EXACT)
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "nonlinear_term",
                      "must be AUTO, POLYNOMIAL or EXACT");
    /* Accepted by the layout, not yet by this version: */
    if (o->nonlinear_method == DG_NONLINEAR_DELPHI && o->nonlinear_term == DG_NONLINEAR_TERM_EXACT)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "nonlinear_term",
                      "EXACT needs nonlinear_method NEWTON (DelPhi's scheme uses its polynomial)");
#ifndef DG_MPI
    if (o->mpi_comm)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "mpi_comm",
                      "this build has no MPI support (configure with -DDG_MPI=ON)");
#endif
    /* Split over MPI ranks: DelPhi's SOR (linear and its nonlinear scheme), float or double. */
    if (o->mpi_comm && o->solver == DG_SOLVER_MULTIGRID)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "mpi_comm",
                      "the multigrid solver runs on one process; use solver SOR with MPI");
    if (o->equation == DG_EQUATION_NONLINEAR_PB && o->nonlinear_method == DG_NONLINEAR_NEWTON &&
        o->precision == DG_PRECISION_MIXED)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "precision",
                      "MIXED is not available with nonlinear_method NEWTON (its residual is "
                      "already in double; use DOUBLE or FLOAT)");
    if (o->mpi_comm && o->precision == DG_PRECISION_MIXED)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "mpi_comm",
                      "mixed precision runs on one process; use FLOAT or DOUBLE with MPI");
    if (o->periodic < 0 || o->periodic > (DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z))
        return reject(msg, size, DG_ERR_INVALID_ARGUMENT, "periodic",
                      "must be a combination of DG_PERIODIC_X, _Y and _Z (0..7)");
    /* Periodic boundaries: the SOR's sweeps wrap the faces (Newton's steps by the SOR too), and
       so do multigrid's levels (docs/MULTIGRID.md). */
    /* The ranks split z: a periodic z would wrap across them; x and y wrap within each plane. */
    if ((o->periodic & DG_PERIODIC_Z) && o->mpi_comm)
        return reject(msg, size, DG_ERR_UNSUPPORTED, "periodic",
                      "a periodic z runs on one process (mpi_comm must be NULL): the MPI ranks "
                      "split the grid along z; x and y may be periodic with mpi_comm");
    return DG_OK;
}
