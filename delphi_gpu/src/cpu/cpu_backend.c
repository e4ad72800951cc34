/* CPU backend: the half grids in host memory, sweeps parallel with OpenMP.
 * Every update within a colour reads only the other colour, so the sweeps are bitwise
 * independent of the thread count; reductions use fixed chunks summed in a fixed order. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../transfer_host.h"
#include "cpu_refine.h"
#include "cpu_view.h"
#include "delphi_gpu/delphi_gpu_types.h"

#define SAMPLE_CHUNK 4096 /* samples per partial sum of the convergence reduction */
/* Below this many points a loop runs on one thread: the fork/join would cost more. */
#define DG_CPU_PARALLEL_MIN 32768

typedef struct cpu_state {
    dg_backend_config config;
    int threads;
    const dg_prepared *prep;
    long offsets[2][6];
    double omega;
    int nonlinear_active; /* the lagged source is non-zero since the last load_phi */
    size_t element_size;  /* sizeof(float) or sizeof(double) */
    void *phi[2];         /* half grids, working precision */
    void *qmap[2];        /* nonlinear source (allocated on first use) */
    void *snapshot;       /* convergence sample before the last iteration */
    void *sample;         /* sample_change's snapshot (allocated on first use) */
    long sample_capacity;
    void *weight[2]; /* omega-scaled boundary weights */
    void *source[2]; /* omega-scaled charge sources */
    void *seam[2];   /* omega-scaled seam coefficients (periodic axes, prepared.h) */
    double *chunk_max, *chunk_sum;
    double *chunk_value; /* max |value| per chunk (float precision's resolution) */
    int *chunk_finite;
    /* Mixed precision: phi holds the float correction, refine the double iterate. */
    int mixed;
    dg_rhs16 *rhs[2];   /* the correction sweeps' right-hand side (refine.rhs), else NULL */
    int refine_pending; /* iterations since the last fold (0: the correction is zero) */
    int refine_sweeps;  /* fold after this many (dg_refine_sweeps, set with omega) */
    dg_cpu_refine refine;
} cpu_state;

static void free_arrays(cpu_state *st) {
    for (int c = 0; c < 2; ++c) {
        free(st->phi[c]), free(st->qmap[c]), free(st->weight[c]), free(st->source[c]);
        free(st->seam[c]);
        st->phi[c] = st->qmap[c] = st->weight[c] = st->source[c] = st->seam[c] = NULL;
    }
    free(st->sample), st->sample = NULL, st->sample_capacity = 0;
    free(st->snapshot), free(st->chunk_max), free(st->chunk_sum), free(st->chunk_finite);
    free(st->chunk_value);
    st->chunk_value = NULL;
    dg_cpu_refine_free(&st->refine);
    st->rhs[0] = st->rhs[1] = NULL;
    st->snapshot = NULL, st->chunk_max = st->chunk_sum = NULL, st->chunk_finite = NULL;
}

/* Convergence sample: even half grid at 1, 1+stride, ... */
static size_t sample_count(const dg_prepared *p, int stride) {
    return p->half_count[1] >= 2 ? (p->half_count[1] - 2) / (size_t)stride + 1 : 0;
}

#define DG_TEMPLATE "cpu/cpu_sweep_template.h" /* relative to for_each_precision.h */
#include "../for_each_precision.h"

/* Mixed precision sweeps float data. */
#define IS_FLOAT(st) ((st)->config.precision != DG_PRECISION_DOUBLE)

static int cpu_create(void **state, const dg_backend_config *config, dg_error *err) {
    cpu_state *st = calloc(1, sizeof *st);
    if (!st) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (CPU backend state)");
    st->config = *config;
    st->threads = config->num_threads > 0 ? config->num_threads : omp_get_max_threads();
    st->element_size = IS_FLOAT(st) ? sizeof(float) : sizeof(double);
    st->mixed = config->precision == DG_PRECISION_MIXED;
    st->refine_sweeps = DG_REFINE_SWEEPS; /* until set_omega */
    *state = st;
    return DG_OK;
}

