/* Uniform cell list over 3-D points: every neighbour query touches only the cells that overlap
 * the query cube, so searches cost O(points nearby) instead of O(all points). */
#ifndef HOST_CELL_LIST_H
#define HOST_CELL_LIST_H

#include <stddef.h>

typedef struct cell_list {
    double origin[3]; /* corner of cell (0,0,0) */
    double cell;      /* cell side, Angstrom */
    int dim[3];       /* cells per axis */
    int *start;       /* [cells + 1]: items of cell c are items[start[c] .. start[c+1]) */
    int *items;       /* point indices */
} cell_list;

/* Build over count points xyz[3*i..3*i+2] with the given cell side.  Returns 0, or -1 when out
 * of memory. count may be 0. */
int cell_list_build(cell_list *cl, const double *xyz, int count, double cell);

/* The same over the points i with mask[i] != 0 only (items keep the original indices). */
int cell_list_build_subset(cell_list *cl, const double *xyz, int count, double cell,
                           const unsigned char *mask);

void cell_list_free(cell_list *cl);

/* Cell coordinate ranges [lo, hi] (inclusive, clipped) of the cube of half-side r around x.
 * Returns 0 when the cube misses the list entirely. */
int cell_list_range(const cell_list *cl, const double x[3], double r, int lo[3], int hi[3]);

static inline int cell_list_index(const cell_list *cl, int cx, int cy, int cz) {
    return cx + cl->dim[0] * (cy + cl->dim[1] * cz);
}

/* Distance along axis a from coordinate x to cell c of that axis (0 when x lies within it). */
static inline double cell_list_gap(const cell_list *cl, int a, int c, double x) {
    const double lo = cl->origin[a] + c * cl->cell, hi = lo + cl->cell;
    return x < lo ? lo - x : x > hi ? x - hi : 0.0;
}

#endif /* HOST_CELL_LIST_H */
