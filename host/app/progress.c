/* Progress lines and check history. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>

void progress_reset(progress_state *p, const char *label) {
    p->label = label;
    p->last_line = 0.0;
    p->lines = 0;
    p->count = 0;
}

void progress_free(progress_state *p) {
    free(p->history);
    p->history = NULL;
    p->count = p->capacity = 0;
}

int progress_record(const dg_progress *now, progress_state *p) {
    if (p->count == p->capacity) {
        const int grown = p->capacity ? 2 * p->capacity : 256;
        dg_progress *h = realloc(p->history, (size_t)grown * sizeof *h);
        if (h) p->history = h, p->capacity = grown;
    }
    if (p->count < p->capacity) p->history[p->count++] = *now;
    if (!p->log) return 0;
    const double t = now->elapsed_seconds;
    if (t < PROGRESS_FIRST_LINE || (p->lines && t - p->last_line < PROGRESS_INTERVAL)) return 0;
    p->last_line = t;
    p->lines++;
    const double rate = t > 0 ? now->iteration / t : 0.0;
    /* a linear multigrid solve counts cycles (max_change: a cycle's change of phi) */
    const int cycles = now->solver == DG_SOLVER_MULTIGRID && now->phase == DG_PHASE_LINEAR;
    char left[64] = "";
    if (now->estimated_total > now->iteration && rate > 0)
        snprintf(left, sizeof left, ", about %.0f s left (of %d %s)",
                 (now->estimated_total - now->iteration) / rate, now->estimated_total,
                 cycles ? "cycles" : "iterations");
    char block[32] = "";
    if (now->phase == DG_PHASE_NONLINEAR)
        snprintf(block, sizeof block, " nonlinear block %d,", now->nonlinear_block);
    if (cycles)
        log_progress(p->log, "%s: cycle %d, max change %.3e kT/e, %.2f cycles/s%s",
                     p->label ? p->label : "solve", now->iteration, now->max_change, rate, left);
    else
        log_progress(p->log, "%s:%s iteration %d, max change %.3e kT/e, %.0f it/s%s",
                     p->label ? p->label : "solve", block, now->iteration, now->max_change, rate,
                     left);
    return 0;
}
