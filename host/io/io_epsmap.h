/* host_io: the dielectric map in DelPhi's compact binary layout (out(eps)).
 *
 * A Fortran unformatted sequential file (4-byte record-length markers, little-endian) of three
 * records, for a cubic grid of n points per side and w = n / 16 + 1 words per grid row:
 *   1. integer*4 1, real*4 scale, real*4 centre x, y, z (A) (as a DelPhi built with 4-byte reals
 *      writes it; one built with 8-byte reals, -fdefault-real-8, writes real*8 there: 36 bytes)
 *   2. integer*4 solute bits [3][n][n][w]: for face set a (x, y, z), the bits of grid row
 *      (j, k) (1-based j, k), word i / 16 holding the midpoint between points i and i + e_a
 *      (1-based i) at bit i mod 16: set when that midpoint lies in the molecule
 *   3. integer*4 ion bits [n][n][w]: the same for the grid points, set where mobile ions may be
 * Bit 15 of a word is added as -32768, so a word whose bit 15 is set is negative (DelPhi's
 * 16-bit words kept in 4-byte integers); bit 0 of the first word of a row is never set. */
#ifndef HOST_IO_EPSMAP_H
#define HOST_IO_EPSMAP_H

#include <stdint.h>

#include "io_common.h"

typedef struct epsilon_map {
    int n;                               /* points per side */
    double scale;                        /* points per A */
    double center[3];                    /* A */
    const unsigned char *solute;         /* [3 n^3]: a n^3 + p, x fastest; nonzero = solute */
    const unsigned char *ion_accessible; /* [n^3]; nonzero = ions may be there */
} epsilon_map;

/** Words per grid row: n / 16 + 1. */
int epsmap_words(int n);

/** Write the map (atomically).  Refuses a grid whose solute record would exceed 2^31 - 1
 *  bytes. */
int epsmap_write(const char *path, const epsilon_map *m, io_error *err);

/** Read a file of this layout (either byte order, real*4 or real*8 in the first record): n,
 *  scale and centre, and the two bit
 *  records as 4-byte words, solute [3 n n w] and ions [n n w] (allocated; free() them). */
int epsmap_read(const char *path, int *n, double *scale, double center[3], int32_t **solute,
                int32_t **ions, io_error *err);

#endif /* HOST_IO_EPSMAP_H */
