/* The grid watch of the DelPhi entry points (dg_delphi_watch_grid, delphi_compat.c), which the
 * kit uses to begin CUDA's start-up while DelPhi sets up a large grid:
 *  - argument errors are refused with their status;
 *  - while the watched edge stays below the threshold no warm-up begins, and a watch ended by
 *    dg_delphi_stop_watch (as the first itit/nitit call ends it) never begins one, even when
 *    the edge grows afterwards;
 *  - a new watch whose edge reaches the threshold begins the warm-up within a few periods.
 * Without a GPU the warm-up itself fails on its thread (only a warm-up: calls report failures);
 * without CUDA in the build the watch is refused (DG_ERR_BACKEND_NOT_BUILT). */
#include <stdatomic.h>
#include <time.h>

#include "delphi_gpu/delphi_compat.h"
#include "test_util.h"

static atomic_int edge;

static int watched_edge(void) {
    return atomic_load(&edge);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int main(void) {
    CHECK(dg_delphi_watch_grid(NULL, 193, 0) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_delphi_watch_grid(watched_edge, 0, 0) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_delphi_watch_grid(watched_edge, 193, -1) == DG_ERR_INVALID_ARGUMENT);
    dg_delphi_stop_watch(); /* no watch: no effect */
    if (!dg_backend_built(DG_BACKEND_CUDA)) {
        CHECK(dg_delphi_watch_grid(watched_edge, 193, 0) == DG_ERR_BACKEND_NOT_BUILT);
        CHECK_DONE();
    }

    /* small grid: watched for 20 periods, nothing begins; stopped, then grown: still nothing */
    atomic_store(&edge, 81);
    CHECK(dg_delphi_watch_grid(watched_edge, 193, 0) == DG_OK);
    sleep_ms(100);
    CHECK(!dg_delphi_warm_up_begun(), "a warm-up began for an 81^3 grid");
    dg_delphi_stop_watch();
    atomic_store(&edge, 219);
    sleep_ms(50);
    CHECK(!dg_delphi_warm_up_begun(), "a stopped watch began a warm-up");

    /* a new watch: the edge reaches the threshold (one below it first) */
    atomic_store(&edge, 192);
    CHECK(dg_delphi_watch_grid(watched_edge, 193, 0) == DG_OK);
    CHECK(dg_delphi_watch_grid(watched_edge, 193, 0) == DG_OK); /* already watching */
    sleep_ms(40);
    CHECK(!dg_delphi_warm_up_begun(), "a warm-up began for a 192^3 grid (threshold 193)");
    atomic_store(&edge, 193);
    int waited = 0;
    while (!dg_delphi_warm_up_begun() && waited < 2000)
        sleep_ms(5), waited += 5;
    CHECK(dg_delphi_warm_up_begun(), "no warm-up 2 s after the grid reached the threshold");
    CHECK(waited <= 500, "the warm-up began %d ms after the grid reached the threshold", waited);
    dg_delphi_stop_watch();
    dg_delphi_wait_warm_up();
    CHECK_DONE();
}
