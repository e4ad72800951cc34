/* host_io: potential maps on the grid - DelPhi binary phimap, OpenDX, Gaussian cube and
 * MRC2014/CCP4 - written atomically (temporary name + rename) and read back (focusing input,
 * tests).
 *
 * Grid convention (DelPhi's): point (i, j, k), 1-based, is at
 *     x = (i - (nx+1)/2) / scale + center[0]      (likewise y, z)
 * and values are stored x fastest: value(i,j,k) = values[(i-1) + nx*((j-1) + ny*(k-1))].
 * DX and cube files list z fastest; the writers and readers reorder (MRC files are x fastest). */
#ifndef HOST_IO_MAPS_H
#define HOST_IO_MAPS_H

#include "io_common.h"
#include "molecule.h"
#include "settings.h"

typedef struct map_grid {
    int n[3];         /* points along x, y, z */
    double scale;     /* grid points per A (spacing 1/scale A) */
    double center[3]; /* A: the middle point ((n+1)/2 along each axis) */
    double *values;   /* n[0]*n[1]*n[2], x fastest, kT/e for potentials */
    int owns_values;  /* 1: map_grid_free frees values */
    char kind[11];    /* phimap record 2: "potential" (DelPhi also writes "concentrat") */
    char title[61];   /* free text for the file header */
} map_grid;

/** Allocate values (zeroed) and set the geometry; kind "potential", empty title. */
int map_grid_alloc(map_grid *m, const int n[3], double scale, const double center[3],
                   io_error *err);
/** Describe an array the caller owns (no copy; map_grid_free will not free it). */
void map_grid_wrap(map_grid *m, const int n[3], double scale, const double center[3],
                   double *values);
void map_grid_free(map_grid *m);

/** A coordinate in A of 1-based grid index `index` along axis 0/1/2 (fractions allowed). */
double map_grid_coordinate(const map_grid *m, int axis, double index);
/** Number of points. */
size_t map_grid_points(const map_grid *m);

/** Write in a format (enum map_format).  atoms (may be NULL) go into cube files; without them a
 *  cube file gets one dummy atom at the grid centre.  The DelPhi format needs a cubic grid. */
int map_write(const char *path, int format, const map_grid *m, const molecule *atoms,
              io_error *err);
/** Read a map; format -1 = recognise it from the content.  Values must be finite. */
int map_read(const char *path, int format, map_grid *m, io_error *err);
/** Recognise a map file: binary phimap, OpenDX, cube or MRC/CCP4. */
int map_detect_format(const char *path, int *format, io_error *err);

int phimap_write(const char *path, const map_grid *m, io_error *err);
int phimap_read(const char *path, map_grid *m, io_error *err);
int dx_write(const char *path, const map_grid *m, io_error *err);
int dx_read(const char *path, map_grid *m, io_error *err);
int cube_write(const char *path, const map_grid *m, const molecule *atoms, io_error *err);
int cube_read(const char *path, map_grid *m, io_error *err);
int mrc_write(const char *path, const map_grid *m, io_error *err);
int mrc_read(const char *path, map_grid *m, io_error *err);

#define IO_BOHR_IN_ANGSTROM 0.529177210903 /* CODATA 2018 */

#endif /* HOST_IO_MAPS_H */
