/* Float precision's resolution: a float iterate cannot change by less than about one rounding
 * of its largest values, so a max-change criterion below that is never met and the run would
 * go on to the iteration cap.  We call a check "stalled" when
 *
 *     max change <= FLOOR_ULPS * FLT_EPSILON * max |sampled value|      (near the noise floor)
 *     max change >  STALL_RATIO * smallest max change of earlier checks  (no longer falling)
 *
 * and stop after FLOOR_STALLS stalled checks in a row, so within two check intervals of the
 * change reaching the floor.  Measured noise floors on the CPU backend (test_mixed_precision):
 * 0.5-2.5 FLT_EPSILON * max |phi|; genuine SOR convergence below the level keeps falling by
 * more than STALL_RATIO per check until it meets the floor. */
#include <float.h>
#include <math.h>

#include "monitor.h"

#define FLOOR_ULPS   16.0
#define STALL_RATIO  0.5
#define FLOOR_STALLS 2

void dg_float_floor_update(dg_monitor *m, const dg_change *change) {
    if (m->solver->options.precision != DG_PRECISION_FLOAT) return;
    const double level = FLOOR_ULPS * FLT_EPSILON * change->max_value;
    const int stalled = change->finite && change->max_abs <= level &&
                        change->max_abs > STALL_RATIO * m->floor_smallest;
    m->floor_stalls = stalled ? m->floor_stalls + 1 : 0;
    if (change->max_abs < m->floor_smallest) m->floor_smallest = change->max_abs;
}

int dg_float_floor_reached(const dg_monitor *m) {
    return m->solver->options.precision == DG_PRECISION_FLOAT && m->floor_stalls >= FLOOR_STALLS;
}
