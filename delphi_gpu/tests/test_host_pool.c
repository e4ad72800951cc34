/* The host pool (host_pool.h): every chunk runs exactly once for any number of chunks and
 * threads, back-to-back jobs never mix (a worker of one job never runs a chunk of the next),
 * concurrent callers (each waiting for the pool) finish their jobs, a slow chunk is waited for,
 * a nested call runs on its own thread, dg_pool_for and dg_host_for (pool and OpenMP team)
 * cover their range exactly, the workers are
 * at most threads - 1, and a child process after fork (no workers there) still finishes its
 * jobs. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dg_check.h"
#include "host_pool.h"

#define MAX_CHUNKS 5000

typedef struct tally {
    _Atomic int runs[MAX_CHUNKS];
    _Atomic int wrong;
    int sleep_chunk; /* this chunk sleeps 20 ms (-1: none) */
} tally;

static void count_chunk(void *context, size_t chunk) {
    tally *t = context;
    if (chunk >= MAX_CHUNKS) {
        atomic_fetch_add(&t->wrong, 1);
        return;
    }
    if ((int)chunk == t->sleep_chunk) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    atomic_fetch_add(&t->runs[chunk], 1);
}

/* Runs one job of `chunks` chunks on `threads` and checks every chunk ran exactly once. */
static int run_and_count(int threads, size_t chunks, int sleep_chunk) {
    static _Thread_local tally t; /* one per caller thread, reused: a stale run shows as a 2 */
    for (size_t c = 0; c < MAX_CHUNKS; ++c)
        atomic_store(&t.runs[c], 0);
    atomic_store(&t.wrong, 0);
    t.sleep_chunk = sleep_chunk;
    dg_pool_run(threads, chunks, count_chunk, &t);
    int bad = atomic_load(&t.wrong);
    for (size_t c = 0; c < MAX_CHUNKS; ++c)
        bad += atomic_load(&t.runs[c]) != (c < chunks ? 1 : 0);
    return bad;
}

/* A chunk that itself runs a job of 10 chunks (serially, on its own thread). */
typedef struct nested {
    _Atomic int inner_runs;
} nested;

static void inner_chunk(void *context, size_t chunk) {
    (void)chunk;
    atomic_fetch_add(&((nested *)context)->inner_runs, 1);
}

static void outer_chunk(void *context, size_t chunk) {
    (void)chunk;
    dg_pool_run(4, 10, inner_chunk, context);
}

/* dg_pool_for: each index of [0, n) covered once. */
typedef struct ranges {
    _Atomic int runs[MAX_CHUNKS];
    _Atomic int bad_range;
    size_t n, grain;
} ranges;

static void range_fn(void *context, size_t begin, size_t end) {
    ranges *r = context;
    if (begin % r->grain != 0 || end > r->n || end <= begin || end - begin > r->grain)
        atomic_fetch_add(&r->bad_range, 1);
    for (size_t i = begin; i < end && i < MAX_CHUNKS; ++i)
        atomic_fetch_add(&r->runs[i], 1);
}

static void *concurrent_caller(void *arg) {
    long bad = 0;
    const int me = (int)(long)arg;
    for (int k = 0; k < 200; ++k)
        bad += run_and_count(4, (size_t)(1 + (k * 37 + me) % 300), -1);
    return (void *)bad;
}

int main(void) {
    const int threads[] = {1, 2, 3, 4, 8, 16, 0};
    const size_t chunks[] = {1, 2, 3, 7, 64, 999, MAX_CHUNKS};
    for (size_t a = 0; a < sizeof threads / sizeof *threads; ++a)
        for (size_t b = 0; b < sizeof chunks / sizeof *chunks; ++b) {
            const int bad = run_and_count(threads[a], chunks[b], -1);
            CHECK(bad == 0, "threads %d, %zu chunks: %d chunks not run exactly once", threads[a],
                  chunks[b], bad);
        }
    CHECK(dg_pool_worker_count() <= 15, "%d workers for at most 16 threads",
          dg_pool_worker_count());

    /* Back-to-back small jobs: late workers of a finished job must not touch the next one. */
    int bad = 0;
    for (int k = 0; k < 3000; ++k)
        bad += run_and_count(8, (size_t)(1 + k % 17), -1);
    CHECK(bad == 0, "back-to-back jobs: %d chunks not run exactly once", bad);

    /* A slow chunk is waited for. */
    bad = run_and_count(4, 40, 17);
    CHECK(bad == 0, "a sleeping chunk: %d chunks not run exactly once", bad);

    /* A nested call. */
    static nested inner;
    dg_pool_run(8, 16, outer_chunk, &inner);
    CHECK(atomic_load(&inner.inner_runs) == 160, "nested jobs: %d inner chunks run, not 160",
          atomic_load(&inner.inner_runs));

    /* Ranges. */
    const size_t sizes[][2] = {{0, 5}, {1, 5}, {5, 5}, {6, 5}, {4999, 64}, {5000, 1}, {77, 100}};
    for (size_t t = 0; t < 3 * sizeof sizes / sizeof *sizes; ++t) {
        static ranges r;
        const int how = (int)(t % 3); /* dg_pool_for, dg_host_for on the pool, on a team */
        for (size_t i = 0; i < MAX_CHUNKS; ++i)
            atomic_store(&r.runs[i], 0);
        atomic_store(&r.bad_range, 0);
        r.n = sizes[t / 3][0], r.grain = sizes[t / 3][1];
        const dg_host_loop where = {6, how == 1};
        if (how == 0)
            dg_pool_for(6, r.n, r.grain, range_fn, &r);
        else
            dg_host_for(where, r.n, r.grain, range_fn, &r);
        int wrong = atomic_load(&r.bad_range);
        for (size_t i = 0; i < MAX_CHUNKS; ++i)
            wrong += atomic_load(&r.runs[i]) != (i < r.n ? 1 : 0);
        CHECK(wrong == 0, "%s n %zu grain %zu: %d wrong",
              how == 0   ? "dg_pool_for"
              : how == 1 ? "dg_host_for (pool)"
                         : "dg_host_for (team)",
              r.n, r.grain, wrong);
    }

    /* Callers on four threads at once. */
    pthread_t callers[4];
    for (long i = 0; i < 4; ++i)
        CHECK(pthread_create(&callers[i], NULL, concurrent_caller, (void *)i) == 0);
    for (int i = 0; i < 4; ++i) {
        void *result = NULL;
        pthread_join(callers[i], &result);
        CHECK((long)result == 0, "concurrent caller %d: %ld chunks not run exactly once", i,
              (long)result);
    }

    /* A child process after fork has no workers; its jobs still finish. */
    fflush(NULL);
    const pid_t child = fork();
    if (child == 0) {
        int child_bad = 0;
        for (int k = 0; k < 50; ++k)
            child_bad += run_and_count(8, 100, -1);
        _exit(child_bad == 0 ? 0 : 1);
    }
    CHECK(child > 0, "fork failed");
    if (child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's jobs (status %d)",
              status);
    }
    return dg_check_report("test_host_pool");
}
