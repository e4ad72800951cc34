/* Helpers shared by the sparse and dense medium set-up (index decoding, marks). */
#ifndef DG_MEDIUM_COMMON_H
#define DG_MEDIUM_COMMON_H

#include <stddef.h>

#include "prepared.h"

/* 0-based coordinates of full index w. */
static inline void dg_coords_of(const dg_prepared *p, long w, int *x, int *y, int *z) {
    *x = (int)(w % p->nx);
    *y = (int)((w / p->nx) % p->ny);
    *z = (int)(w / ((long)p->nx * p->ny));
}

static inline int dg_is_interior(const dg_prepared *p, int x, int y, int z) {
    return x > 0 && y > 0 && z > 0 && x < p->nx - 1 && y < p->ny - 1 && z < p->nz - 1;
}

/* Decode a sparse-list entry of section `colour` into its 0-based half-index.  Checks range,
   parity (full indices) and that the point is interior.  Returns a dg_status and writes a
   message naming `list`, the entry and the value. */
int dg_decode_sparse_index(const dg_prepared *p, int index_kind, int colour, const char *list,
                           long entry, long value, long *half_index, char *message, size_t size);

/* Uniform-stencil factor DelPhi applies at a point in the sparse form's salt model, before the
   boundary correction (1/6 without salt, sf elsewhere; 0 at boundary points with salt). */

#endif /* DG_MEDIUM_COMMON_H */
