/* delphi-gpu: a DelPhi-style Poisson-Boltzmann calculation (host/app/CLI.md). */
#include <stdio.h>

#include "app_mpi.h"
#include "batch.h"
#include "pipeline.h"
#include "delphi_gpu/delphi_gpu.h"
#include "temp_files.h"

/* OpenMP's threads wait passively when the program starts on a busy machine, unless the
   environment chooses: libdelphi_gpu_start.a, linked in, decides (and may execute the program
   again) before the OpenMP runtime starts (host/app/wait_policy.h). */
int main(int argc, char **argv) {
    /* Under mpirun the ranks share the solve; rank 0 prints and writes (app_mpi.h). */
    app_mpi_init(&argc, &argv);
    /* Ctrl-C, SIGTERM or a crash removes the temporary outputs before the program ends. */
    temp_files_install_signal_cleanup();
    const int status = batch_execute(argc, argv, app_mpi_rank() == 0 ? stdout : NULL);
    /* A CUDA start-up begun for a run that then failed before using it ends before the
       process does (the driver's start must not be cut off by exit). */
    dg_wait_cuda_start();
    /* Under mpirun every rank waits here for the others (rank 0 may still be writing its
       outputs).  A rank that failed alone (a failure the runs did not agree on) and whose
       partners do not arrive ends the whole job: they are waiting for it in a collective step.
       Its outputs are already removed. */
    const int failed = status != EXIT_OK && status != EXIT_NOT_CONVERGED;
    if (app_mpi_size() > 1 && !app_mpi_all_here(failed)) app_mpi_abort(status);
    app_mpi_finalize();
    return status;
}
