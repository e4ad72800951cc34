/* The CUDA backend behind backend.h: device selection, the ops table, and the extra entry
 * points of cuda_backend.h.  Every operation first makes the handle's device current, since a
 * handle may be used from different host threads (one at a time). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.cuh"

static int use_device(dg_cuda_state *st, dg_error *err) {
    DG_CUDA_TRY(cudaSetDevice(st->device), "cudaSetDevice");
    return DG_OK;
}

static void cuda_destroy(void *state) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    if (!st) return;
    cudaSetDevice(st->device);
    if (st->stream) cudaStreamSynchronize(st->stream);
    dg_cuda_peer_close_all(st);
    dg_cuda_free_medium(st);
    dg_cuda_free_mg_workspace(st);
    dg_cuda_free_sample(st);
    for (size_t i = 0; i < sizeof st->tuner.event / sizeof st->tuner.event[0]; ++i)
        if (st->tuner.event[i]) cudaEventDestroy(st->tuner.event[i]);
    cudaFree(st->result_device);
    cudaFree(st->sample_max);
    cudaFreeHost(st->result_host);
    dg_cuda_free_pinned(st);
    if (st->stream) cudaStreamDestroy(st->stream);
    free(st);
}

/* ---- start-up in the background (dg_cuda_begin_start) ---------------------------------------
   One thread queries the devices and creates the primary context of the requested device (the
   part of CUDA's start-up that costs most), while the caller goes on with its own set-up.  Its
   result is only a warm-up: the later calls on the caller's thread check everything again and
   report any failure themselves.  The state is guarded by a mutex; join happens once. */
enum { START_NONE, START_RUNNING, START_JOINED };
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t start_thread;
static int start_state = START_NONE;
static int start_device = 0;

static void *start_main(void *unused) {
    (void)unused;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && start_device < count &&
        cudaSetDevice(start_device) == cudaSuccess)
        (void)cudaFree(0); /* creates the primary context; failures are met again later */
    return NULL;
}

extern "C" int dg_cuda_begin_start(int device, dg_error *err) {
    if (device < 0)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "device = %d: must be >= 0", device);
    int status = DG_OK;
    pthread_mutex_lock(&start_lock);
    if (start_state == START_NONE) {
        start_device = device;
        int code = pthread_create(&start_thread, NULL, start_main, NULL);
        if (code == 0)
            start_state = START_RUNNING;
        else
            status = dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                                  "pthread_create for the CUDA start-up failed (error %d)", code);
    }
    pthread_mutex_unlock(&start_lock);
    return status;
}

extern "C" void dg_cuda_wait_start(void) {
    pthread_mutex_lock(&start_lock);
    if (start_state == START_RUNNING) {
        pthread_join(start_thread, NULL);
        start_state = START_JOINED;
    }
    pthread_mutex_unlock(&start_lock);
}

static int open_device(dg_cuda_state *st, const dg_backend_config *config, dg_error *err) {
    dg_cuda_wait_start();
    int count = 0;
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess)
        return dg_error_set(err, DG_ERR_NO_DEVICE, "no usable CUDA device: %s (%s)",
                            cudaGetErrorString(code), cudaGetErrorName(code));
    if (config->device < 0 || config->device >= count)
        return dg_error_set(err, DG_ERR_NO_DEVICE,
                            "CUDA device %d requested (options.device) but %d device(s) present",
                            config->device, count);
    st->device = config->device;
    code = cudaSetDevice(st->device);
    if (code == cudaSuccess) code = cudaFree(0); /* create the context now */
    if (code != cudaSuccess)
        return dg_error_set(err, DG_ERR_NO_DEVICE, "CUDA device %d cannot be used: %s (%s)",
                            st->device, cudaGetErrorString(code), cudaGetErrorName(code));
    cudaDeviceProp prop;
    DG_CUDA_TRY(cudaGetDeviceProperties(&prop, st->device), "cudaGetDeviceProperties");
    snprintf(st->device_name, sizeof st->device_name, "%s", prop.name);
    st->sm_count = prop.multiProcessorCount;
    DG_CUDA_TRY(cudaDeviceGetAttribute(&st->max_texture_linear, cudaDevAttrMaxTexture1DLinearWidth,
                                       st->device),
                "cudaDeviceGetAttribute (1D texture width)");
    int status = dg_cuda_probe_kernels(err);
    if (status != DG_OK)
        return dg_error_set(err, DG_ERR_NO_DEVICE,
                            "CUDA device %d (%s, compute capability %d.%d) cannot run this "
                            "build's kernels (built for CMAKE_CUDA_ARCHITECTURES; rebuild for "
                            "this GPU): %s",
                            st->device, st->device_name, prop.major, prop.minor, err->message);
    return DG_OK;
}

