/* Solver progress: every convergence check is kept for the log's convergence table; on long
 * solves a progress line (iteration, max change, rate, estimated time left) goes to the log
 * as a progress line (hidden on the terminal by --quiet) at most every PROGRESS_INTERVAL s. */
#ifndef HOST_PROGRESS_H
#define HOST_PROGRESS_H

#include "delphi_gpu/delphi_gpu.h"
#include "io_log.h"

#define PROGRESS_FIRST_LINE 1.0 /* seconds into a solve before the first line */
#define PROGRESS_INTERVAL   2.0 /* seconds between lines */

typedef struct progress_state {
    io_log *log;          /* where the lines go; NULL = nowhere */
    const char *label;    /* "solve", "reference solve" */
    double last_line;     /* elapsed seconds of the last printed line */
    int lines;            /* lines printed during this solve */
    dg_progress *history; /* every check of the current solve */
    int count, capacity;
} progress_state;

/* Forget the previous solve's history (call before each solve). */
void progress_reset(progress_state *p, const char *label);

void progress_free(progress_state *p);

/* The dg_progress_fn body; always returns 0 (never stops the solve). */
int progress_record(const dg_progress *now, progress_state *p);

#endif /* HOST_PROGRESS_H */
