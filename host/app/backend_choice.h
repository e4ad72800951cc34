/* --backend auto for a single run: the CPU when the grid is so small that the whole run on the
 * CPU ends before CUDA would have started.
 *
 * A process that uses the GPU first waits for CUDA's start-up (the driver and the context:
 * 0.2-0.35 s on an H200 machine) and, at exit, about 0.1 s for its clean-up; a small run on the
 * CPU is over sooner.  Measured on that machine (16 cores; docs/PERFORMANCE.md run 46), the whole
 * process of a linear-PB run of ubiquitin or HIV-1 protease took as long on the CPU as on the
 * GPU at about 175^3 points with 16 threads, 149^3 with 8 and 117^3 with 4, i.e. about 300 000
 * grid points per thread or more.  On a machine of 32 cores (and two GPUs, whose start took 0.6 s)
 * the CPU crossed at about 210^3 with 16 threads and 225^3 with 32: beyond 16 threads the CPU
 * gained at most 1.35 times, so no more than 16 are counted and the rule stays on the GPU's side.
 * A run that solves twice (the two-run solvation), a nonlinear run or a binding run (three runs)
 * weighs more on the CPU.
 * A batch (several runs in one process) and a run under mpirun keep AUTO's plain rule, the GPU
 * when one works: a batch starts CUDA once for all its runs. */
#ifndef HOST_BACKEND_CHOICE_H
#define HOST_BACKEND_CHOICE_H

#include <stddef.h>

/* Grid points per CPU thread below which a single run is sooner on the CPU. */
#define APP_CPU_POINTS_PER_THREAD 300000L
/* The most threads counted. */
#define APP_CPU_THREADS_COUNTED 16

/** The grid points below which a run of `work` units (1 = one linear solve and its stages; see
 *  app_run_work) on `threads` CPU threads is sooner on the CPU than on a GPU that has yet to
 *  start.  threads < 1 counts as 1, work < 1 as 1. */
long app_cpu_points_limit(int threads, int work);

/** The work units of a run: 1, times 2 for the two-run solvation, times 2 for nonlinear PB,
 *  times 3 for a binding run (each partner alone and the complex, each a whole run on the same
 *  grid: on 16 cores the HIV-1 protease dimer's binding at 163^3 took 1.5 s on the CPU and 0.51
 *  s on the GPU, docs/PERFORMANCE.md run 59, where a single run of it is sooner on the CPU),
 *  times 2 for focusing in one run (a coarse grid of the same size first). */
int app_run_work(int two_run, int nonlinear, int binding, int focusing);

/** 1 when a single run on an n^3 grid is sooner on the CPU (the limit above), with the reason in
 *  why (one line, for the log's notice and the JSON summary); else 0 and why = "". */
int app_cpu_sooner(int n, int threads, int work, char *why, size_t size);

#endif /* HOST_BACKEND_CHOICE_H */
