/* Grid, Coulombic and ionic energies; site potentials. */
#include "energies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "physics_constants.h"
#include "stages.h"

double energy_grid(const phi_map *phi, const charge_list *charges) {
    double sum = 0.0;
    for (long k = 0; k < charges->count; ++k)
        sum += phi_get(phi, (size_t)charges->index[k]) * charges->value[k];
    return 0.5 * sum;
}

double energy_coulombic_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                           double temperature, long *coincident, char *msg, size_t msg_size) {
    if (coincident) *coincident = 0;
    double *xyz = NULL, *q = NULL;
    const long charged = calc_charged_atoms(mol, &xyz, &q, NULL);
    double *row = charged >= 0 ? malloc(((size_t)charged + 1) * sizeof *row) : NULL;
    if (!row) {
        free(xyz), free(q);
        snprintf(msg, msg_size, "out of memory for the charged atoms of %zu", mol->count);
        return NAN;
    }
    /* Row sums over the later atoms on the solver's backend, then a serial total: the same
       result for any backend, thread count and schedule. */
    const dg_pair_request request = {xyz, charged, xyz, q, charged, 1, COULOMB_MIN_DISTANCE};
    long close = 0;
    const int st = dg_stage_pair_potentials_on(solver, &request, row, &close, msg, msg_size);
    double sum = 0.0;
    for (long i = 0; i < charged; ++i)
        sum += q[i] * row[i];
    free(xyz), free(q), free(row);
    if (st != DG_OK) return NAN;
    if (coincident) *coincident = close;
    return sum * epkt_at(temperature) / eps_in;
}

/* epkt / eps_in times the potential (field = 0) or field (field = 1: 3 values per point) sums
 * of the charged atoms at the points; zeros without charged atoms. */
static int coulombic_sums(dg_solver solver, const calc_molecule *mol, double eps_in,
                          double temperature, const double *points, long count, int field,
                          double *out, long *close, char *msg, size_t msg_size) {
    if (close) *close = 0;
    if (count <= 0) return DG_OK;
    double *xyz = NULL, *q = NULL;
    const long charged = calc_charged_atoms(mol, &xyz, &q, NULL);
    if (charged < 0) {
        snprintf(msg, msg_size, "out of memory for the charged atoms of %zu", mol->count);
        return DG_ERR_OUT_OF_MEMORY;
    }
    const long values = field ? 3 * count : count;
    int st = DG_OK;
    if (charged == 0) {
        for (long i = 0; i < values; ++i)
            out[i] = 0.0;
    } else {
        const dg_pair_request request = {points, count, xyz, q, charged, 0, COULOMB_SITE_DISTANCE};
        st = field ? dg_stage_pair_fields_on(solver, &request, out, close, msg, msg_size)
                   : dg_stage_pair_potentials_on(solver, &request, out, close, msg, msg_size);
        const double factor = epkt_at(temperature) / eps_in;
        for (long i = 0; st == DG_OK && i < values; ++i)
            out[i] *= factor;
    }
    free(xyz), free(q);
    return st;
}

int coulombic_potentials_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                            double temperature, const double *points, long count, double *out,
                            long *close, char *msg, size_t msg_size) {
    return coulombic_sums(solver, mol, eps_in, temperature, points, count, 0, out, close, msg,
                          msg_size);
}

int coulombic_fields_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                        double temperature, const double *points, long count, double *out,
                        char *msg, size_t msg_size) {
    return coulombic_sums(solver, mol, eps_in, temperature, points, count, 1, out, NULL, msg,
                          msg_size);
}

double energy_coulombic(const calc_molecule *mol, double eps_in, double temperature,
                        long *coincident) {
    char msg[256];
    return energy_coulombic_on(NULL, mol, eps_in, temperature, coincident, msg, sizeof msg);
}

/* e^x - 1 to x^6 (taylor 6) or e^x to x^5 (taylor 5), Horner's form. */
static double exp_minus_one_6(double x) {
    return x * (1.0 + x * (1.0 / 2 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120 + x / 720)))));
}
static double exp_5(double x) {
    return 1.0 + x * (1.0 + x * (1.0 / 2 + x * (1.0 / 6 + x * (1.0 / 24 + x / 120))));
}

/* The quadrature weight of the point at[] (0-based x, y, z) of an n^3 grid: 1/2 per coordinate
 * on a face of a non-periodic axis (the trapezoid rule over the box, as stock DelPhi weights
 * its faces, edges and corners), 0 on a face of a periodic one (an image of an interior
 * point). */
