/* The solver handle: creation with backend selection, options, errors, medium installation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver_internal.h"

int dg_backend_built(int backend) {
    if (backend == DG_BACKEND_CPU) return 1;
    if (backend == DG_BACKEND_CUDA) return dg_cuda_backend() != NULL;
    return 0;
}

int dg_cuda_device_count(int *count) {
    if (!count) return DG_ERR_INVALID_ARGUMENT;
    *count = 0;
    dg_error err = {0};
    int st = dg_cuda_count_devices(count, &err);
    if (st != DG_OK) *count = 0;
    return st;
}

int dg_begin_cuda_start(int device) {
    dg_error err = {0};
    return dg_cuda_begin_start(device, &err);
}

void dg_wait_cuda_start(void) {
    dg_cuda_wait_start();
}

/* Start the CUDA backend on the requested device; err says why not. */
static int start_cuda(dg_solver s, dg_error *err) {
    const dg_backend_ops *ops = dg_cuda_backend();
    if (!ops)
        return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                            "this library was not built with CUDA (configure with -DGPU=ON)");
    int count = 0;
    int st = dg_cuda_count_devices(&count, err);
    if (st != DG_OK) return st;
    if (count == 0) { /* the runtime's reason, if it gave one, is in err->message */
        char reason[sizeof err->message];
        snprintf(reason, sizeof reason, "%s", err->message);
        return dg_error_set(err, DG_ERR_NO_DEVICE, "no CUDA-capable device is available%s%s",
                            reason[0] ? ": " : "", reason);
    }
    if (s->options.device >= count)
        return dg_error_set(err, DG_ERR_NO_DEVICE,
                            "CUDA device %d requested but only %d device(s) available",
                            s->options.device, count);
    dg_backend_config config = {s->options.precision, s->options.device,  s->options.num_threads,
                                s->options.block_x,   s->options.block_y, s->options.autotune};
    st = ops->create(&s->backend_state, &config, err);
    if (st != DG_OK) return st;
    s->backend = ops;
    return DG_OK;
}

static int start_cpu(dg_solver s, dg_error *err) {
    dg_backend_config config = {s->options.precision, s->options.device,  s->options.num_threads,
                                s->options.block_x,   s->options.block_y, s->options.autotune};
    int st = dg_cpu_backend_ops.create(&s->backend_state, &config, err);
    if (st != DG_OK) return st;
    s->backend = &dg_cpu_backend_ops;
    return DG_OK;
}

static int start_backend(dg_solver s);

int dg_create(dg_solver *solver, const dg_options *options) {
    if (!solver) return DG_ERR_INVALID_ARGUMENT;
    *solver = NULL;
    dg_solver s = calloc(1, sizeof *s);
    if (!s) return DG_ERR_OUT_OF_MEMORY;
    *solver = s;
    s->spectral_radius_cache = -1.0;
    if (options)
        s->options = *options;
    else
        dg_default_options(&s->options);

    int st = start_backend(s);
#ifdef DG_MPI
    /* dg_create is collective with mpi_comm: a rank that failed (say, no GPU on its node) fails
       every rank's call instead of leaving them waiting in the wrap's MPI_Comm_dup */
    if (s->options.mpi_comm) st = dg_mpi_agree_create(s, st);
#endif
    if (st != DG_OK) return st;
#ifdef DG_MPI
    dg_error err = {0};
    if (s->options.mpi_comm && (st = dg_mpi_wrap(s, &err)) != DG_OK)
        return dg_fail(s, st, "%s", err.message);
#endif
    return DG_OK;
}

/* The options checked and the backend started (dg_create); a failure is recorded on s. */
static int start_backend(dg_solver s) {
    int st = dg_validate_options(&s->options, s->error.message, sizeof s->error.message);
    if (st != DG_OK) return s->error.status = st;

    dg_error err = {0};
    switch (s->options.backend) {
    case DG_BACKEND_CPU:
        st = start_cpu(s, &err);
        break;
    case DG_BACKEND_CUDA:
        st = start_cuda(s, &err);
        if (st != DG_OK)
            return dg_fail(s, st, "CUDA backend requested but cannot be used: %s", err.message);
        break;
    default: /* AUTO: the GPU when one works, else the CPU with a notice */
        st = start_cuda(s, &err);
        if (st != DG_OK) {
            snprintf(s->notice, sizeof s->notice, "no usable GPU (%s); using the CPU backend",
                     err.message);
            st = start_cpu(s, &err);
        }
    }
    if (st != DG_OK) return dg_fail(s, st, "%s", err.message);
    s->options.backend = s->backend == &dg_cpu_backend_ops ? DG_BACKEND_CPU : DG_BACKEND_CUDA;
    return DG_OK;
}