static void cpu_destroy(void *state) {
    cpu_state *st = state;
    if (!st) return;
    free_arrays(st);
    free(st);
}

static int cpu_set_medium(void *state, const dg_prepared *prep, dg_error *err) {
    cpu_state *st = state;
    free_arrays(st);
    st->prep = prep;
    dg_neighbour_offsets(prep->nx, prep->ny, 0, st->offsets[0]);
    dg_neighbour_offsets(prep->nx, prep->ny, 1, st->offsets[1]);
    const size_t es = st->element_size;
    const size_t chunks = prep->half_count[1] / SAMPLE_CHUNK + 1;
    for (int c = 0; c < 2; ++c) {
        st->phi[c] = calloc(prep->half_count[c] + 1, es);
        st->weight[c] = malloc(((size_t)prep->boundary_count[c] * 6 + 1) * es);
        st->source[c] = malloc(((size_t)prep->charge_count[c] + 1) * es);
        st->seam[c] = malloc(((size_t)prep->seam_start[c][prep->seam_steps] * 3 + 1) * es);
        if (!st->phi[c] || !st->weight[c] || !st->source[c] || !st->seam[c]) goto out_of_memory;
    }
    st->snapshot = malloc((prep->half_count[1] + 1) * es);
    st->chunk_max = malloc(chunks * sizeof(double));
    st->chunk_sum = malloc(chunks * sizeof(double));
    st->chunk_finite = malloc(chunks * sizeof(int));
    st->chunk_value = malloc(chunks * sizeof(double));
    if (!st->snapshot || !st->chunk_max || !st->chunk_sum || !st->chunk_finite || !st->chunk_value)
        goto out_of_memory;
    if (st->mixed) {
        if (dg_cpu_refine_alloc(&st->refine, prep) != DG_OK) goto out_of_memory;
        st->rhs[0] = st->refine.rhs[0], st->rhs[1] = st->refine.rhs[1];
    }
    return IS_FLOAT(st) ? set_omega_f(st, 1.0) : set_omega_d(st, 1.0);
out_of_memory:
    free_arrays(st);
    return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                        "out of host memory for the half grids of a %d x %d x %d grid (%.1f GB)",
                        prep->nx, prep->ny, prep->nz, 3.0 * prep->point_count * es / 2.0 / 1e9);
}

/* Mixed precision, after load_phi: refinement from the loaded iterate (the float grids hold
   the correction, 0). */
static void begin_refinement(cpu_state *st) {
    float *const f[2] = {st->phi[0], st->phi[1]};
    dg_cpu_refine_zero_correction(st->prep, f);
    if (st->prep->periodic) dg_cpu_refine_wrap(&st->refine, st->prep);
    st->rhs[0] = st->refine.rhs[0], st->rhs[1] = st->refine.rhs[1];
    st->refine_pending = 0;
}

/* Mixed precision: phi_d += correction, correction = 0. */
static void fold_pending(cpu_state *st) {
    if (st->refine_pending == 0) return;
    float *const correction[2] = {st->phi[0], st->phi[1]};
    dg_cpu_refine_fold(&st->refine, st->prep, correction, st->threads);
    st->refine_pending = 0;
}

static int cpu_load_phi(void *state, const void *phi, int is_double, dg_error *err) {
    cpu_state *st = state;
    if (st->mixed) { /* the double iterate takes phi */
        dg_cpu_refine_load(&st->refine, st->prep, phi, is_double, st->threads);
        begin_refinement(st);
    } else if (IS_FLOAT(st))
        load_phi_f(st, phi, is_double);
    else
        load_phi_d(st, phi, is_double);
    st->nonlinear_active = 0;
    return DG_OK;
}

