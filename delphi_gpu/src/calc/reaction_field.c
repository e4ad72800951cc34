/* Induced surface charges and the corrected reaction-field energy (see the header). */
#include "reaction_field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics_constants.h"

typedef struct grid_charge {
    long index;
    double q;
} grid_charge;

static int by_index(const void *a, const void *b) {
    const long x = ((const grid_charge *)a)->index, y = ((const grid_charge *)b)->index;
    return (x > y) - (x < y);
}

/* Charges merged per grid point and sorted, for lookups at boundary points. */
static grid_charge *merge_charges(const charge_list *c, long *count) {
    grid_charge *list = malloc(((size_t)c->count + 1) * sizeof *list);
    if (!list) return NULL;
    for (long k = 0; k < c->count; ++k)
        list[k].index = c->index[k], list[k].q = c->value[k];
    qsort(list, (size_t)c->count, sizeof *list, by_index);
    long m = 0;
    for (long k = 0; k < c->count; ++k)
        if (m > 0 && list[m - 1].index == list[k].index)
            list[m - 1].q += list[k].q;
        else
            list[m++] = list[k];
    *count = m;
    return list;
}

static double charge_at(const grid_charge *list, long count, long w) {
    long lo = 0, hi = count - 1;
    while (lo <= hi) {
        const long mid = (lo + hi) / 2;
        if (list[mid].index == w) return list[mid].q;
        if (list[mid].index < w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0.0;
}

int reaction_field_compute(const phi_map *phi, const grid_spec *g, const long *boundary,
                           size_t boundary_count, const charge_list *charges,
                           const surface_model *sm, const calc_molecule *mol, double eps_in,
                           double eps_out, double temperature, reaction_field *out, char *msg,
                           size_t msg_size) {
    memset(out, 0, sizeof *out);
    out->boundary_points = boundary_count;
    out->expected_induced_charge = charges->net_charge * (1.0 / eps_out - 1.0 / eps_in);
    long merged = 0;
    grid_charge *point_q = merge_charges(charges, &merged);
    double *sigma = malloc((boundary_count + 1) * sizeof *sigma);
    double *term = malloc((boundary_count + 1) * sizeof *term); /* sigma_k sum_i q_i / r */
    double *atom_xyz = malloc((mol->count + 1) * 3 * sizeof *atom_xyz);
    double *atom_q = malloc((mol->count + 1) * sizeof *atom_q);
    if (!point_q || !sigma || !term || !atom_xyz || !atom_q) {
        free(point_q), free(sigma), free(term), free(atom_xyz), free(atom_q);
        snprintf(msg, msg_size, "out of memory for %zu boundary points", boundary_count);
        return -1;
    }
    size_t charged = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0) continue;
        atom_xyz[3 * charged] = a->x, atom_xyz[3 * charged + 1] = a->y;
        atom_xyz[3 * charged + 2] = a->z, atom_q[charged++] = a->charge;
    }
    const int n = g->n;
    const long stride[3] = {1, n, (long)n * n};
    const double epkt = epkt_at(temperature);
    const double to_charge = 1.0 / (4.0 * M_PI * g->scale * epkt);
    const double reach = 3.0 / g->scale;
    size_t unprojected = 0;
    /* Per-point terms, summed serially afterwards: reproducible for any thread count. */
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : unprojected)
    for (size_t k = 0; k < boundary_count; ++k) {
        const long w = boundary[k];
        double neighbours = 0.0;
        for (int a = 0; a < 3; ++a)
            neighbours +=
                phi_get(phi, (size_t)(w - stride[a])) + phi_get(phi, (size_t)(w + stride[a]));
        const double centre = phi_get(phi, (size_t)w);
        const double s =
            (6.0 * centre - neighbours) * to_charge - charge_at(point_q, merged, w) / eps_in;
        sigma[k] = s;
        const long idx[3] = {w % n, (w / n) % n, w / ((long)n * n)};
        double x[3], sk[3];
        for (int a = 0; a < 3; ++a)
            x[a] = grid_position(g, a, (double)idx[a]);
        if (surface_project(sm, x, reach, sk) != 0) ++unprojected;
        double field = 0.0;
        for (size_t i = 0; i < charged; ++i) {
            const double dx = sk[0] - atom_xyz[3 * i], dy = sk[1] - atom_xyz[3 * i + 1],
                         dz = sk[2] - atom_xyz[3 * i + 2];
            const double r = sqrt(dx * dx + dy * dy + dz * dz);
            field += r > 1e-9 ? atom_q[i] / r : 0.0;
        }
        term[k] = s * field;
    }
    double total = 0.0, energy = 0.0;
    for (size_t k = 0; k < boundary_count; ++k)
        total += sigma[k], energy += term[k];
    out->total_induced_charge = total;
    out->energy = 0.5 * epkt * energy;
    out->unprojected = unprojected;
    free(point_q), free(sigma), free(term), free(atom_xyz), free(atom_q);
    return 0;
}
