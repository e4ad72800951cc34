/* The program under mpirun (a build with DG_MPI): one solve split over the ranks of
 * MPI_COMM_WORLD.  Every rank reads the inputs and runs the calculation's set-up; the solve is
 * decomposed (docs/MPI.md); rank 0 alone prints and writes the outputs.  Without DG_MPI, or
 * started without mpirun, the program is one process and these say so. */
#ifndef HOST_APP_MPI_H
#define HOST_APP_MPI_H

#include "settings.h"

/* Start MPI when the build has it (a single process is a world of one). */
void app_mpi_init(int *argc, char ***argv);
void app_mpi_finalize(void);

int app_mpi_rank(void); /* 0 without MPI */
int app_mpi_size(void); /* 1 without MPI */

/* The communicator to decompose over (dg_options.mpi_comm), NULL for a single process. */
void *app_mpi_comm(void);

/* The CUDA device of this rank: the requested one, shifted by the rank (one GPU per rank,
   round robin over the devices of the node). */
int app_mpi_device(int requested);

/* The cores this process may run on (its CPU affinity) and the node's online cores (both 0
   where they cannot be read). */
void app_mpi_cores(int *usable, int *online);

/* A note for the log when each of `ranks` ranks may run on at most half of its share of the
   node's cores (mpirun binds a rank to one core when it starts two or fewer, unless told
   otherwise) and no --threads was given: its host stages then run on that few threads.  ""
   when there is nothing to say. */
void app_mpi_binding_note(int usable, int online, int ranks, int threads_given, char *out,
                          size_t size);

/* End every rank of the job with this exit status (MPI_Abort); without MPI, nothing. */
void app_mpi_abort(int status);

/* The worst (largest) exit status of every rank, on the program's own communicator (never
   confused with the library's collective steps): each run calls it once, before its first
   collective step, so that an input one rank cannot read fails the run on every rank.  A
   single process gets its own status back. */
int app_mpi_agree(int status);

/* Every rank has got here (a barrier on the program's communicator, polled): 1 when all have;
   0 when `give_up` is set and they have not after APP_MPI_WAIT_SECONDS (a rank that failed
   alone, the others left waiting in a collective step: the caller ends the job).  Rank 0 may
   still be writing its outputs when the others arrive. */
#define APP_MPI_WAIT_SECONDS 120.0
int app_mpi_all_here(int give_up);

/* Ranks other than 0 write nothing: no maps, site file, summary, log copy or progress. */
void app_mpi_quiet_outputs(run_settings *s);

#endif /* HOST_APP_MPI_H */