/* The same state as cpu_load_phi, reading only the faces (the interior of phi is +0.0). */
static int cpu_load_phi_faces(void *state, const void *phi, int is_double, dg_error *err) {
    (void)err;
    cpu_state *st = state;
    const dg_prepared *p = st->prep;
    if (st->mixed) { /* as cpu_load_phi */
        load_phi_faces_d(st->refine.phi, p, phi, is_double, st->threads);
        for (int c = 0; c < 2; ++c)
            if (st->refine.qmap[c])
                memset(st->refine.qmap[c], 0, (p->half_count[c] + 1) * sizeof(double));
        begin_refinement(st);
    } else {
        if (IS_FLOAT(st)) {
            float *half[2] = {st->phi[0], st->phi[1]};
            load_phi_faces_f(half, p, phi, is_double, st->threads);
        } else {
            double *half[2] = {st->phi[0], st->phi[1]};
            load_phi_faces_d(half, p, phi, is_double, st->threads);
        }
        for (int c = 0; c < 2; ++c)
            if (st->qmap[c]) memset(st->qmap[c], 0, (p->half_count[c] + 1) * st->element_size);
    }
    st->nonlinear_active = 0;
    return DG_OK;
}

static int cpu_store_phi(void *state, void *phi, int is_double, dg_error *err) {
    cpu_state *st = state;
    if (st->mixed) {
        fold_pending(st);
        dg_cpu_refine_store(&st->refine, st->prep, phi, is_double, st->threads);
    } else if (IS_FLOAT(st))
        store_phi_f(st, phi, is_double);
    else
        store_phi_d(st, phi, is_double);
    return DG_OK;
}

static int cpu_set_omega(void *state, double omega, dg_error *err) {
    cpu_state *st = state;
    st->refine_sweeps = dg_refine_sweeps(omega, st->prep && st->prep->has_salt);
    return IS_FLOAT(st) ? set_omega_f(st, omega) : set_omega_d(st, omega);
}

static int cpu_iterate(void *state, int count, int measure, int stride, dg_change *change,
                       dg_error *err) {
    cpu_state *st = state;
    if (st->mixed) { /* refinement: residual in double, float sweeps, fold */
        if (st->refine_pending == 0)
            dg_cpu_refine_residual(&st->refine, st->prep, st->nonlinear_active, st->threads);
        iterate_f(st, count, measure, stride, change);
        st->refine_pending += count;
        if (st->refine_pending >= st->refine_sweeps) fold_pending(st);
    } else if (IS_FLOAT(st))
        iterate_f(st, count, measure, stride, change);
    else
        iterate_d(st, count, measure, stride, change);
    return DG_OK;
}

static int cpu_update_nonlinear_source(void *state, double fraction, dg_error *err) {
    cpu_state *st = state;
    const dg_prepared *p = st->prep;
    if (st->mixed) { /* the source enters through the residual, from the double iterate */
        fold_pending(st);
        if (dg_cpu_refine_nonlinear_source(&st->refine, p, fraction, st->threads) != DG_OK)
            return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                                "out of host memory for the nonlinear source");
        st->nonlinear_active = 1;
        return DG_OK;
    }
    for (int c = 0; c < 2; ++c)
        if (!st->qmap[c] && !(st->qmap[c] = calloc(p->half_count[c] + 1, st->element_size)))
            return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                                "out of host memory for the nonlinear source");
    if (IS_FLOAT(st))
        nonlinear_source_f(st, fraction);
    else
        nonlinear_source_d(st, fraction);
    st->nonlinear_active = 1;
    return DG_OK;
}

static int cpu_face_potentials(void *state, const dg_face_request *request, double *out,
                               dg_error *err) {
    dg_face_potentials_host(request, out, ((cpu_state *)state)->threads);
    return DG_OK;
}

static int cpu_iterate_colour(void *state, int colour, dg_error *err) {
    cpu_state *st = state;
    if (colour < 0 || colour > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CPU backend: colour %d", colour);
    if (IS_FLOAT(st))
        iterate_colour_f(st, colour);
    else
        iterate_colour_d(st, colour);
    return DG_OK;
}

static int cpu_plane_values(void *state, int z, int colour, void *buf, int to_backend,
                            dg_error *err) {
    cpu_state *st = state;
    const dg_prepared *p = st->prep;
    if (z < 0 || z >= p->nz || colour < 0 || colour > 1)
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT, "CPU backend: plane %d colour %d", z,
                            colour);
    long first, end;
    dg_plane_range(p->nx, p->ny, z, colour, &first, &end);
    char *half = (char *)st->phi[colour] + (size_t)first * st->element_size;
    const size_t bytes = (size_t)(end - first) * st->element_size;
    if (to_backend)
        memcpy(half, buf, bytes);
    else
        memcpy(buf, half, bytes);
    return DG_OK;
}

