/* Float precision's resolution: a float iterate cannot change by less than about one rounding
 * of its largest values, so a max-change criterion below that is never met and the run would
 * go on to the iteration cap.  A check is "stalled" when
 *
 *   max change <= FLOOR_ULPS * FLT_EPSILON * max |sampled value|  (near the noise floor), and
 *   max change >  t * smallest max change of the earlier checks   (no longer falling),
 *
 * t = sqrt(g) (at least MIN_STALL_RATIO), g the factor by which SOR's asymptotic rate shrinks
 * the change between two checks: g = lambda^K over the K iterations since the previous check,
 * lambda = omega - 1 at or above the optimal omega, else ((omega mu + sqrt(omega^2 mu^2 -
 * 4 (omega - 1))) / 2)^2 with mu^2 the Gauss-Seidel spectral radius.  Genuine convergence falls
 * by about g per check, rounding noise does not fall, and t lies halfway between them (in
 * log).  FLOOR_STALLS stalled checks in a row end the solve, or more where the decay per check
 * is slow: as many as genuine convergence would need to shrink the change FLOOR_FALL-fold
 * (g^k <= FLOOR_FALL), because SOR's max change is not monotone and a slow decay (g near 1)
 * sits within its scatter: on a 193^3 sphere (omega 1.96, g 0.68) two checks without a new
 * low came at 4.4 and 4.9 ulp of max |phi| while the change went on to 3.2 ulp the next check.
 * Measured noise floors on the CPU backend: 0.5-2.5 FLT_EPSILON * max |phi|
 * (test_mixed_precision); genuine decay per check of 0.5-0.7 on protein grids of 141^3-225^3
 * (1hpv). */
#include <float.h>
#include <math.h>

#include "monitor.h"

#define FLOOR_ULPS       16.0
#define MIN_STALL_RATIO  0.5
#define FLOOR_STALLS     2
#define FLOOR_FALL       0.25
#define FLOOR_STALLS_MAX 16

/* The change's expected factor per check, or 0 when unknown. */
static double expected_factor(const dg_monitor *m, double omega) {
    const dg_solver s = m->solver;
    const double rho =
        s->options.spectral_radius > 0.0 ? s->options.spectral_radius : s->spectral_radius_cache;
    const int sweeps = m->last_check_iteration - m->previous_iteration;
    if (!(omega > 0.0) || sweeps < 1) return 0.0;
    return pow(dg_sor_decay(omega, rho), sweeps);
}

double dg_float_resolution(const dg_monitor *m) {
    return m->solver->options.precision == DG_PRECISION_FLOAT
               ? FLOOR_ULPS * FLT_EPSILON * m->max_value
               : 0.0;
}

void dg_float_floor_update(dg_monitor *m, const dg_change *change, double omega) {
    if (m->solver->options.precision != DG_PRECISION_FLOAT) return;
    const double level = FLOOR_ULPS * FLT_EPSILON * change->max_value;
    const double g = expected_factor(m, omega);
    const double ratio = fmax(MIN_STALL_RATIO, sqrt(g));
    /* beyond FLOOR_STALLS: the checks a slow decay needs to fall FLOOR_FALL-fold */
    m->floor_needed =
        g > 0.0 && g < 1.0 ? (int)fmin(ceil(log(FLOOR_FALL) / log(g)), FLOOR_STALLS_MAX) : 0;
    const int stalled =
        change->finite && change->max_abs <= level && change->max_abs > ratio * m->floor_smallest;
    m->floor_stalls = stalled ? m->floor_stalls + 1 : 0;
    if (change->max_abs < m->floor_smallest) m->floor_smallest = change->max_abs;
}

int dg_float_floor_reached(const dg_monitor *m) {
    return m->solver->options.precision == DG_PRECISION_FLOAT && !m->solver->stock_behaviour &&
           m->floor_stalls >= FLOOR_STALLS && m->floor_stalls >= m->floor_needed;
}
