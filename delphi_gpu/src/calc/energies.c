/* Grid, Coulombic and ionic energies; site potentials. */
#include "energies.h"

#include <math.h>
#include <stdlib.h>

#include "physics_constants.h"

double energy_grid(const phi_map *phi, const charge_list *charges) {
    double sum = 0.0;
    for (long k = 0; k < charges->count; ++k)
        sum += phi_get(phi, (size_t)charges->index[k]) * charges->value[k];
    return 0.5 * sum;
}

double energy_coulombic(const calc_molecule *mol, double eps_in, double temperature,
                        long *coincident) {
    const long count = (long)mol->count;
    /* Row sums, then a serial total: the same result for any thread count and schedule. */
    double *row_sum = calloc((size_t)count + 1, sizeof *row_sum);
    if (!row_sum) return NAN;
    long close = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : close)
    for (long i = 0; i < count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0) continue;
        double row = 0.0;
        for (long j = i + 1; j < count; ++j) {
            const calc_atom *b = &mol->atoms[j];
            if (b->charge == 0.0) continue;
            const double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
            const double r = sqrt(dx * dx + dy * dy + dz * dz);
            if (r < 1e-6) {
                ++close;
                continue;
            }
            row += b->charge / r;
        }
        row_sum[i] = a->charge * row;
    }
    double sum = 0.0;
    for (long i = 0; i < count; ++i)
        sum += row_sum[i];
    free(row_sum);
    if (coincident) *coincident = close;
    return sum * epkt_at(temperature) / eps_in;
}

void energy_ionic(const phi_map *phi, const unsigned char *ion_accessible, const salt_model *salt,
                  ionic_energy *out) {
    out->rho_phi_half = out->osmotic = out->total = 0.0;
    if (!ion_accessible || salt->ion_count == 0) return;
    const size_t points = (size_t)phi->n * phi->n * phi->n;
    const double volume = 1.0 / (phi->scale * phi->scale * phi->scale);
    double rho_phi = 0.0, pressure = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rho_phi, pressure)
    for (size_t w = 0; w < points; ++w) {
        if (!ion_accessible[w]) continue;
        const double p = phi_get(phi, w);
        double rho = 0.0, excess = 0.0;
        for (int i = 0; i < salt->ion_count; ++i) {
            const double boltzmann = exp(-salt->ions[i].valence * p);
            rho += salt->ions[i].number_density * salt->ions[i].valence * boltzmann;
            excess += salt->ions[i].number_density * (boltzmann - 1.0);
        }
        rho_phi += rho * p;
        pressure += excess;
    }
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
