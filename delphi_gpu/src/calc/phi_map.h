/* A cubic potential map in float or double (the solve's precision), x fastest, kT/e, with
 * element access and trilinear interpolation at Angstrom positions. */
#ifndef HOST_PHI_MAP_H
#define HOST_PHI_MAP_H

#include <stddef.h>

typedef struct phi_map {
    int n;         /* points per side */
    int is_double; /* 1: data is double[n^3]; 0: float[n^3] */
    void *data;
    double scale;     /* grid points per Angstrom */
    double center[3]; /* Angstrom */
} phi_map;

static inline double phi_get(const phi_map *m, size_t w) {
    return m->is_double ? ((const double *)m->data)[w] : (double)((const float *)m->data)[w];
}

static inline void phi_set(phi_map *m, size_t w, double v) {
    if (m->is_double)
        ((double *)m->data)[w] = v;
    else
        ((float *)m->data)[w] = (float)v;
}

/* Allocate an n^3 map filled with zeros; returns 0 or -1 (out of memory). */
int phi_map_alloc(phi_map *m, int n, int is_double, double scale, const double center[3]);

void phi_map_free(phi_map *m);

/* 0-based grid coordinate of Angstrom position x along an axis. */
static inline double phi_map_coordinate(const phi_map *m, int axis, double x) {
    return (x - m->center[axis]) * m->scale + 0.5 * (m->n - 1);
}

/* Trilinear interpolation at the Angstrom position p.  Returns 0, or -1 when p lies outside
 * the map (by more than 1e-6 grid spacings); *value is NaN then. */
int phi_map_interpolate(const phi_map *m, const double p[3], double *value);

/* The same interpolation of a byte map on m's grid (values[n^3], x fastest; 0 or 1 gives the
 * fraction of the surrounding points that are 1, weighted trilinearly). */
int phi_map_interpolate_bytes(const phi_map *m, const unsigned char *values, const double p[3],
                              double *value);

#endif /* HOST_PHI_MAP_H */
