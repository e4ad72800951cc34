/* delphi-gpu: a DelPhi-style Poisson-Boltzmann calculation (host/app/CLI.md). */
#include <stdio.h>

#include "batch.h"
#include "temp_files.h"

int main(int argc, char **argv) {
    /* Ctrl-C, SIGTERM or a crash removes the temporary outputs before the program ends. */
    temp_files_install_signal_cleanup();
    return batch_execute(argc, argv, stdout);
}
