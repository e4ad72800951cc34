/* delphi-gpu: a DelPhi-style Poisson-Boltzmann calculation (host/app/CLI.md). */
#include <stdio.h>
#include <stdlib.h>

#include "pipeline.h"

int main(int argc, char **argv) {
    pipeline *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "delphi-gpu: error: out of memory\n");
        return EXIT_SOLVER_FAILED;
    }
    const int status = pipeline_execute(p, argc, argv, stdout);
    pipeline_free(p);
    free(p);
    return status;
}