static int cpu_sample_change(void *state, int colour, long first, long stride, long count,
                             int snapshot, dg_change *change, dg_error *err) {
    cpu_state *st = state;
    const dg_prepared *p = st->prep;
    if (colour < 0 || colour > 1 || first < 0 || stride < 1 || count < 0 ||
        (count > 0 && first + (count - 1) * stride >= (long)p->half_count[colour]) ||
        (!snapshot && (!change || count > st->sample_capacity)))
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "CPU backend: sample of colour %d from %ld by %ld, %ld values", colour,
                            first, stride, count);
    if (snapshot && count > st->sample_capacity) {
        free(st->sample);
        st->sample_capacity = 0;
        if (!(st->sample = malloc(((size_t)count + 1) * st->element_size)))
            return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                                "out of host memory for a sample of %ld values", count);
        st->sample_capacity = count;
    }
    if (IS_FLOAT(st))
        sample_change_f(st, colour, first, stride, count, snapshot, change);
    else
        sample_change_d(st, colour, first, stride, count, snapshot, change);
    return DG_OK;
}

static int cpu_pair_potentials(void *state, const dg_pair_request *request, double *out,
                               long *skipped, dg_error *err) {
    (void)err;
    dg_pair_potentials_host(request, out, skipped, ((cpu_state *)state)->threads);
    return DG_OK;
}

static int cpu_medium_maps(void *state, const dg_surface_request *request, unsigned char *face[3],
                           unsigned char *ion, dg_medium_counts *counts, dg_error *err) {
    (void)err;
    dg_medium_maps_host(request, face, ion, counts, ((cpu_state *)state)->threads);
    return DG_OK;
}

static int cpu_surface_sites(void *state, const dg_surface_request *request, const double *points,
                             long count, double reach, double *sites, int *owners,
                             long *unprojected, dg_error *err) {
    (void)err;
    dg_surface_sites_host(request, points, count, reach, sites, owners, unprojected,
                          ((cpu_state *)state)->threads);
    return DG_OK;
}

const dg_backend_ops dg_cpu_backend_ops = {
    "cpu",
    cpu_create,
    cpu_destroy,
    cpu_set_medium,
    cpu_load_phi,
    cpu_store_phi,
    cpu_set_omega,
    cpu_iterate,
    cpu_update_nonlinear_source,
    cpu_face_potentials,
    cpu_iterate_colour,
    cpu_plane_values,
    cpu_sample_change,
    cpu_pair_potentials,
    cpu_medium_maps,
    cpu_surface_sites,
    cpu_load_phi_faces,
    NULL, /* store_wait_seconds: no device */
    NULL, /* spectral_radius: dg_spectral_radius is this backend's own */
    NULL, /* peer_export: the halos of CPU ranks go through MPI */
    NULL, /* peer_open */
    NULL, /* peer_pull */
    NULL, /* finish: every op returns when its work is done */
    NULL, /* tune: no shapes to choose */
    NULL, /* arc_dots: the surface model finds them on the host threads */
    NULL, /* pair_fields: dg_pair_fields_host on the host threads */
};

/* The view the Newton kernels (cpu_newton.c) take of this state. */
void dg_cpu_view_of(void *state, dg_cpu_view *view) {
    const cpu_state *st = state;
    view->prep = st->prep;
    view->phi[0] = st->phi[0], view->phi[1] = st->phi[1];
    view->is_float = IS_FLOAT(st);
    view->threads = st->threads;
    memcpy(view->offsets, st->offsets, sizeof view->offsets);
}
