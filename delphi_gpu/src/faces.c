/* Debye-Hueckel (screened Coulomb) boundary values on the grid faces: DelPhi's dipolar and
 * coulombic boundary conditions, on the backend the options choose. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "face_points.h"
#include "solver_internal.h"

void dg_face_potentials_host(const dg_face_request *r, double *out, int num_threads) {
    const long total = dg_face_total(r->nx, r->ny, r->nz);
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (total * r->count > 100000)
    for (long k = 0; k < total; ++k) {
        int x, y, z;
        dg_face_coords(r->nx, r->ny, r->nz, k, &x, &y, &z);
        double sum = 0.0; /* charges in index order: the same sum on every backend */
        for (long i = 0; i < r->count; ++i)
            sum += dg_screened_term(x - r->positions[3 * i], y - r->positions[3 * i + 1],
                                    z - r->positions[3 * i + 2], r->charges[i], r->inverse_length);
        out[k] = r->coefficient * sum;
    }
}

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

/* Validate the request. */
static int check_request(const dg_face_request *request, const void *phi, char *message,
                         size_t size) {
    if (!phi || (request->count > 0 && (!request->positions || !request->charges)))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "phi, positions or charges is NULL");
    if (request->count < 0)
        return reject(message, size, DG_ERR_COUNT_MISMATCH, "charge count is negative");
    dg_prepared grid; /* only for its dimension checks */
    int st = dg_prepared_init_grid(&grid, request->nx, request->ny, request->nz, message, size);
    if (st != DG_OK) return st;
    if (!isfinite(request->coefficient) || !isfinite(request->inverse_length) ||
        request->inverse_length < 0.0)
        return reject(message, size, DG_ERR_NONFINITE_INPUT,
                      "coefficient must be finite and inverse_length finite and >= 0");
    for (long i = 0; i < request->count; ++i)
        if (!isfinite(request->charges[i]) || !isfinite(request->positions[3 * i]) ||
            !isfinite(request->positions[3 * i + 1]) || !isfinite(request->positions[3 * i + 2])) {
            snprintf(message, size, "charge %ld: position or charge is NaN or Inf", i);
            return DG_ERR_NONFINITE_INPUT;
        }
    return DG_OK;
}

int dg_face_potentials_on_solver(dg_solver s, const dg_face_request *request, void *phi,
                                 int is_double, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    if (!s) return reject(message, size, DG_ERR_INVALID_ARGUMENT, "solver is NULL");
    int st = check_request(request, phi, message, size);
    if (st != DG_OK) return st;
    const long total = dg_face_total(request->nx, request->ny, request->nz);
    double *values = malloc((size_t)total * sizeof *values);
    if (!values) return reject(message, size, DG_ERR_OUT_OF_MEMORY, "out of memory");
    dg_error err = {0};
    st = s->backend->face_potentials(s->backend_state, request, values, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", s->backend->name, err.message);
    if (st == DG_OK)
        for (long k = 0; k < total; ++k) {
            int x, y, z;
            dg_face_coords(request->nx, request->ny, request->nz, k, &x, &y, &z);
            const long w = x + (long)request->nx * (y + (long)request->ny * z);
            if (is_double)
                ((double *)phi)[w] = values[k];
            else
                ((float *)phi)[w] = (float)values[k];
        }
    free(values);
    return st;
}

/* Validate, compute on a solver of the chosen backend made for this call. */
static int debye_huckel_faces(const dg_options *options, const dg_face_request *request, void *phi,
                              int is_double, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    int st = check_request(request, phi, message, size);
    if (st != DG_OK) return st;
    dg_solver s = NULL;
    st = dg_create(&s, options);
    if (st == DG_OK)
        st = dg_face_potentials_on_solver(s, request, phi, is_double, message, size);
    else
        snprintf(message, size, "%s", dg_last_error(s));
    dg_destroy(s);
    return st;
}

int dg_debye_huckel_faces_f(const dg_options *options, int nx, int ny, int nz,
                            const double *positions, const double *charges, long count,
                            double coefficient, double inverse_length, float *phi, char *message,
                            size_t message_size) {
    const dg_face_request r = {nx, ny, nz, positions, charges, count, coefficient, inverse_length};
    return debye_huckel_faces(options, &r, phi, 0, message, message_size);
}

int dg_debye_huckel_faces_d(const dg_options *options, int nx, int ny, int nz,
                            const double *positions, const double *charges, long count,
                            double coefficient, double inverse_length, double *phi, char *message,
                            size_t message_size) {
    const dg_face_request r = {nx, ny, nz, positions, charges, count, coefficient, inverse_length};
    return debye_huckel_faces(options, &r, phi, 1, message, message_size);
}
