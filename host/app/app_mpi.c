/* The program under mpirun (app_mpi.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "app_mpi.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "delphi_gpu/delphi_gpu.h"

#ifdef DG_MPI
#include <mpi.h>

static MPI_Comm world = MPI_COMM_NULL;
static MPI_Comm own = MPI_COMM_NULL; /* the program's agreements and barriers */
static int started = 0;              /* 1 when this program called MPI_Init */

void app_mpi_init(int *argc, char ***argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) started = MPI_Init(argc, argv) == MPI_SUCCESS;
    world = MPI_COMM_WORLD;
    if (MPI_Comm_dup(world, &own) != MPI_SUCCESS) own = MPI_COMM_NULL;
}

void app_mpi_finalize(void) {
    if (own != MPI_COMM_NULL) MPI_Comm_free(&own);
    if (started) MPI_Finalize();
    started = 0;
    world = MPI_COMM_NULL;
}

int app_mpi_agree(int status) {
    if (own == MPI_COMM_NULL || app_mpi_size() == 1) return status;
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, own);
    return worst;
}

int app_mpi_all_here(int give_up) {
    if (own == MPI_COMM_NULL || app_mpi_size() == 1) return 1;
    MPI_Request request;
    if (MPI_Ibarrier(own, &request) != MPI_SUCCESS) return 0;
    struct timespec start, now, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double waited =
            (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
        if (give_up && waited > APP_MPI_WAIT_SECONDS) return 0;
        nanosleep(&nap, NULL);
    }
}

int app_mpi_rank(void) {
    int rank = 0;
    if (world != MPI_COMM_NULL) MPI_Comm_rank(world, &rank);
    return rank;
}

int app_mpi_size(void) {
    int size = 1;
    if (world != MPI_COMM_NULL) MPI_Comm_size(world, &size);
    return size;
}

void *app_mpi_comm(void) {
    return app_mpi_size() > 1 ? (void *)&world : NULL;
}

void app_mpi_abort(int status) {
    if (world != MPI_COMM_NULL) MPI_Abort(world, status);
}
#else
void app_mpi_init(int *argc, char ***argv) {
    (void)argc, (void)argv;
}

void app_mpi_finalize(void) {}

int app_mpi_rank(void) {
    return 0;
}

int app_mpi_size(void) {
    return 1;
}

void *app_mpi_comm(void) {
    return NULL;
}

void app_mpi_abort(int status) {
    (void)status;
}

int app_mpi_agree(int status) {
    return status;
}

int app_mpi_all_here(int give_up) {
    (void)give_up;
    return 1;
}
#endif

int app_mpi_device(int requested) {
    if (app_mpi_size() == 1) return requested;
    int count = 0;
    if (dg_cuda_device_count(&count) != DG_OK || count < 1) return requested;
    return (requested + app_mpi_rank()) % count;
}

void app_mpi_cores(int *usable, int *online) {
    cpu_set_t set;
    CPU_ZERO(&set);
    *usable = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    *online = n > 0 ? (int)n : 0;
}

void app_mpi_binding_note(int usable, int online, int ranks, int threads_given, char *out,
                          size_t size) {
    if (size) out[0] = '\0';
    if (ranks < 2 || threads_given || usable < 1 || online < 1) return;
    const int share = online / ranks;
    if (share < 2 || 2 * usable > share) return;
    snprintf(out, size,
             "this rank may run on %d of the node's %d cores (mpirun binds a rank to one core "
             "when it starts two or fewer), so its host stages run on %d thread%s; "
             "'mpirun --bind-to none' or '--map-by slot:PE=%d' gives each rank its share",
             usable, online, usable, usable == 1 ? "" : "s", share);
}

void app_mpi_quiet_outputs(run_settings *s) {
    if (app_mpi_rank() == 0) return;
    s->map_count = 0;
    s->frc_out_file[0] = '\0';
    s->scrg_out_file[0] = '\0';
    s->gcrg_out_file[0] = '\0';
    s->binding_residues_file[0] = '\0';
    s->modpdb_out_file[0] = '\0';
    s->eps_out_file[0] = '\0';
    s->unpdb_out_file[0] = '\0';
    s->json_file[0] = '\0';
    s->log_file[0] = '\0';
    s->quiet = 1;
}
