/* Stage operations: the parts of a PB calculation outside the solve whose cost grows as
 * points x atoms, run on the solve's backend (CPU/OpenMP or CUDA).  Plain arrays in, plain
 * arrays out; every sum is accumulated in double, sources in index order, so each backend gives
 * the same value term for term (the CUDA kernels are built without FMA contraction).
 *
 * These are internal entry points of the library (not part of the public C API): the calculation
 * layer calls them with the dg_options of its solve. */
#ifndef DG_STAGES_H
#define DG_STAGES_H

#include <stddef.h>

#include "delphi_gpu/delphi_gpu.h"

/** Coulomb sums of a set of point charges at target points.
 *
 *  out[k] = sum_i charges[i] / r_ki over the sources i in index order, with
 *  r_ki = sqrt(dx*dx + dy*dy + dz*dz), (dx, dy, dz) = target k - source i.  Pairs with
 *  r_ki < min_distance are left out and counted.  With upper_triangle (targets are the sources,
 *  target_count == source_count) only sources i > k enter out[k]: sum_k q_k out[k] is then the
 *  pair energy sum_{k<i} q_k q_i / r_ki, each pair once. */
typedef struct dg_pair_request {
    const double *targets; /**< [3 * target_count] */
    long target_count;
    const double *sources; /**< [3 * source_count] */
    const double *charges; /**< [source_count] */
    long source_count;
    int upper_triangle;
    double min_distance;
} dg_pair_request;

/** The same on an existing solver's backend (no new handle; the solver needs no medium).  With
 *  solver NULL: a temporary CPU handle with the default options. */
int dg_stage_pair_potentials_on(dg_solver solver, const dg_pair_request *request, double *out,
                                long *skipped, char *message, size_t message_size);

/** The host implementation (OpenMP, num_threads 0 = default).  *skipped: pairs left out for
 *  r < min_distance. */
void dg_pair_potentials_host(const dg_pair_request *request, double *out, long *skipped,
                             int num_threads);

/** Coulomb fields: out[3k + a] = sum_i q_i (t_k - s_i)_a / r^3 over the sources i at r >=
 *  min_distance from target k (upper_triangle must be 0), on the solver's backend (its
 *  pair_fields op, else the host's threads: the same sums bit for bit).  With solver NULL: the
 *  host's threads. */
int dg_stage_pair_fields_on(dg_solver solver, const dg_pair_request *request, double *out,
                            long *skipped, char *message, size_t message_size);

/** The host implementation of the fields (OpenMP, num_threads 0 = default): each target's terms
 *  in source order, w = q / (r r r) times each component (a left-out pair adds +0.0). */
void dg_pair_fields_host(const dg_pair_request *request, double *out, long *skipped,
                         int num_threads);

/** Validate, then run on the backend `options` choose (CPU or CUDA; no medium needed).
 *  out[target_count] receives the sums, *skipped (may be NULL) the pairs left out.  Returns a
 *  dg_status and a message naming the field or the failing backend call. */
int dg_stage_pair_potentials(const dg_options *options, const dg_pair_request *request, double *out,
                             long *skipped, char *message, size_t message_size);

/** A uniform cell list in CSR form: the items of cell (cx, cy, cz) are
 *  items[start[c] .. start[c+1]), c = cx + dim[0] (cy + dim[1] cz); cell (0,0,0) has its corner
 *  at origin. */
typedef struct dg_cell_grid {
    double origin[3];
    double cell;
    int dim[3];
    const int *start; /**< [cells + 1] */
    const int *items; /**< [start[cells]] */
} dg_cell_grid;

/** The dielectric medium and the ion map of a cubic grid from atoms and a surface description.
 *
 *  Grid: n points per axis, position of 0-based coordinate i: (i - (n-1)/2) / scale + center.
 *  Face set a: the midpoints (i,j,k) + e_a / 2.  A midpoint is solute (1) when inside an atom
 *  sphere (d^2 <= radius^2), solvent (0) when outside every sphere of radius sas_radius; in
 *  between (the shell) it is solvent when, with molecular and probe > 0, an accessible probe
 *  centre lies closer than probe: the contact probe of an exposed atom (radial projection onto
 *  its SAS sphere, accessible when outside the SAS spheres of the atom's neighbours) or an arc
 *  dot.  Ion map (ion_map): a grid point is 1 when at d^2 > (radius + ion_radius)^2 from every
 *  atom.  Atoms are visited only on the grid planes and in the disks their spheres reach, the
 *  way the host medium builder does, so the maps agree byte for byte. */
