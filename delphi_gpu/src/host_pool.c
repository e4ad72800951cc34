/* The host thread pool (host_pool.h).
 *
 * One job at a time runs on the workers (its caller holds `busy`).  Chunks are claimed from one
 * atomic word that holds the job's tag (the low 32 bits of its generation) above the next chunk's
 * index, so a worker still holding an earlier job's description can never claim a chunk of a later
 * job. */
#define _POSIX_C_SOURCE 200809L
#include "host_pool.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#define POOL_MAX_WORKERS   255
#define INDEX_BITS         32
#define INDEX_MASK         ((((uint64_t)1) << INDEX_BITS) - 1)
#define WORKER_STACK_BYTES ((size_t)256 << 10)

typedef struct pool_job {
    dg_pool_fn fn;
    void *context;
    uint64_t chunks, tag;
    int helpers; /* workers 0 .. helpers-1 take part */
} pool_job;

static struct {
    pthread_mutex_t lock; /* the fields below up to `job`, and the workers' sleep */
    pthread_cond_t wake;
    pthread_mutex_t busy; /* held by the caller of the job on the pool */
    pthread_once_t once;
    int workers, quit;
    uint64_t generation;
    pool_job job;
    uint64_t start_generation[POOL_MAX_WORKERS]; /* what a new worker has seen */
    pthread_t thread[POOL_MAX_WORKERS];
    _Atomic uint64_t claim; /* tag << INDEX_BITS | next unclaimed chunk */
    _Atomic uint64_t done;  /* chunks of the current job finished */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .busy = PTHREAD_MUTEX_INITIALIZER,
          .once = PTHREAD_ONCE_INIT};

/* Set on the pool's workers and on a caller during its job: a nested call runs serially. */
static _Thread_local int in_pool_job;

/* Claim and run chunks of job until none of it is left (or a later job has replaced it). */
static void pool_work(const pool_job *job) {
    uint64_t v = atomic_load_explicit(&pool.claim, memory_order_acquire);
    for (;;) {
        if ((v >> INDEX_BITS) != job->tag || (v & INDEX_MASK) >= job->chunks) return;
        if (atomic_compare_exchange_weak_explicit(&pool.claim, &v, v + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            job->fn(job->context, (size_t)(v & INDEX_MASK));
            atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
            v = atomic_load_explicit(&pool.claim, memory_order_acquire);
        }
    }
}

static void *pool_worker(void *arg) {
    const int index = (int)(intptr_t)arg;
    in_pool_job = 1;
    pthread_mutex_lock(&pool.lock);
    uint64_t seen = pool.start_generation[index];
    for (;;) {
        while (pool.generation == seen && !pool.quit)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.quit) break;
        seen = pool.generation;
        if (index >= pool.job.helpers) continue;
        const pool_job job = pool.job;
        pthread_mutex_unlock(&pool.lock);
        pool_work(&job);
        pthread_mutex_lock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* In a child process after fork: no workers exist there, and a lock held by another thread of
   the parent would never be released. */
static void pool_after_fork_in_child(void) {
    pthread_mutex_init(&pool.lock, NULL);
    pthread_mutex_init(&pool.busy, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pool.workers = 0;
}

static void pool_register_fork_handler(void) {
    pthread_atfork(NULL, NULL, pool_after_fork_in_child);
}

/* Start workers until `wanted` exist (fewer when a start fails); pool.lock held.  The workers
   block every signal: the program's handlers run on its own threads. */
static void pool_grow(int wanted) {
    if (pool.workers >= wanted) return;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool.workers < wanted) {
        const int index = pool.workers;
        pool.start_generation[index] = pool.generation;
        if (pthread_create(&pool.thread[index], &attr, pool_worker, (void *)(intptr_t)index) != 0)
            break;
        pool.workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

static int pool_threads(int threads) {
    const int n = threads > 0 ? threads : omp_get_max_threads();
    return n < POOL_MAX_WORKERS + 1 ? n : POOL_MAX_WORKERS + 1;
}

void dg_pool_start(int threads) {
    const int n = pool_threads(threads);
    if (n <= 1) return;
    pthread_once(&pool.once, pool_register_fork_handler);
    pthread_mutex_lock(&pool.lock);
    pool_grow(n - 1);
    pthread_mutex_unlock(&pool.lock);
}

void dg_pool_run(int threads, size_t chunks, dg_pool_fn fn, void *context) {
    if (chunks == 0) return;
    int n = pool_threads(threads);
    if ((size_t)n > chunks) n = (int)chunks;
    if (n <= 1 || in_pool_job || (uint64_t)chunks > INDEX_MASK) {
        for (size_t c = 0; c < chunks; ++c)
            fn(context, c);
        return;
    }
    pthread_once(&pool.once, pool_register_fork_handler);
    pthread_mutex_lock(&pool.busy);
    in_pool_job = 1;
    pthread_mutex_lock(&pool.lock);
    pool_grow(n - 1);
    const int helpers = pool.workers < n - 1 ? pool.workers : n - 1;
    pool.generation++;
    const pool_job job = {fn, context, (uint64_t)chunks, pool.generation & INDEX_MASK, helpers};
    pool.job = job;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.claim, job.tag << INDEX_BITS, memory_order_release);
    if (helpers > 0) pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    pool_work(&job);
    /* Only chunks claimed by workers can be left; give their threads the core if they share it. */
    while (atomic_load_explicit(&pool.done, memory_order_acquire) < job.chunks)
        sched_yield();
    in_pool_job = 0;
    pthread_mutex_unlock(&pool.busy);
}

typedef struct range_job {
    dg_pool_range_fn fn;
    void *context;
    size_t n, grain;
} range_job;

static void range_chunk(void *context, size_t chunk) {
    const range_job *r = context;
    const size_t begin = chunk * r->grain;
    r->fn(r->context, begin, begin + r->grain < r->n ? begin + r->grain : r->n);
}

void dg_pool_for(int threads, size_t n, size_t grain, dg_pool_range_fn fn, void *context) {
    if (grain == 0) grain = 1;
    range_job r = {fn, context, n, grain};
    dg_pool_run(threads, (n + grain - 1) / grain, range_chunk, &r);
}

void dg_host_for(dg_host_loop where, size_t n, size_t grain, dg_pool_range_fn fn, void *context) {
    if (where.on_pool) {
        dg_pool_for(where.threads, n, grain, fn, context);
        return;
    }
    if (grain == 0) grain = 1;
    const long chunks = (long)((n + grain - 1) / grain);
    if (chunks == 0) return;
    const int threads = where.threads > 0 ? where.threads : omp_get_max_threads();
    const int team = chunks < threads ? (int)chunks : threads; /* >= 1 */
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (long c = 0; c < chunks; ++c) {
        const size_t begin = (size_t)c * grain;
        fn(context, begin, begin + grain < n ? begin + grain : n);
    }
}

int dg_pool_worker_count(void) {
    pthread_mutex_lock(&pool.lock);
    const int n = pool.workers;
    pthread_mutex_unlock(&pool.lock);
    return n;
}

/* When the library is unloaded (or the process ends): the workers leave and are joined, so none
   runs code that is no longer mapped. */
__attribute__((destructor)) static void pool_stop(void) {
    pthread_mutex_lock(&pool.lock);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.wake);
    const int n = pool.workers;
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < n; ++i)
        pthread_join(pool.thread[i], NULL);
    pthread_mutex_lock(&pool.lock);
    pool.workers = 0;
    pthread_mutex_unlock(&pool.lock);
}