int dg_reject_reentry(dg_solver s, const char *call) {
    if (!s->in_solve) return DG_OK;
    return dg_fail(s, DG_ERR_STATE,
                   "%s called on a solver that is inside dg_solve (from its progress callback); "
                   "the running solve is not changed",
                   call);
}

void dg_destroy(dg_solver s) {
    if (!s) return;
    /* Destroying the handle from its own progress callback would free what the solve uses:
       refused, recorded as the last error; the caller destroys it after dg_solve returns. */
    if (dg_reject_reentry(s, "dg_destroy") != DG_OK) return;
    if (s->backend && s->backend_state) s->backend->destroy(s->backend_state);
    dg_prepared_free(&s->prep);
    for (int w = 0; w < 2; ++w)
        free(s->mark_scratch[w][0]), free(s->mark_scratch[w][1]);
    free(s);
}

void dg_solver_backend(dg_solver s, const dg_backend_ops **ops, void **state) {
    *ops = s ? s->backend : NULL;
    *state = s ? s->backend_state : NULL;
}

const char *dg_last_error(dg_solver s) {
    if (!s) return "no solver handle (NULL, or dg_create could not allocate it)";
    if (s->error.status != DG_OK && s->error.message[0] == '\0')
        return dg_status_string(s->error.status);
    return s->error.message;
}

const char *dg_notice(dg_solver s) {
    return s ? s->notice : "";
}

int dg_set_options(dg_solver s, const dg_options *options) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    if (dg_reject_reentry(s, "dg_set_options") != DG_OK) return DG_ERR_STATE;
    dg_clear_error(s);
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    if (!options) return dg_fail(s, DG_ERR_INVALID_ARGUMENT, "options is NULL");
    int st = dg_validate_options(options, s->error.message, sizeof s->error.message);
    if (st != DG_OK) return s->error.status = st;
    const dg_options *o = &s->options;
    if ((options->backend != DG_BACKEND_AUTO && options->backend != o->backend) ||
        options->precision != o->precision || options->device != o->device ||
        options->num_threads != o->num_threads || options->block_x != o->block_x ||
        options->block_y != o->block_y || options->autotune != o->autotune ||
        options->periodic != o->periodic)
        return dg_fail(s, DG_ERR_INVALID_ARGUMENT,
                       "dg_set_options cannot change backend, precision, device, num_threads, "
                       "block shape, autotune or periodic; create a new solver for that");
    int backend = o->backend;
    s->options = *options;
    s->options.backend = backend;
    return DG_OK;
}

int dg_get_options(dg_solver s, dg_options *options) {
    if (!s || !options) return DG_ERR_INVALID_ARGUMENT;
    *options = s->options;
    return DG_OK;
}

int dg_get_backend(dg_solver s, int *backend) {
    if (!s || !backend) return DG_ERR_INVALID_ARGUMENT;
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    *backend = s->options.backend;
    return DG_OK;
}

void dg_solver_get_timing(dg_solver s, dg_solver_timing *timing) {
    if (s)
        *timing = s->timing;
    else
        memset(timing, 0, sizeof *timing);
}

