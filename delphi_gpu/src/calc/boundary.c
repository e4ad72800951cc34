/* Boundary conditions on the grid faces. */
#include "boundary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_calc.h"
#include "physics_constants.h"
#include "solver_internal.h"

/* 0-based full indices of the face points of an n^3 grid (each once). */
static long *face_points(int n, size_t *count) {
    const size_t total = (size_t)n * n * n - (size_t)(n - 2) * (n - 2) * (n - 2);
    long *list = malloc(total * sizeof *list);
    if (!list) return NULL;
    size_t k = 0;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y) {
            const int whole_row = z == 0 || z == n - 1 || y == 0 || y == n - 1;
            for (int x = 0; x < n; x += (whole_row || x == n - 1) ? 1 : n - 1)
                list[k++] = x + (long)n * (y + (long)n * z);
        }
    *count = k;
    return list;
}

static void position_of(const phi_map *phi, long w, double p[3]) {
    const int n = phi->n;
    const long idx[3] = {w % n, (w / n) % n, w / ((long)n * n)};
    for (int a = 0; a < 3; ++a)
        p[a] = (idx[a] - 0.5 * (n - 1)) / phi->scale + phi->center[a];
}

/* Charges reduced to the sums' sources: every atom (Coulombic) or two centroids (dipolar). */
static int gather_sources(const calc_molecule *mol, int dipolar, double **xyz, double **q,
                          size_t *count) {
    *xyz = malloc((mol->count + 2) * 3 * sizeof(double));
    *q = malloc((mol->count + 2) * sizeof(double));
    if (!*xyz || !*q) return -1;
    size_t k = 0;
    if (!dipolar) {
        for (size_t i = 0; i < mol->count; ++i) {
            const calc_atom *a = &mol->atoms[i];
            if (a->charge == 0.0) continue;
            (*xyz)[3 * k] = a->x, (*xyz)[3 * k + 1] = a->y, (*xyz)[3 * k + 2] = a->z;
            (*q)[k++] = a->charge;
        }
    } else {
        for (int sign = 1; sign >= -1; sign -= 2) {
            double total = 0.0, centroid[3] = {0, 0, 0};
            for (size_t i = 0; i < mol->count; ++i) {
                const calc_atom *a = &mol->atoms[i];
                if (a->charge * sign <= 0.0) continue;
                total += a->charge;
                centroid[0] += a->charge * a->x, centroid[1] += a->charge * a->y;
                centroid[2] += a->charge * a->z;
            }
            if (total == 0.0) continue;
            for (int d = 0; d < 3; ++d)
                (*xyz)[3 * k + d] = centroid[d] / total;
            (*q)[k++] = total;
        }
    }
    *count = k;
    return 0;
}

/* Dipolar and Coulombic boundary values: the Debye-Hueckel sum phi = sum q e^(-r/L)/(eps' r),
   eps' = eps_out/epkt, evaluated by the library on the chosen backend in grid units. */
static int debye_huckel_faces(phi_map *phi, const calc_molecule *mol, const boundary_params *bp,
                              char *msg, size_t msg_size) {
    double *xyz = NULL, *q = NULL;
    size_t sources = 0;
    if (gather_sources(mol, bp->kind == DG_BOUNDARY_DIPOLAR, &xyz, &q, &sources) != 0) {
        free(xyz), free(q);
        snprintf(msg, msg_size, "out of memory setting the boundary values");
        return DG_ERR_OUT_OF_MEMORY;
    }
    const double middle = 0.5 * (phi->n - 1);
    for (size_t i = 0; i < sources; ++i) /* Angstrom -> 0-based grid coordinates */
        for (int a = 0; a < 3; ++a)
            xyz[3 * i + a] = (xyz[3 * i + a] - phi->center[a]) * phi->scale + middle;
    const double coefficient = phi->scale * epkt_at(bp->temperature) / bp->eps_out;
    const int screened = isfinite(bp->debye_length) && bp->debye_length > 0.0;
    const double inverse_length = screened ? 1.0 / (bp->debye_length * phi->scale) : 0.0;
    char reason[512];
    const int n = phi->n;
    const dg_face_request request = {n, n, n, xyz, q, (long)sources, coefficient, inverse_length};
    const int st = dg_face_potentials_on_solver(bp->solver, &request, phi->data, phi->is_double,
                                                reason, sizeof reason);
    free(xyz), free(q);
    if (st == DG_OK) return DG_OK;
    snprintf(msg, msg_size, "%s boundary values: %s",
             bp->kind == DG_BOUNDARY_DIPOLAR ? "dipolar" : "Coulombic", reason);
    return st;
}

