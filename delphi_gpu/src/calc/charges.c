/* Trilinear charge assignment: each charge is spread over the eight corners of its grid cell. */
#include "charges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trilinear_weights(const double gc[3], int base[3], double w[8]) {
    double f[3];
    for (int a = 0; a < 3; ++a) {
        base[a] = (int)floor(gc[a]);
        f[a] = gc[a] - base[a];
    }
    for (int k = 0; k < 8; ++k) {
        double wk = 1.0;
        for (int a = 0; a < 3; ++a)
            wk *= ((k >> a) & 1) ? f[a] : 1.0 - f[a];
        w[k] = wk;
    }
}

void charge_list_free(charge_list *c) {
    free(c->index);
    free(c->value);
    memset(c, 0, sizeof *c);
}

int charges_spread(const calc_molecule *mol, const grid_spec *g, int allow_outside,
                   charge_list *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    out->failed_atom = -1;
    long charged = 0;
    for (size_t i = 0; i < mol->count; ++i)
        charged += mol->atoms[i].charge != 0.0;
    out->index = malloc((size_t)(8 * charged + 1) * sizeof(long));
    out->value = malloc((size_t)(8 * charged + 1) * sizeof(double));
    if (!out->index || !out->value) {
        charge_list_free(out);
        snprintf(msg, msg_size, "out of memory for %ld charged atoms", charged);
        return -1;
    }
    const int n = g->n;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0) continue;
        if (!isfinite(a->charge)) {
            snprintf(msg, msg_size, "atom %zu has a non-finite charge", i + 1);
            charge_list_free(out);
            return -1;
        }
        out->charged_atoms++;
        const double gc[3] = {grid_coordinate(g, 0, a->x), grid_coordinate(g, 1, a->y),
                              grid_coordinate(g, 2, a->z)};
        int base[3];
        double w[8];
        trilinear_weights(gc, base, w);
        int dropped = 0;
        for (int k = 0; k < 8; ++k) {
            if (w[k] == 0.0) continue;
            const int p[3] = {base[0] + (k & 1), base[1] + ((k >> 1) & 1),
                              base[2] + ((k >> 2) & 1)};
            const int interior =
                p[0] > 0 && p[1] > 0 && p[2] > 0 && p[0] < n - 1 && p[1] < n - 1 && p[2] < n - 1;
            if (!interior) {
                if (!allow_outside) {
                    snprintf(
                        msg, msg_size,
                        "atom %zu (charge %g e at %.3f %.3f %.3f A) is "
                        "at 1-based grid coordinates (%.2f, %.2f, %.2f): its charge would land on "
                        "the faces of the %d^3 grid (boundary values). Enlarge the grid "
                        "(lower perfil or scale, raise gsize) or re-centre it",
                        i + 1, a->charge, a->x, a->y, a->z, gc[0] + 1, gc[1] + 1, gc[2] + 1, n);
                    charge_list_free(out);
                    out->failed_atom = (long)i;
                    return -1;
                }
                dropped = 1;
                out->charge_outside += w[k] * a->charge;
                continue;
            }
            out->index[out->count] = p[0] + (long)n * (p[1] + (long)n * p[2]);
            out->value[out->count] = w[k] * a->charge;
            out->net_charge += w[k] * a->charge;
            out->count++;
        }
        out->atoms_outside += dropped;
    }
    return 0;
}
