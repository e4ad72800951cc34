/* A program with libdelphi_gpu_start.a linked in (delphi_gpu_start.h), for
 * start_wait.sh: prints what the start chose, the environment it left, and runs one OpenMP
 * parallel region (so that OMP_DISPLAY_ENV shows the runtime's settings). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "delphi_gpu_start.h"

int main(int argc, char **argv) {
    const char *choice = dg_wait_start_choice();
    const char *marker = getenv(DG_WAIT_CHOSEN_VARIABLE);
    const char *policy = getenv("OMP_WAIT_POLICY");
    printf("choice: %s\n", choice ? choice : "(none)");
    printf("marker: %s\n", marker ? marker : "(none)");
    printf("OMP_WAIT_POLICY: %s\n", policy ? policy : "(none)");
    printf("arguments:");
    for (int i = 1; i < argc; ++i)
        printf(" [%s]", argv[i]);
    printf("\n");
    int threads = 0;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
    }
    printf("threads: %d\n", threads);
    return threads > 0 ? 0 : 1;
}
