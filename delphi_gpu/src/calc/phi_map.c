/* Potential maps: allocation and trilinear interpolation. */
#include "phi_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int phi_map_alloc(phi_map *m, int n, int is_double, double scale, const double center[3]) {
    memset(m, 0, sizeof *m);
    m->n = n, m->is_double = is_double, m->scale = scale;
    memcpy(m->center, center, sizeof m->center);
    const size_t bytes = (size_t)n * n * n * (is_double ? sizeof(double) : sizeof(float));
    m->data = malloc(bytes + 1);
    if (!m->data) return -1;
    /* Zeroed by all threads, plane by plane: the pages are first touched (and cleared by the
       system) in parallel instead of one by one when the face values are written. */
    const size_t plane = n > 0 ? bytes / (size_t)n : 0;
#pragma omp parallel for schedule(static)
    for (int z = 0; z < n; ++z)
        memset((char *)m->data + (size_t)z * plane, 0, plane);
    return 0;
}

void phi_map_free(phi_map *m) {
    free(m->data);
    m->data = NULL;
}

/* The cell of the grid around p: its lowest corner and the fractions along the axes; -1 when p
 * lies outside the grid by more than 1e-6 spacings or a coordinate is not a number. */
static int cell_of(const phi_map *m, const double p[3], int base[3], double f[3]) {
    const int n = m->n;
    for (int a = 0; a < 3; ++a) {
        double g = phi_map_coordinate(m, a, p[a]);
        if (!(g >= -1e-6 && g <= n - 1 + 1e-6)) return -1;
        g = fmin(fmax(g, 0.0), n - 1.0);
        base[a] = (int)floor(g);
        if (base[a] > n - 2) base[a] = n - 2;
        f[a] = g - base[a];
    }
    return 0;
}

int phi_map_interpolate_bytes(const phi_map *m, const unsigned char *values, const double p[3],
                              double *value) {
    int base[3];
    double f[3];
    if (cell_of(m, p, base, f) != 0) {
        *value = NAN;
        return -1;
    }
    const size_t n = (size_t)m->n;
    double sum = 0.0;
    for (int k = 0; k < 8; ++k) {
        const int dx = k & 1, dy = (k >> 1) & 1, dz = (k >> 2) & 1;
        const double w = (dx ? f[0] : 1 - f[0]) * (dy ? f[1] : 1 - f[1]) * (dz ? f[2] : 1 - f[2]);
        sum += w * values[(size_t)(base[0] + dx) + n * ((base[1] + dy) + n * (base[2] + dz))];
    }
    *value = sum;
    return 0;
}

int phi_map_interpolate(const phi_map *m, const double p[3], double *value) {
    const int n = m->n;
    int base[3];
    double f[3];
    if (cell_of(m, p, base, f) != 0) {
        *value = NAN;
        return -1;
    }
    double sum = 0.0;
    for (int k = 0; k < 8; ++k) {
        const int dx = k & 1, dy = (k >> 1) & 1, dz = (k >> 2) & 1;
        const double w = (dx ? f[0] : 1 - f[0]) * (dy ? f[1] : 1 - f[1]) * (dz ? f[2] : 1 - f[2]);
        if (w == 0.0) continue;
        sum += w * phi_get(m, (size_t)(base[0] + dx) +
                                  (size_t)n * ((base[1] + dy) + (size_t)n * (base[2] + dz)));
    }
    *value = sum;
    return 0;
}
