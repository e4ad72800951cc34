/* Induced surface charges and the corrected reaction-field energy (see the header). */
#include "reaction_field.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_charges.h"
#include "medium.h"
#include "physics_constants.h"
#include "stages.h"

/* Charges merged per grid point and sorted, for lookups at boundary points.  Only the entries
 * at boundary points are needed (a bitmap of the grid marks them): they keep their list order
 * through the stable sort, so the repeats of a point are summed as a merge of the whole list
 * would sum them. */
static dg_grid_charge *merge_charges(const charge_list *c, const long *boundary,
                                     size_t boundary_count, size_t points, long *count) {
    dg_grid_charge *list = malloc(((size_t)c->count + 1) * sizeof *list);
    unsigned char *marked = calloc(points / 8 + 1, 1);
    if (!list || !marked) {
        free(list), free(marked);
        return NULL;
    }
    for (size_t k = 0; k < boundary_count; ++k)
        marked[(size_t)boundary[k] / 8] |= (unsigned char)(1u << ((size_t)boundary[k] % 8));
    long kept = 0;
    for (long k = 0; k < c->count; ++k) {
        const size_t w = (size_t)c->index[k];
        if (marked[w / 8] & (1u << (w % 8)))
            list[kept].index = c->index[k], list[kept++].charge = c->value[k];
    }
    free(marked);
    if (dg_sort_grid_charges(list, kept, (long)points) != 0) {
        free(list);
        return NULL;
    }
    long m = 0;
    for (long k = 0; k < kept; ++k)
        if (m > 0 && list[m - 1].index == list[k].index)
            list[m - 1].charge += list[k].charge;
        else
            list[m++] = list[k];
    *count = m;
    return list;
}

/* Pairs of an induced charge and an atom (or a point) at most this far apart (A) add nothing:
 * a site on an atom centre. */
static double closest_pair(void) {
    return nextafter(1e-9, INFINITY);
}

static double charge_at(const dg_grid_charge *list, long count, long w) {
    long lo = 0, hi = count - 1;
    while (lo <= hi) {
        const long mid = (lo + hi) / 2;
        if (list[mid].index == w) return list[mid].charge;
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
                           double eps_out, double temperature, dg_solver solver,
                           reaction_field *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    out->boundary_points = boundary_count;
    out->expected_induced_charge = charges->net_charge * (1.0 / eps_out - 1.0 / eps_in);
    const double started = omp_get_wtime();
    long merged = 0;
    dg_grid_charge *point_q =
        merge_charges(charges, boundary, boundary_count, (size_t)g->n * g->n * g->n, &merged);
    double *sigma = malloc((boundary_count + 1) * sizeof *sigma);
    double *field = malloc((boundary_count + 1) * sizeof *field);     /* sum_i q_i / |s_k - r_i| */
    double *site = malloc((boundary_count + 1) * 3 * sizeof *site);   /* s_k */
    double *point = malloc((boundary_count + 1) * 3 * sizeof *point); /* the boundary points */
    int *owner = malloc((boundary_count + 1) * sizeof *owner);        /* each site's atom */
    double *atom_xyz = NULL, *atom_q = NULL;
    const long charged = calc_charged_atoms(mol, &atom_xyz, &atom_q, NULL);
    if (!point_q || !sigma || !field || !site || !point || !owner || charged < 0) {
        free(point_q), free(sigma), free(field), free(site), free(point), free(atom_xyz);
        free(atom_q), free(owner);
        snprintf(msg, msg_size, "out of memory for %zu boundary points", boundary_count);
        return -1;
    }
    const int n = g->n;
    const long stride[3] = {1, n, (long)n * n};
    const double epkt = epkt_at(temperature);
    const double to_charge = 1.0 / (4.0 * M_PI * g->scale * epkt);
    const double reach = 3.0 / g->scale;
    size_t unprojected = 0;
    /* Induced charges and their sites on the surface (host: the surface model's cell lists). */
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < boundary_count; ++k) {
        const long w = boundary[k];
        double neighbours = 0.0;
        for (int a = 0; a < 3; ++a)
            neighbours +=
                phi_get(phi, (size_t)(w - stride[a])) + phi_get(phi, (size_t)(w + stride[a]));
        const double centre = phi_get(phi, (size_t)w);
        sigma[k] = (6.0 * centre - neighbours) * to_charge - charge_at(point_q, merged, w) / eps_in;
        const long idx[3] = {w % n, (w / n) % n, w / ((long)n * n)};
        for (int a = 0; a < 3; ++a)
            point[3 * k + a] = grid_position(g, a, (double)idx[a]);
    }
    /* ... and their sites on the surface, on the solver's backend. */
    dg_surface_request request_sites;
    medium_surface_request(sm, g, 0, 0.0, &request_sites);
    long missed = 0;
    int st = DG_OK;
    if (solver)
        st = dg_stage_surface_sites_on(solver, &request_sites, point, (long)boundary_count, reach,
                                       site, owner, &missed, msg, msg_size);
    else
        dg_surface_sites_host(&request_sites, point, (long)boundary_count, reach, site, owner,
                              &missed, 0);
    unprojected = (size_t)missed;
    for (size_t k = 0; st == DG_OK && k < boundary_count; ++k) /* into the molecule's indices */
        owner[k] = owner[k] >= 0 ? sm->atom_index[owner[k]] : -1;
    const double projected = omp_get_wtime();
    /* The boundary points x atoms sums on the solve's backend; pairs closer than 1e-9 A (a site
       on an atom centre) add nothing. */
    const dg_pair_request request = {site, (long)boundary_count, atom_xyz, atom_q, charged,
                                     0,    closest_pair()};
    if (st == DG_OK) st = dg_stage_pair_potentials_on(solver, &request, field, NULL, msg, msg_size);
    double total = 0.0, energy = 0.0;
    if (st == DG_OK)
        for (size_t k = 0; k < boundary_count; ++k)
            total += sigma[k], energy += sigma[k] * field[k];
    out->total_induced_charge = total;
    out->energy = 0.5 * epkt * energy;
    out->unprojected = unprojected;
    out->time_sites = projected - started;
    out->time_sums = omp_get_wtime() - projected;
    free(point_q), free(point), free(atom_xyz), free(atom_q);
    if (st != DG_OK) {
        free(sigma), free(site), free(field), free(owner);
        return -1;
    }
    for (size_t k = 0; k < boundary_count; ++k)
        field[k] = 0.5 * epkt * (sigma[k] * field[k]);
    out->sigma = sigma, out->site = site, out->shares = field, out->owner = owner;
    return 0;
}

