/* A pool of host threads for copies that must not wait for a slow thread.
 *
 * A job is a number of chunks; the caller and up to threads - 1 workers claim chunks one at a
 * time until none are left, and the call returns once every chunk is done.  Nothing waits for a
 * worker that wakes late, that shares its core with another thread or whose core is slowed: it
 * finds fewer (or no) chunks, and only a chunk it holds is waited for.  A parallel loop with a
 * fixed share per thread and a barrier at its end waits for its slowest thread instead, and
 * spinning team threads that the scheduler has left two to a core cost a time slice (about 4 ms)
 * per loop (docs/PERFORMANCE.md, run 25).  Idle workers sleep, so each wakes where a core is free.
 *
 * The library's host-side loops on a GPU solve (the medium's conversion, phi's check, the
 * transfers, DelPhi's omega scaling) all run here, none on an OpenMP team, so no team's threads
 * spin beside the pool's; on a CPU solve the same loops run on the OpenMP team that sweeps
 * (dg_host_for).  The workers are started on first use (or by dg_pool_start) and kept
 * for the process; a failed thread start only means fewer helpers (the caller always finishes
 * the job).  One job runs at a time: a second caller waits for the first job to end.  Chunks
 * must be independent; fn is called exactly once per chunk and must not itself use the pool (a
 * nested call runs its chunks on its own thread). */
#ifndef DG_HOST_POOL_H
#define DG_HOST_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*dg_pool_fn)(void *context, size_t chunk);

/** fn(context, c) for every c in [0, chunks), on the caller and up to threads - 1 workers
 *  (threads <= 0: OpenMP's default number).  Returns when all are done. */
void dg_pool_run(int threads, size_t chunks, dg_pool_fn fn, void *context);

typedef void (*dg_pool_range_fn)(void *context, size_t begin, size_t end);

/** fn(context, b, e) over [0, n) in ranges [b, e) of `grain` iterations (the last shorter), as
 *  dg_pool_run does chunks. */
void dg_pool_for(int threads, size_t n, size_t grain, dg_pool_range_fn fn, void *context);

/** Where a host loop runs, and on how many threads. */
typedef struct dg_host_loop {
    int threads; /* <= 0: OpenMP's default number */
    int on_pool; /* 1: the host pool (a GPU solve's host work: the host threads are otherwise
                    idle); 0: an OpenMP team (a CPU solve, whose sweeps keep the team busy) */
} dg_host_loop;

/** dg_pool_for on the pool, or the same ranges as a parallel loop on an OpenMP team. */
void dg_host_for(dg_host_loop where, size_t n, size_t grain, dg_pool_range_fn fn, void *context);

/** Starts the workers for `threads` (<= 0: OpenMP's default number) now, ahead of the first
 *  job. */
void dg_pool_start(int threads);

/** Workers started so far (for tests). */
int dg_pool_worker_count(void);

#ifdef __cplusplus
}
#endif

#endif
