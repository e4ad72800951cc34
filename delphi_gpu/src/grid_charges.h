/* Charges at grid points (index, charge), as lists of shares are merged: the stable sort by
 * point the dense medium's derivation and the reaction field's lookups share. */
#ifndef DG_GRID_CHARGES_H
#define DG_GRID_CHARGES_H

typedef struct dg_grid_charge {
    long index; /* 0-based full-grid point */
    double charge;
} dg_grid_charge;

/* Stable sort of list[0..n) by index (each in 0..limit-1): least-significant-digit radix sort,
 * 11 bits a pass, on the threads for long lists: each takes a contiguous part of the list,
 * counts its digits, and places its items after those of the same digit from lower digits and
 * earlier parts, in order.  Equal indices keep their input order (for any number of threads),
 * so merged repeats are summed in list order.  Returns -1 when out of memory (list unchanged),
 * else 0. */
int dg_sort_grid_charges(dg_grid_charge *list, long n, long limit);

#endif /* DG_GRID_CHARGES_H */
