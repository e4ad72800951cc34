/* How the program's OpenMP threads wait between parallel regions.
 *
 * OpenMP's runtime spins its idle threads by default.  When several processes share the cores
 * (a driver such as MCCE runs one per conformer, side by side), the spinning threads of each
 * take the cores the others need: measured on 16 cores, 16 such runs side by side took 32 s
 * spinning and 0.33 s waiting passively; alone, one such run took 0.038 s spinning and 0.052 s
 * passively (docs/PERFORMANCE.md run 57).  So, unless the environment chooses (OMP_WAIT_POLICY,
 * GOMP_SPINCOUNT, KMP_BLOCKTIME) or the process is an MPI rank, the program looks at the
 * machine when it starts: with another task runnable or a one-minute load of 1 or more it waits
 * passively, else it keeps the runtime's spinning.  The runtime reads its environment before
 * main() starts, so for passive waiting the program sets OMP_WAIT_POLICY and executes itself
 * again (same process, same arguments). */
#ifndef HOST_APP_WAIT_POLICY_H
#define HOST_APP_WAIT_POLICY_H

/** Call first in main(): returns only when the process keeps its runtime as it is (the choice
 *  already made, an MPI rank, or the new image could not be executed). */
void app_choose_wait_policy(char **argv);

/** For the log: the program's choice and what it saw, the environment's choice
 *  ("OMP_WAIT_POLICY=active (the environment's)"), or NULL (an MPI rank). */
const char *app_wait_policy_description(char *buf, unsigned long size);

#endif /* HOST_APP_WAIT_POLICY_H */
