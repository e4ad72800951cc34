/* The finite-difference grid: DelPhi's rules for its size, scale and centre,
 * coordinate conversions, and the memory check made before anything large is allocated. */
#ifndef HOST_GRID_H
#define HOST_GRID_H

#include <stddef.h>

#include "calc_atoms.h"
#include "delphi_gpu/delphi_gpu_calc.h"

#define GRID_DEFAULT_SCALE  1.2
#define GRID_DEFAULT_PERFIL 80.0
#define GRID_MAX_BOX        1.0e6 /* Angstrom: the widest grid box accepted */

typedef struct grid_spec {
    int n;                         /* points per side (odd, cubic grid as DelPhi's igrid) */
    double scale;                  /* grid points per Angstrom */
    double center[3];              /* Angstrom */
    double perfil;                 /* % of the box side filled by the molecule's largest extent */
    double box_min[3], box_max[3]; /* atom bounding box, radii included */
    double largest_extent;         /* max side of that box */
    int periodic;   /* periodic axes (dg_periodic_axis bits, the solver's): along them the points
                       1 .. n-2 repeat with period n-2 spacings (docs/PERIODIC.md) */
    char note[256]; /* how the size was chosen (e.g. "gsize 64 made odd: 65"), "" if nothing */
} grid_spec;

/* Choose n, scale, perfil and centre from the parameters and the atoms (scale 0: from gsize and
 * perfil; perfil 0: the default).  Returns 0, or -1 with a
 * message (no atoms, a molecule with no extent and nothing to size the grid by, a grid smaller
 * than DG_MIN_GRID_SIZE, non-positive scale/perfil, a box wider than GRID_MAX_BOX).  A molecule
 * spanning fewer than two grid spacings is accepted with a note. */
int grid_choose(const dg_calc_params *s, const calc_molecule *mol, grid_spec *g, char *msg,
                size_t msg_size);

/* Focusing's coarse grid (dg_calc_params coarse_scale / coarse_perfil): the fine grid's size
 * and centre at the coarse scale, given or such that the molecule's farthest reach from the
 * centre, doubled, fills coarse_perfil percent of the side.  Without focusing coarse->n = 0.
 * Returns 0, or -1 with a message (a scale not below the fine one, a box wider than
 * GRID_MAX_BOX, a molecule with no extent and no coarse_scale). */
int grid_choose_coarse(const dg_calc_params *s, const grid_spec *fine, grid_spec *coarse, char *msg,
                       size_t msg_size);

/* Number of points n^3. */
static inline size_t grid_points(const grid_spec *g) {
    return (size_t)g->n * g->n * g->n;
}

/* 0-based grid coordinate along an axis of a position in Angstrom:
 * (x - centre) * scale + (n - 1) / 2  (DelPhi's 1-based rule minus one). */
static inline double grid_coordinate(const grid_spec *g, int axis, double x) {
    return (x - g->center[axis]) * g->scale + 0.5 * (g->n - 1);
}

/* The interior point of a 0-based grid index p along a periodic axis (p itself along another):
 * 1 + (p - 1) mod (n - 2), so face point 0 becomes n - 2 and n - 1 becomes 1. */
static inline int grid_wrap_index(const grid_spec *g, int axis, int p) {
    if (!(g->periodic & (1 << axis))) return p;
    const int period = g->n - 2;
    return 1 + ((p - 1) % period + period) % period;
}

/* Position in Angstrom of 0-based grid coordinate i along an axis. */
static inline double grid_position(const grid_spec *g, int axis, double i) {
    return (i - 0.5 * (g->n - 1)) / g->scale + g->center[axis];
}

/* ---- Memory ------------------------------------------------------------------------------- */

typedef struct memory_plan {
    int n;                /* grid points per side */
    int double_precision; /* potential maps in double */
    int with_salt;        /* an ion-accessibility map */
    int two_run;          /* a second potential map for --solvation-two-run */
    size_t focus_points;  /* points of the focusing source map (0 = none) */
    int map_copy;         /* a double copy of a float potential for the map writers */
    int mixed;            /* mixed precision: the library also holds a float rhs (see memory.c) */
    int host_multigrid;   /* multigrid on the CPU backend: its arrays in host memory */
    int host_newton;      /* Newton's method on the CPU backend: its workspace in host memory */
} memory_plan;

/* Bytes the run needs at its peak (host side: maps, medium, the library's half grids). */
double memory_estimate_bytes(const memory_plan *plan);

/* MemAvailable from /proc/meminfo in bytes, or -1 if it cannot be read. */
double memory_available_bytes(void);

/* Refuse a plan that does not fit: returns 0 if it fits (or availability is unknown), else -1
 * with a message giving both numbers. */
int memory_check(const memory_plan *plan, char *msg, size_t msg_size);

#endif /* HOST_GRID_H */