static int cuda_create(void **state, const dg_backend_config *config, dg_error *err) {
    *state = NULL;
    /* Plain C allocation: the backend needs no C++ runtime, so C programs link it as they are. */
    dg_cuda_state *st = static_cast<dg_cuda_state *>(calloc(1, sizeof(dg_cuda_state)));
    if (!st) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (CUDA backend state)");
    st->config = *config;
    st->mixed = config->precision == DG_PRECISION_MIXED; /* float sweeps, cuda_refine.cu */
    st->refine_sweeps = DG_REFINE_SWEEPS;                /* until set_omega */
    st->is_float = config->precision == DG_PRECISION_FLOAT || st->mixed;
    st->es = st->is_float ? sizeof(float) : sizeof(double);
    st->sparse_reader = DG_CUDA_READER_LDG;
    st->depth = DG_CUDA_DEFAULT_DEPTH;
    st->planes = 1;
    st->width = 1;
    int status = open_device(st, config, err);
    if (status == DG_OK) {
        cudaError_t code = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking);
        if (code == cudaSuccess) code = cudaMalloc(&st->result_device, sizeof(dg_cuda_partial));
        if (code == cudaSuccess) code = cudaMallocHost(&st->result_host, sizeof(dg_cuda_partial));
        if (code != cudaSuccess) status = dg_cuda_fail(err, code, "backend set-up");
    }
    if (status != DG_OK) {
        cuda_destroy(st);
        return status;
    }
    *state = st;
    return DG_OK;
}

static int cuda_set_medium(void *state, const dg_prepared *prep, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err);
    if (status == DG_OK) status = dg_cuda_set_medium(st, prep, err);
    if (status == DG_OK && st->mixed) {
        status = dg_cuda_refine_alloc(st, err);
        if (status != DG_OK) dg_cuda_free_medium(st);
    }
    return status;
}

static int require_medium(const dg_cuda_state *st, dg_error *err) {
    if (!st->has_medium) return dg_error_set(err, DG_ERR_STATE, "CUDA backend: no medium set");
    return DG_OK;
}

static int cuda_load_phi(void *state, const void *phi, int is_double, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status == DG_OK) status = dg_cuda_load_phi(st, phi, is_double, err);
    if (status == DG_OK && st->mixed) status = dg_cuda_refine_after_load(st, err);
    return status;
}

static int cuda_load_phi_faces(void *state, const void *phi, int is_double, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status == DG_OK) status = dg_cuda_load_phi_faces(st, phi, is_double, err);
    if (status == DG_OK && st->mixed) status = dg_cuda_refine_after_load(st, err);
    return status;
}

static int cuda_store_phi(void *state, void *phi, int is_double, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status == DG_OK && st->mixed) status = dg_cuda_refine_fold(st, err);
    return status != DG_OK ? status : dg_cuda_store_phi(st, phi, is_double, err);
}

static int cuda_set_omega(void *state, double omega, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status != DG_OK) return status;
    st->omega = omega;
    st->refine_sweeps = dg_refine_sweeps(omega, st->has_salt);
    return dg_cuda_launch_rescale(st, err);
}