int reaction_field_potentials(const reaction_field *rf, double temperature, dg_solver solver,
                              const double *points, long count, double *out, char *msg,
                              size_t msg_size) {
    if (count <= 0) return DG_OK;
    const long charges = (long)rf->boundary_points;
    if (charges == 0) {
        for (long i = 0; i < count; ++i)
            out[i] = 0.0;
        return DG_OK;
    }
    if (!rf->sigma || !rf->site) {
        snprintf(msg, msg_size, "the induced charges were not kept");
        return DG_ERR_STATE;
    }
    const dg_pair_request request = {points,  count, rf->site,      rf->sigma,
                                     charges, 0,     closest_pair()};
    const int st = dg_stage_pair_potentials_on(solver, &request, out, NULL, msg, msg_size);
    if (st != DG_OK) return st;
    const double epkt = epkt_at(temperature);
    for (long i = 0; i < count; ++i)
        out[i] *= epkt;
    return DG_OK;
}

int reaction_field_forces(const reaction_field *rf, const calc_molecule *mol, double temperature,
                          dg_solver solver, double *out, char *msg, size_t msg_size) {
    for (size_t i = 0; i < 3 * mol->count; ++i)
        out[i] = 0.0;
    const long points = (long)rf->boundary_points;
    if (points == 0 || mol->count == 0) return DG_OK;
    double *atom_xyz = NULL, *atom_q = NULL;
    long *atom = NULL;
    const long charged = calc_charged_atoms(mol, &atom_xyz, &atom_q, &atom);
    double *at_atoms = malloc((mol->count + 1) * 3 * sizeof *at_atoms);     /* induced charges' */
    double *at_sites = malloc(((size_t)points + 1) * 3 * sizeof *at_sites); /* the atoms' */
    if (charged < 0 || !at_atoms || !at_sites) {
        free(atom_xyz), free(atom_q), free(atom), free(at_atoms), free(at_sites);
        snprintf(msg, msg_size, "out of memory for the reaction-field forces");
        return DG_ERR_OUT_OF_MEMORY;
    }
    int st = DG_OK;
    if (charged > 0) {
        const dg_pair_request on_atoms = {atom_xyz, charged, rf->site,      rf->sigma,
                                          points,   0,       closest_pair()};
        const dg_pair_request on_sites = {rf->site, points, atom_xyz,      atom_q,
                                          charged,  0,      closest_pair()};
        st = dg_stage_pair_fields_on(solver, &on_atoms, at_atoms, NULL, msg, msg_size);
        if (st == DG_OK)
            st = dg_stage_pair_fields_on(solver, &on_sites, at_sites, NULL, msg, msg_size);
    }
    const double epkt = epkt_at(temperature);
    for (long j = 0; st == DG_OK && j < charged; ++j)
        for (int a = 0; a < 3; ++a)
            out[3 * atom[j] + a] += epkt * atom_q[j] * at_atoms[3 * j + a];
    for (long k = 0; st == DG_OK && charged > 0 && k < points; ++k)
        if (rf->owner[k] >= 0)
            for (int a = 0; a < 3; ++a)
                out[3 * rf->owner[k] + a] += epkt * rf->sigma[k] * at_sites[3 * k + a];
    free(atom_xyz), free(atom_q), free(atom), free(at_atoms), free(at_sites);
    return st;
}

void reaction_field_free(reaction_field *rf) {
    free(rf->sigma), free(rf->site), free(rf->shares), free(rf->owner);
    memset(rf, 0, sizeof *rf);
}
