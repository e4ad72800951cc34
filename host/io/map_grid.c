/* Map geometry: allocation, wrapping and coordinates. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_maps.h"
#include "io_text.h"

size_t map_grid_points(const map_grid *m) {
    return (size_t)m->n[0] * (size_t)m->n[1] * (size_t)m->n[2];
}

static void set_geometry(map_grid *m, const int n[3], double scale, const double center[3]) {
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 3; k++) {
        m->n[k] = n[k];
        m->center[k] = center[k];
    }
    m->scale = scale;
    snprintf(m->kind, sizeof m->kind, "potential");
}

int map_grid_alloc(map_grid *m, const int n[3], double scale, const double center[3],
                   io_error *err) {
    set_geometry(m, n, scale, center);
    for (int k = 0; k < 3; k++)
        if (n[k] < 1 || n[k] > 100000)
            return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL, "bad grid size %d x %d x %d", n[0],
                           n[1], n[2]);
    m->values = calloc(map_grid_points(m), sizeof *m->values);
    if (!m->values)
        return io_fail(err, IO_ERR_MEMORY, NULL, 0, NULL, "out of memory for a %d x %d x %d map",
                       n[0], n[1], n[2]);
    m->owns_values = 1;
    return IO_OK;
}

void map_grid_wrap(map_grid *m, const int n[3], double scale, const double center[3],
                   double *values) {
    set_geometry(m, n, scale, center);
    m->values = values;
    m->owns_values = 0;
}

void map_grid_free(map_grid *m) {
    if (!m) return;
    if (m->owns_values) free(m->values);
    m->values = NULL;
    m->owns_values = 0;
}

double map_grid_coordinate(const map_grid *m, int axis, double index) {
    return (index - (m->n[axis] + 1) / 2.0) / m->scale + m->center[axis];
}
