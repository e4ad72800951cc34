/* The delphi-gpu program as a function: settings -> molecule -> calculation -> outputs, with
 * the log and the exit status of host/app/CLI.md.  main() calls it; the tests call it in
 * process to look at the numbers as well as the files. */
#ifndef HOST_PIPELINE_H
#define HOST_PIPELINE_H

#include <stdio.h>

#include "calculation.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "io_binding.h"
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
    dg_calc calc;              /* the calculation layer's handle */
    int owns_calc;             /* 0 when a batch lends it (kept warm across inputs) */
    const calc_result *result; /* the calculation's state once it ran, else NULL */
    int calc_ran;
    int calc_status;    /* enum calc_status */
    char message[4096]; /* the calculation's error message, "" if none */
    progress_state progress;
    double stage_started; /* wall time the current calculation stage started */
    int summary_private;  /* the summary goes to the batch's JSON lines only */
    io_log log;
    double time_read, time_outputs, time_total;
    int exit_code;
    char backend_notice[1200]; /* said before the solve (AUTO without a GPU), "" if none */
    char backend_reason[1300]; /* why the run's backend (the JSON's solver.backend_reason) */
    int cpu_for_small_grid;    /* AUTO chose the CPU for a single small run (backend_choice.h) */
    /* --binding: each atom's partner (0 or 1; NULL when not a binding run), the partners'
       descriptions, and the result once the three runs completed (has_binding). */
    int *partner;
    char partner_name[2][BINDING_NAME_MAX];
    dg_calc_binding binding;
    int has_binding;
    double *atom_binding; /* each atom's part (kT) with --binding-residues, else NULL */
} pipeline;

/* Run the program with argv (argv[0] is the program name).  out receives the log (stdout in
 * the program, NULL for silence in tests).  Returns the exit status; the pipeline keeps the
 * results until pipeline_free. */
int pipeline_execute(pipeline *p, int argc, char **argv, FILE *out);

/* How a batch runs one of its inputs (batch.c). */
typedef struct pipeline_batch {
    dg_calc *shared;           /* the batch's handle: NULL at first, created or re-parameterised
                                  here and handed back, so one backend stays warm */
    int model;                 /* model (frame) of a multi-model molecule file, 0 = the first */
    const char *tag;           /* inserted before the extension of an output file's name; "" none */
    const char *summary_path;  /* write the JSON summary here when the run names none */
    const char *const *tagged; /* the outputs that get the tag, by canonical name
                                  (path_identity.h): those that several runs of the batch write
                                  or an earlier run read (batch.c); NULL = every output */
    int tagged_count;
    const char *const *taken; /* files no output of this run may be, by canonical name: the
                                 batch's --jsonl, list and parameter files and what earlier runs
                                 wrote */
    int taken_count;
    const char *const *inputs; /* every run's input files: no tagged output may be one */
    int input_count;
} pipeline_batch;

/* The run's output file names (the fields of s that hold them, the empty ones left out) into
 * paths; returns how many (at most max). */
int pipeline_output_paths(run_settings *s, char **paths, size_t *sizes, int max);

/* pipeline_execute for one run of a batch. */
int pipeline_execute_batch(pipeline *p, int argc, char **argv, FILE *out,
                           const pipeline_batch *batch);

void pipeline_free(pipeline *p);

#endif /* HOST_PIPELINE_H */
