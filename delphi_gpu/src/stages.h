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

/** The host implementation (OpenMP, num_threads 0 = default).  *skipped: pairs left out for
 *  r < min_distance. */
void dg_pair_potentials_host(const dg_pair_request *request, double *out, long *skipped,
                             int num_threads);

/** Validate, then run on the backend `options` choose (CPU or CUDA; no medium needed).
 *  out[target_count] receives the sums, *skipped (may be NULL) the pairs left out.  Returns a
 *  dg_status and a message naming the field or the failing backend call. */
int dg_stage_pair_potentials(const dg_options *options, const dg_pair_request *request, double *out,
                             long *skipped, char *message, size_t message_size);

#endif /* DG_STAGES_H */