static double face_weight(const int at[3], int n, unsigned periodic) {
    double weight = 1.0;
    for (int a = 0; a < 3; ++a)
        if (at[a] == 0 || at[a] == n - 1) weight *= (periodic & (1u << a)) ? 0.0 : 0.5;
    return weight;
}

/* at[] to the next point in x-fastest order. */
static void next_point(int at[3], int n) {
    if (++at[0] < n) return;
    at[0] = 0;
    if (++at[1] < n) return;
    at[1] = 0, ++at[2];
}

void energy_ionic(const phi_map *phi, const unsigned char *ion_accessible, const salt_model *salt,
                  int polynomial, unsigned periodic, ionic_energy *out) {
    out->rho_phi_half = out->osmotic = out->total = 0.0;
    if (!ion_accessible || salt->ion_count == 0) return;
    const size_t points = (size_t)phi->n * phi->n * phi->n;
    const double volume = 1.0 / (phi->scale * phi->scale * phi->scale);
    /* exp(-z phi) once per valence: an ion whose valence is the negative of an earlier one's
       takes the reciprocal (a z:z salt costs one exp per point, not two), one with the same
       valence the same factor. */
    int reuse[4], reciprocal[4];
    for (int i = 0; i < salt->ion_count; ++i) {
        reuse[i] = -1, reciprocal[i] = 0;
        for (int j = 0; j < i && reuse[i] < 0; ++j)
            if (reuse[j] < 0 && (salt->ions[j].valence == salt->ions[i].valence ||
                                 salt->ions[j].valence == -salt->ions[i].valence))
                reuse[i] = j, reciprocal[i] = salt->ions[j].valence != salt->ions[i].valence;
    }
    /* Fixed chunks, each summed in order and the chunks summed in order: the same bits on any
       number of threads. */
    enum { CHUNKS = 1024 };
    double chunk_rho_phi[CHUNKS], chunk_pressure[CHUNKS];
    const size_t per_chunk = (points + CHUNKS - 1) / CHUNKS;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < CHUNKS; ++c) {
        double rho_phi = 0.0, pressure = 0.0;
        const size_t begin = (size_t)c * per_chunk;
        const size_t end = begin + per_chunk < points ? begin + per_chunk : points;
        const size_t n = (size_t)phi->n;
        int at[3] = {(int)(begin % n), (int)(begin / n % n), (int)(begin / (n * n))};
        for (size_t w = begin; w < end; ++w, next_point(at, phi->n)) {
            if (!ion_accessible[w]) continue;
            const double weight = face_weight(at, phi->n, periodic);
            if (weight == 0.0) continue;
            const double p = phi_get(phi, w);
            double rho = 0.0, excess = 0.0, factor[4] = {0.0, 0.0, 0.0, 0.0};
            if (polynomial) {
                for (int i = 0; i < salt->ion_count; ++i) {
                    const double x = -salt->ions[i].valence * p;
                    rho += salt->ions[i].number_density * salt->ions[i].valence * exp_5(x);
                    excess += salt->ions[i].number_density * exp_minus_one_6(x);
                }
                rho_phi += weight * rho * p;
                pressure += weight * excess;
                continue;
            }
            for (int i = 0; i < salt->ion_count; ++i) {
                const int j = reuse[i];
                const double boltzmann = j < 0           ? exp(-salt->ions[i].valence * p)
                                         : reciprocal[i] ? 1.0 / factor[j]
                                                         : factor[j];
                factor[i] = boltzmann;
                rho += salt->ions[i].number_density * salt->ions[i].valence * boltzmann;
                excess += salt->ions[i].number_density * (boltzmann - 1.0);
            }
            rho_phi += weight * rho * p;
            pressure += weight * excess;
        }
        chunk_rho_phi[c] = rho_phi, chunk_pressure[c] = pressure;
    }
    double rho_phi = 0.0, pressure = 0.0;
    for (int c = 0; c < CHUNKS; ++c)
        rho_phi += chunk_rho_phi[c], pressure += chunk_pressure[c];
    out->rho_phi_half = -0.5 * rho_phi * volume;
    out->osmotic = -pressure * volume;
    out->total = out->rho_phi_half + out->osmotic;
}

size_t site_potentials(const phi_map *phi, const double *xyz, size_t count, double *out) {
    size_t outside = 0;
    for (size_t i = 0; i < count; ++i)
        if (phi_map_interpolate(phi, xyz + 3 * i, &out[i]) != 0) ++outside;
    return outside;
}