static int cuda_iterate(void *state, int count, int measure, int stride, dg_change *change,
                        dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status != DG_OK) return status;
    if (count < 1 || (measure && (stride < 1 || !change)))
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CUDA backend: iterate(count %d, stride %d)", count, stride);
    /* A fold due after the last block runs here, in one pass with the residual that follows it
       (the CPU backend folds at the end of that block: the same values). */
    if (status == DG_OK && st->mixed && st->refine_pending >= st->refine_sweeps)
        status = dg_cuda_refine_fold_residual(st, err);
    else if (status == DG_OK && st->mixed && st->refine_pending == 0)
        status = dg_cuda_refine_residual(st, err);
    /* Periodic axes: the seam steps change colour-1 points after their sweep measured them, so
       the sample is compared with a snapshot taken before the last iteration, as on the CPU. */
    const int by_snapshot = measure && st->periodic;
    const long samples = st->half_count[1] >= 2 ? (long)(st->half_count[1] - 2) / stride + 1 : 0;
    for (int i = 0; i < count && status == DG_OK; ++i) {
        const int measured = measure && i == count - 1;
        /* the autotune times steady iterations only, unless a block has no other */
        const int timeable = count <= 2 || (i > 0 && !measured);
        if (measured && by_snapshot)
            status = dg_cuda_sample_change(st, 1, 1, stride, samples, 1, NULL, err);
        if (status == DG_OK)
            status = dg_cuda_tuned_iteration(st, measured && !by_snapshot, timeable, stride, err);
    }
    if (status == DG_OK && st->mixed) /* a fold every refine_sweeps or more */
        st->refine_pending += count;
    if (status == DG_OK && by_snapshot) {
        status = dg_cuda_sample_change(st, 1, 1, stride, samples, 0, change, err);
        change->max_value = 0.0;
        const int float_resolution = st->is_float && !st->mixed;
        if (status == DG_OK && float_resolution) /* float's resolution scale */
            status = dg_cuda_sample_max_launch(st, stride, err);
        if (status == DG_OK && float_resolution)
            status = dg_cuda_sample_max_read(st, &change->max_value, err);
    } else if (status == DG_OK && measure) {
        status = dg_cuda_finish_measure(st, change, err);
    }
    return status;
}

static int cuda_update_nonlinear_source(void *state, double fraction, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status != DG_OK) return status;
    if (!st->has_salt)
        return dg_error_set(err, DG_ERR_STATE,
                            "CUDA backend: nonlinear source needs a medium with salt");
    if (st->mixed)
        status = dg_cuda_refine_nonlinear_source(st, fraction, err);
    else
        status = dg_cuda_alloc_qmap(st, err);
    if (status == DG_OK && !st->mixed) status = dg_cuda_launch_nonlinear_source(st, fraction, err);
    if (status == DG_OK) st->nonlinear_active = 1;
    return status;
}

static int cuda_face_potentials(void *state, const dg_face_request *request, double *out,
                                dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status : dg_cuda_face_potentials(st, request, out, err);
}

static int cuda_iterate_colour(void *state, int colour, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status != DG_OK) return status;
    if (colour < 0 || colour > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CUDA backend: colour %d", colour);
    return dg_cuda_launch_colour(st, colour, err);
}

static int cuda_plane_values(void *state, int z, int colour, void *buf, int to_backend,
                             dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    return status != DG_OK ? status : dg_cuda_plane_values(st, z, colour, buf, to_backend, err);
}

static int cuda_sample_change(void *state, int colour, long first, long stride, long count,
                              int snapshot, dg_change *change, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    return status != DG_OK
               ? status
               : dg_cuda_sample_change(st, colour, first, stride, count, snapshot, change, err);
}

static int cuda_pair_potentials(void *state, const dg_pair_request *request, double *out,
                                long *skipped, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status : dg_cuda_pair_potentials(st, request, out, skipped, err);
}

static int cuda_pair_fields(void *state, const dg_pair_request *request, double *out, long *skipped,
                            dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status : dg_cuda_pair_fields(st, request, out, skipped, err);
}

static int cuda_medium_maps(void *state, const dg_surface_request *request, unsigned char *face[3],
                            unsigned char *ion, dg_medium_counts *counts, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status : dg_cuda_medium_maps(st, request, face, ion, counts, err);
}

static int cuda_surface_sites(void *state, const dg_surface_request *request, const double *points,
                              long count, double reach, double *sites, int *owners,
                              long *unprojected, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status
                           : dg_cuda_surface_sites(st, request, points, count, reach, sites, owners,
                                                   unprojected, err);
}

static int cuda_arc_dots(void *state, const dg_arc_dots_request *request, int *counts,
                         double **dots, long *total, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err); /* needs no medium */
    return status != DG_OK ? status : dg_cuda_arc_dots(st, request, counts, dots, total, err);
}

static double cuda_store_wait_seconds(void *state) {
    return static_cast<const dg_cuda_state *>(state)->store_wait_seconds;
}

static int cuda_spectral_radius(void *state, const dg_prepared *prep, double *out, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    return status != DG_OK ? status : dg_cuda_spectral_radius(st, prep, out, err);
}

static int cuda_peer_export(void *state, unsigned char *handle, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    return status != DG_OK ? status : dg_cuda_peer_export(st, handle, err);
}

static int cuda_peer_open(void *state, int slot, const unsigned char *handle, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err);
    return status != DG_OK ? status : dg_cuda_peer_open(st, slot, handle, err);
}

