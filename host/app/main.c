/* delphi-gpu: a DelPhi-style Poisson-Boltzmann calculation (host/app/CLI.md). */
#include <stdio.h>
#include <stdlib.h>

#include "pipeline.h"
#include "temp_files.h"

int main(int argc, char **argv) {
    pipeline *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "delphi-gpu: error: out of memory\n");
        return EXIT_SOLVER_FAILED;
    }
    /* Ctrl-C, SIGTERM or a crash removes the temporary outputs before the program ends. */
    temp_files_install_signal_cleanup();
    const int status = pipeline_execute(p, argc, argv, stdout);
    pipeline_free(p);
    free(p);
    return status;
}
