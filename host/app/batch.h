/* Batch runs (CLI.md, "Batch runs"): several parameter files, a list of them (--batch) and/or
 * every model of a multi-model molecule file (--frames), in one process with one calculation
 * handle, so the backend (the GPU context, the tuned launch shape) stays warm; one JSON
 * summary per run (--json, tagged) and/or JSON lines (--jsonl). */
#ifndef HOST_BATCH_H
#define HOST_BATCH_H

#include <stdio.h>

/* The program: a single run as always, or a batch when the arguments ask for one.  Returns the
 * exit status (a batch: the first non-zero status of its runs, in order). */
int batch_execute(int argc, char **argv, FILE *out);

#endif /* HOST_BATCH_H */