/* The new box must lie inside the focusing source map: its 8 corners must. */
static int check_inside(const phi_map *phi, const phi_map *src, char *msg, size_t msg_size) {
    const double half = 0.5 * (phi->n - 1) / phi->scale;
    const double src_half = 0.5 * (src->n - 1) / src->scale;
    for (int a = 0; a < 3; ++a) {
        const double lo = phi->center[a] - half, hi = phi->center[a] + half;
        const double src_lo = src->center[a] - src_half, src_hi = src->center[a] + src_half;
        const double tol = 1e-6 / src->scale;
        if (lo < src_lo - tol || hi > src_hi + tol) {
            snprintf(msg, msg_size,
                     "focusing: the new grid spans %c from %.3f to %.3f A but the source map "
                     "only from %.3f to %.3f A (%d^3 points, scale %g, centre %.3f %.3f %.3f): "
                     "the new box must lie inside the old one",
                     "xyz"[a], lo, hi, src_lo, src_hi, src -> n, src -> scale, src -> center[0],
                     src -> center[1], src -> center[2]);
            return -1;
        }
    }
    return 0;
}

int boundary_apply(phi_map *phi, const calc_molecule *mol, const boundary_params *bp, char *msg,
                   size_t msg_size) {
    const int kind = bp->kind;
    if (kind != DG_BOUNDARY_ZERO && kind != DG_BOUNDARY_DIPOLAR && kind != DG_BOUNDARY_COULOMBIC &&
        kind != DG_BOUNDARY_FOCUSING) {
        snprintf(msg, msg_size,
                 "bndcon %d is not supported (1 zero, 2 dipolar, 3 focusing, 4 Coulombic)", kind);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (kind == DG_BOUNDARY_FOCUSING) {
        if (!bp->focus_source || !bp->focus_source->data) {
            snprintf(msg, msg_size, "bndcon=3 (focusing) needs a source map: in(phi,file=...)");
            return DG_ERR_INVALID_ARGUMENT;
        }
        if (check_inside(phi, bp->focus_source, msg, msg_size) != 0) return DG_ERR_INVALID_ARGUMENT;
    }
    if (kind == DG_BOUNDARY_DIPOLAR || kind == DG_BOUNDARY_COULOMBIC)
        return debye_huckel_faces(phi, mol, bp, msg, msg_size);
    size_t count = 0;
    long *faces = face_points(phi->n, &count);
    if (!faces) {
        snprintf(msg, msg_size, "out of memory setting the boundary values");
        return DG_ERR_OUT_OF_MEMORY;
    }
    int outside = 0;
#pragma omp parallel for schedule(static) reduction(+ : outside)
    for (size_t k = 0; k < count; ++k) {
        double p[3], v = 0.0;
        position_of(phi, faces[k], p);
        if (kind == DG_BOUNDARY_FOCUSING && phi_map_interpolate(bp->focus_source, p, &v) != 0)
            ++outside, v = 0.0;
        phi_set(phi, (size_t)faces[k], v);
    }
    free(faces);
    if (outside) { /* cannot happen after check_inside; kept as a guard */
        snprintf(msg, msg_size, "focusing: %d face points fall outside the source map", outside);
        return DG_ERR_INVALID_ARGUMENT;
    }
    return DG_OK;
}

void boundary_face_centres(const phi_map *phi, double out[6]) {
    const int n = phi->n, m = (n - 1) / 2;
    const long centre = m + (long)n * (m + (long)n * m);
    const long stride[3] = {1, n, (long)n * n};
    for (int a = 0; a < 3; ++a) {
        out[2 * a] = phi_get(phi, (size_t)(centre - (long)m * stride[a]));
        out[2 * a + 1] = phi_get(phi, (size_t)(centre + (long)m * stride[a]));
    }
}
