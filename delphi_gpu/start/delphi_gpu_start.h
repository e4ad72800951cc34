/* The OpenMP wait policy of a program, chosen before the OpenMP runtime starts.
 *
 * OpenMP's runtime spins its idle threads between parallel regions.  When several processes
 * share the cores (a driver such as MCCE runs one DelPhi per conformer, side by side), the
 * spinning threads of each take the cores the others need: measured on 16 cores, 16 such runs
 * side by side took 32 s spinning and 0.33 s waiting passively; alone, one run took 0.038 s
 * spinning and 0.052 s passively (docs/PERFORMANCE.md run 57).
 *
 * The runtime reads its settings when it is loaded, before any constructor of the program and
 * long before main().  Linking libdelphi_gpu_start.a (delphi_gpu/start/wait_start.c) into an
 * executable (the delphi-gpu program; a DelPhi built with the kit, patches/README.md) puts a
 * function in the executable's .preinit_array, which the dynamic loader runs before it starts any
 * shared library.  Unless the environment already chooses (OMP_WAIT_POLICY, GOMP_SPINCOUNT,
 * KMP_BLOCKTIME, or DELPHI_GPU_WAIT_POLICY_CHOSEN from an earlier choice) or the process is an MPI
 * rank, it reads the machine's load: with another task runnable or a one-minute load of at least 1
 * it executes the program again (same file, same arguments) with OMP_WAIT_POLICY=passive and
 * DELPHI_GPU_WAIT_POLICY_CHOSEN="passive R L" (the runnable tasks R and the load L it saw)
 * added to the environment; otherwise the runtime keeps spinning and dg_wait_start_choice()
 * says so.  Linux with the GNU C library only (elsewhere nothing is done).
 *
 * The executable must keep the archive's member: link with -Wl,--undefined=dg_wait_start_entry
 * (the exported CMake target delphi_gpu::delphi_gpu_start adds it), or call
 * dg_wait_start_choice(). */
#ifndef DELPHI_GPU_START_H
#define DELPHI_GPU_START_H

#ifdef __cplusplus
extern "C" {
#endif

/** The environment variable that records a passive choice ("passive R L"). */
#define DG_WAIT_CHOSEN_VARIABLE "DELPHI_GPU_WAIT_POLICY_CHOSEN"

/** When the start kept the runtime's spinning: "spin R L" (the runnable tasks and the one-minute
 *  load it saw), with " (could not execute again)" when busy but the new image could not be
 *  executed.  NULL when it chose nothing in this image (passive chosen: see the variable above;
 *  the environment's choice; an MPI rank; not Linux with the GNU C library). */
const char *dg_wait_start_choice(void);

#ifdef __cplusplus
}
#endif

#endif /* DELPHI_GPU_START_H */
