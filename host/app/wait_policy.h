/* How the program's OpenMP threads wait between parallel regions, for the log.
 *
 * The choice is made before the OpenMP runtime starts, by libdelphi_gpu_start.a linked into the
 * program (delphi_gpu/start/delphi_gpu_start.h): unless the environment chooses (OMP_WAIT_POLICY,
 * GOMP_SPINCOUNT, KMP_BLOCKTIME) or the process is an MPI rank, the program waits passively when
 * it starts on a busy machine (another task runnable, or a one-minute load of 1 or more) and
 * keeps the runtime's spinning otherwise (docs/PERFORMANCE.md run 57). */
#ifndef HOST_APP_WAIT_POLICY_H
#define HOST_APP_WAIT_POLICY_H

/** The program's choice and what it saw ("passive (the program's choice: 3 runnable tasks, load
 *  1.20; ...)"), the environment's choice ("OMP_WAIT_POLICY=active (the environment's)"), or
 *  NULL (an MPI rank, or an executable without the start library, such as a test). */
const char *app_wait_policy_description(char *buf, unsigned long size);

#endif /* HOST_APP_WAIT_POLICY_H */