int dg_install_medium(dg_solver s, dg_prepared *prep) {
    const double start = dg_wall_seconds();
    dg_prepared_free(&s->prep);
    s->prep = *prep;
    memset(prep, 0, sizeof *prep);
    s->prep.periodic = s->options.periodic;
    s->has_medium = 0;
    if (dg_prepared_build_seams(&s->prep) != DG_OK) {
        dg_prepared_free(&s->prep);
        return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "out of memory (the periodic seam lists)");
    }
    s->spectral_radius_cache = -1.0;
    dg_error err = {0};
    /* a decomposed handle: the ranks' set_medium is collective, so first agree that every rank
       got this far */
    int st = dg_mpi_entry_agree(s, DG_OK, "set its medium");
    if (st != DG_OK) {
        dg_prepared_free(&s->prep);
        return st;
    }
    st = s->backend->set_medium(s->backend_state, &s->prep, &err);
    if (st != DG_OK) {
        dg_prepared_free(&s->prep);
        return dg_fail(s, st, "%s backend could not take the medium: %s", s->backend->name,
                       err.message);
    }
    s->has_medium = 1;
    s->timing.upload = dg_wall_seconds() - start;
    return DG_OK;
}

#ifndef DG_MPI
int dg_mpi_agree_status(dg_solver s, int status, const char *what) {
    (void)s, (void)what;
    return status;
}
void dg_mpi_entry_begin(dg_solver s) {
    (void)s;
}
int dg_mpi_entry_agree(dg_solver s, int status, const char *what) {
    (void)s, (void)what;
    return status;
}
int dg_mpi_any(dg_solver s, int flag) {
    (void)s;
    return flag;
}
int dg_mpi_same_setup(dg_solver s) {
    (void)s;
    return DG_OK;
}
int dg_mpi_rank(dg_solver s) {
    (void)s;
    return 0;
}
#endif

int dg_cached_spectral_radius(dg_solver s, double *spectral_radius) {
    if (s->spectral_radius_cache < 0.0) {
        double spec = 0.0;
        int on_backend = DG_ERR_UNSUPPORTED, st = DG_OK;
        if (s->backend->spectral_radius) {
            dg_error err = {0};
            on_backend = s->backend->spectral_radius(s->backend_state, &s->prep, &spec, &err);
            if (on_backend != DG_OK && on_backend != DG_ERR_UNSUPPORTED)
                st = dg_fail(s, on_backend, "%s backend could not estimate the spectral radius: %s",
                             s->backend->name, err.message);
        }
        /* a decomposed handle relaxes with rank 0's estimate: the other ranks leave rank 0
           their host's cores instead of computing the same number beside it */
        if (st == DG_OK && on_backend != DG_OK && dg_mpi_rank(s) == 0 &&
            dg_spectral_radius(&s->prep, s->options.num_threads, &spec) != DG_OK)
            st = dg_fail(s, DG_ERR_OUT_OF_MEMORY,
                         "out of host memory estimating the spectral radius (%.1f GB needed)",
                         4.0 * s->prep.point_count / 1e9);
        /* a decomposed handle: every rank learns of a failure, then relaxes with rank 0's factor */
        st = dg_mpi_agree_status(s, st, "estimate the spectral radius");
        if (st != DG_OK) return st;
#ifdef DG_MPI
        dg_mpi_agree_double(s, &spec);
#endif
        s->spectral_radius_cache = spec;
    }
    *spectral_radius = s->spectral_radius_cache;
    return DG_OK;
}

int dg_check_grid(dg_solver s, long nx, long ny, long nz) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    dg_clear_error(s);
    if (!s->has_medium) return dg_fail(s, DG_ERR_STATE, "no medium set (dg_set_*_medium first)");
    const dg_prepared *p = &s->prep;
    if (nx != p->nx || ny != p->ny || nz != p->nz)
        return dg_fail(s, DG_ERR_COUNT_MISMATCH,
                       "phi is %ld x %ld x %ld but the medium's grid is %d x %d x %d", nx, ny, nz,
                       p->nx, p->ny, p->nz);
    return DG_OK;
}

int dg_estimate_spectral_radius(dg_solver s, double *spectral_radius) {
    if (!s || !spectral_radius) return DG_ERR_INVALID_ARGUMENT;
    if (dg_reject_reentry(s, "dg_estimate_spectral_radius") != DG_OK) return DG_ERR_STATE;
    dg_clear_error(s);
    if (!s->has_medium) return dg_fail(s, DG_ERR_STATE, "no medium set (dg_set_*_medium first)");
    return dg_cached_spectral_radius(s, spectral_radius);
}