static int cuda_peer_pull(void *state, int slot, int peer_colour, long peer_first, int colour,
                          long first, long count, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    return status != DG_OK
               ? status
               : dg_cuda_peer_pull(st, slot, peer_colour, peer_first, colour, first, count, err);
}

static int cuda_finish(void *state, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    int status = use_device(st, err);
    if (status != DG_OK) return status;
    DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "the queued work (cudaStreamSynchronize)");
    return DG_OK;
}

static int cuda_tune(void *state, int *ran, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    *ran = 0;
    int status = require_medium(st, err);
    if (status == DG_OK) status = use_device(st, err);
    if (status != DG_OK || !st->tuner.active) return status;
    /* every slot of both rounds and a warm-up before each: well within this bound */
    for (int i = 0; i < 2 * DG_CUDA_TUNE_SLOTS + 4 && st->tuner.active && status == DG_OK; ++i)
        status = dg_cuda_tuned_iteration(st, 0, 1, 1, err);
    *ran = 1;
    if (status == DG_OK && st->tuner.active)
        return dg_error_set(err, DG_ERR_INTERNAL, "CUDA backend: the autotune did not finish");
    return status;
}

static const dg_backend_ops cuda_ops = {
    "cuda",
    cuda_create,
    cuda_destroy,
    cuda_set_medium,
    cuda_load_phi,
    cuda_store_phi,
    cuda_set_omega,
    cuda_iterate,
    cuda_update_nonlinear_source,
    cuda_face_potentials,
    cuda_iterate_colour,
    cuda_plane_values,
    cuda_sample_change,
    cuda_pair_potentials,
    cuda_medium_maps,
    cuda_surface_sites,
    cuda_load_phi_faces,
    cuda_store_wait_seconds,
    cuda_spectral_radius,
    cuda_peer_export,
    cuda_peer_open,
    cuda_peer_pull,
    cuda_finish,
    cuda_tune,
    cuda_arc_dots,
    cuda_pair_fields,
};

extern "C" const dg_backend_ops *dg_cuda_backend(void) {
    return &cuda_ops;
}

extern "C" int dg_cuda_count_devices(int *count, dg_error *err) {
    dg_cuda_wait_start();
    *count = 0;
    cudaError_t code = cudaGetDeviceCount(count);
    if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver) {
        /* No GPU or no driver: 0 devices, not an error; the reason stays in the message. */
        *count = 0;
        if (err) {
            err->status = DG_OK;
            /* Said plainly: on a machine without a GPU this is the expected state. */
            snprintf(err->message, sizeof err->message, "%s (%s)",
                     code == cudaErrorNoDevice
                         ? "the driver reports no device"
                         : "no NVIDIA driver is loaded, or it is older than this CUDA runtime",
                     cudaGetErrorName(code));
        }
        return DG_OK;
    }
    if (code != cudaSuccess) {
        *count = 0;
        return dg_cuda_fail(err, code, "cudaGetDeviceCount");
    }
    return DG_OK;
}

/* ---- cuda_backend.h ------------------------------------------------------------------------ */

extern "C" int dg_cuda_get_info(void *state, dg_cuda_info *info, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    memset(info, 0, sizeof *info);
    int status = use_device(st, err);
    if (status != DG_OK) return status;
    size_t free_bytes = 0, total_bytes = 0;
    DG_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    snprintf(info->device_name, sizeof info->device_name, "%s", st->device_name);
    info->device = st->device;
    info->sm_count = st->sm_count;
    info->free_mib = free_bytes / 1048576.0, info->total_mib = total_bytes / 1048576.0;
    info->medium_mib = st->medium_bytes / 1048576.0;
    info->block_x = st->shape.bx, info->block_y = st->shape.by, info->zchunks = st->shape.zchunks;
    info->depth = st->shape.depth;
    info->planes = st->shape.planes;
    info->width = st->shape.width;
    info->segments = st->shape.segments;
    info->autotuned = st->shape_from_autotune;
    info->tuning = st->tuner.active;
    info->sparse_reader = st->sparse_reader;
    if (st->tuner.tuned_nx) {
        info->tune_count = st->tuner.count < DG_CUDA_TUNE_MAX ? st->tuner.count : DG_CUDA_TUNE_MAX;
        for (int i = 0; i < info->tune_count; ++i) {
            info->tune_bx[i] = st->tuner.candidate[i].bx;
            info->tune_by[i] = st->tuner.candidate[i].by;
            info->tune_depth[i] = st->tuner.candidate[i].depth;
            info->tune_planes[i] = st->tuner.candidate[i].planes;
            info->tune_width[i] = st->tuner.candidate[i].width;
            info->tune_segments[i] = st->tuner.candidate[i].segments;
            info->tune_ms[i] = st->tuner.ms[i];
        }
    }
    return DG_OK;
}