typedef struct dg_surface_request {
    int n;
    double scale;
    double center[3];
    int count;                /**< atoms (radius > 0) */
    const double *xyz;        /**< [3 * count] */
    const double *radius;     /**< [count] */
    const double *sas_radius; /**< [count] radius + probe */
    double max_radius, max_sas_radius;
    double probe;
    int molecular;             /**< 1: the SES shell test; 0: van der Waals surface */
    const int *neighbor_start; /**< [count + 1] CSR of the SAS neighbours */
    const int *neighbors;
    dg_cell_grid atoms;         /**< all atoms (surface sites only; items are atom indices) */
    dg_cell_grid exposed_atoms; /**< the exposed atoms (items are atom indices) */
    int dot_count;
    const double *dots;     /**< [3 * dot_count] accessible arc dots */
    dg_cell_grid dot_cells; /**< the dots (items are dot indices) */
    int ion_map;
    double ion_radius;
} dg_surface_request;

/** What the medium maps hold (as the host medium builder counts them). */
typedef struct dg_medium_counts {
    size_t solute_faces[3];
    size_t shell_points, reentrant_points;
    size_t ion_accessible_points;
} dg_medium_counts;

/** face[3] (n^3 bytes each) and, with ion_map, ion (n^3 bytes) on the backend `options` choose.
 *  Returns a dg_status with a message. */
int dg_stage_medium_maps(const dg_options *options, const dg_surface_request *request,
                         unsigned char *face[3], unsigned char *ion, dg_medium_counts *counts,
                         char *message, size_t message_size);

/** The same on an existing solver's backend (no new handle). */
int dg_stage_medium_maps_on(dg_solver solver, const dg_surface_request *request,
                            unsigned char *face[3], unsigned char *ion, dg_medium_counts *counts,
                            char *message, size_t message_size);

/** Surface sites: each point x_k (3 per point) projected onto the surface (the probe sphere of
 *  the nearest accessible probe centre within probe + reach for the molecular surface when x_k
 *  lies in some SAS sphere, else the nearest atom sphere), searching atoms within reach (at most
 *  8 A) of x_k; a point with no atom in reach is left in place and counted in *unprojected.
 *  The surface model's projection (calc/surface_query.c) expression for expression.  owners
 *  (may be NULL): each site's atom (the request's index of the atom whose surface is nearest to
 *  x_k: least distance minus radius), -1 for an unprojected point. */
int dg_stage_surface_sites_on(dg_solver solver, const dg_surface_request *request,
                              const double *points, long count, double reach, double *sites,
                              int *owners, long *unprojected, char *message, size_t message_size);

/** Arc dots of a molecular surface: for every atom i (ascending) and each SAS neighbour j > i in
 *  the order of i's neighbour list, the circle where their SAS spheres meet (dg_sp_circle),
 *  sampled at circle_dots angles (cos and sin in angles[2 t], angles[2 t + 1]); a dot is kept
 *  when no neighbour of i other than j covers it (dg_sp_sas_covers).  The dots of the surface
 *  model (calc/surface_model.c) bit for bit, in its order. */
typedef struct dg_arc_dots_request {
    int count;                 /**< atoms */
    const double *xyz;         /**< [3 * count] */
    const double *sas_radius;  /**< [count] */
    const int *neighbor_start; /**< [count + 1] CSR of the SAS neighbours */
    const int *neighbors;
    int circle_dots;
    const double *angles; /**< [2 * circle_dots] */
} dg_arc_dots_request;

/** The arc dots on the solver's backend.  counts[count] receives each atom's dots; *dots a
 *  malloc'ed array of the 3 * *total coordinates, atom by atom (the caller frees it; NULL when
 *  there are none).  DG_ERR_UNSUPPORTED when the backend has no such operation (the CPU
 *  backend: the surface model finds its dots on the host threads); DG_ERR_OUT_OF_MEMORY when
 *  the dots would exceed INT_MAX / 3 or do not fit. */
int dg_stage_arc_dots_on(dg_solver solver, const dg_arc_dots_request *request, int *counts,
                         double **dots, long *total, char *message, size_t message_size);

/** The host implementation of the surface sites (OpenMP). */
void dg_surface_sites_host(const dg_surface_request *request, const double *points, long count,
                           double reach, double *sites, int *owners, long *unprojected,
                           int num_threads);

/** The host implementation (OpenMP). */
void dg_medium_maps_host(const dg_surface_request *request, unsigned char *face[3],
                         unsigned char *ion, dg_medium_counts *counts, int num_threads);

#endif /* DG_STAGES_H */
