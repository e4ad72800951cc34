/* The delphi-gpu program as a function: settings -> molecule -> calculation -> outputs, with
 * the log and the exit status of host/app/CLI.md.  main() calls it; the tests call it in
 * process to look at the numbers as well as the files. */
#ifndef HOST_PIPELINE_H
#define HOST_PIPELINE_H

#include <stdio.h>

#include "calculation.h"
#include "io_common.h"
#include "io_maps.h"
#include "progress.h"
#include "io_log.h"
#include "settings.h"

/* Exit statuses (CLI.md). */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_SOLVER_FAILED = 2, EXIT_NOT_CONVERGED = 3 };

typedef struct pipeline {
    run_settings settings;
    io_notes notes;
    molecule mol, sites;
    int has_sites;
    map_grid focus_map;
    int has_focus;
    phi_map focus;
    calc_result calc;
    int calc_ran;
    progress_state progress;
    io_log log;
    double time_read, time_outputs, time_total;
    int exit_code;
    char backend_notice[1200]; /* said before the solve (AUTO without a GPU), "" if none */
} pipeline;

/* Run the program with argv (argv[0] is the program name).  out receives the log (stdout in
 * the program, NULL for silence in tests).  Returns the exit status; the pipeline keeps the
 * results until pipeline_free. */
int pipeline_execute(pipeline *p, int argc, char **argv, FILE *out);

void pipeline_free(pipeline *p);

#endif /* HOST_PIPELINE_H */