extern "C" int dg_cuda_set_sparse_reader(void *state, int reader, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    if (reader != DG_CUDA_READER_LDG && reader != DG_CUDA_READER_TEXTURE)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "unknown sparse reader %d", reader);
    if (reader == DG_CUDA_READER_TEXTURE)
        for (int c = 0; c < 2; ++c)
            if (st->sparse[c].total_count > 0 && !st->sparse[c].tex_index)
                return dg_error_set(err, DG_ERR_UNSUPPORTED,
                                    "the lists (%d entries) exceed a 1D texture (%d elements)",
                                    st->sparse[c].total_count, st->max_texture_linear);
    st->sparse_reader = reader;
    return DG_OK;
}

/* Sweep kernels with depth, planes per barrier and pairs per thread: keep the block, refit the
   chunks. */
static int set_sweep_variant(dg_cuda_state *st, int depth, int planes, int width, int segments,
                             dg_error *err) {
    const int most = planes == 2 || width == 4 ? 2 : DG_CUDA_MAX_DEPTH;
    if (depth < 1 || depth > most)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "prefetch depth %d with %d plane(s) per barrier and %d pair(s) per "
                            "thread (1..%d)",
                            depth, planes, width, most);
    if (width > 1 && !st->is_float)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "%d pairs per thread: float and mixed precision only", width);
    if (width > 1 && planes != 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "%d pairs per thread with %d planes per barrier (1 plane only)", width,
                            planes);
    int status = use_device(st, err);
    if (status != DG_OK) return status;
    st->depth = depth, st->planes = planes, st->width = width, st->segments = segments;
    st->sweep_forced = 1;
    if (!st->has_medium) return DG_OK;
    status = dg_cuda_make_shape(st, st->shape.bx, st->shape.by, &st->shape, err);
    st->tuner.active = 0; /* a tuner still running would mix variants: stop it */
    return status;
}

extern "C" int dg_cuda_set_prefetch_depth(void *state, int depth, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    return set_sweep_variant(st, depth, st->planes, st->width, st->segments, err);
}

extern "C" int dg_cuda_set_planes_per_barrier(void *state, int planes, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    if (planes != 1 && planes != 2)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "%d planes per barrier (1 or 2)", planes);
    return set_sweep_variant(st, st->depth, planes, st->width, st->segments, err);
}

extern "C" int dg_cuda_set_pairs_per_thread(void *state, int width, int segments, dg_error *err) {
    dg_cuda_state *st = static_cast<dg_cuda_state *>(state);
    if (width != 1 && width != 2 && width != 4)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "%d pairs per thread (1, 2 or 4)", width);
    if (segments != 0 && segments != 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "pairs layout %d (0 or 1)", segments);
    return set_sweep_variant(st, st->depth, st->planes, width, segments, err);
}

extern "C" int dg_cuda_copy_bandwidth(int device, size_t bytes, int repeats, double *gb_per_s,
                                      dg_error *err) {
    *gb_per_s = 0.0;
    DG_CUDA_TRY(cudaSetDevice(device), "cudaSetDevice");
    void *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t code = cudaMalloc(&a, bytes);
    if (code == cudaSuccess) code = cudaMalloc(&b, bytes);
    if (code == cudaSuccess) code = cudaMemset(a, 1, bytes);
    if (code == cudaSuccess) code = cudaEventCreate(&start);
    if (code == cudaSuccess) code = cudaEventCreate(&stop);
    if (code == cudaSuccess) code = cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); /* warm */
    if (code == cudaSuccess) code = cudaEventRecord(start);
    for (int i = 0; i < repeats && code == cudaSuccess; ++i)
        code = cudaMemcpy(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice);
    if (code == cudaSuccess) code = cudaEventRecord(stop);
    if (code == cudaSuccess) code = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (code == cudaSuccess) code = cudaEventElapsedTime(&ms, start, stop);
    if (code == cudaSuccess && ms > 0.0f) *gb_per_s = 2.0 * bytes * repeats / (ms * 1e-3) / 1e9;
    cudaFree(a), cudaFree(b);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    return code == cudaSuccess ? DG_OK : dg_cuda_fail(err, code, "copy bandwidth measurement");
}
