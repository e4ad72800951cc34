/* The DelPhi kit's early CUDA start-up.  CUDA's start-up (driver and context, 0.2-0.3 s on an
 * H100 machine) and a warm-up of the SOR kernels (dg_delphi_begin_warm_up: the kernels loaded, a
 * float solver kept for the first call) run on a background thread, overlapping DelPhi's own
 * set-up (reading the molecule, the surface, the boundary values) instead of adding to the
 * first itit/nitit call.
 *
 * When to begin (environment DELPHI_GPU_EARLY_START):
 *   auto (default)  when DelPhi's grid edge (igrid, read from its COMMON block by
 *                   dg_kit_grid_size in dg_itit.f every 5 ms) reaches the edge where even a
 *                   cold GPU beats the CPU loop (193, or DELPHI_GPU_MIN_POINTS when that is
 *                   larger); never for smaller grids, so a short run does not touch CUDA;
 *   1               when this library is loaded (DelPhi starts), whatever the grid;
 *   0               never (the first call on the GPU starts CUDA itself).
 * A process cannot end while CUDA is starting (exiting during the start-up crashed test
 * processes and still waited for most of it, docs/PERFORMANCE.md run 24), so when the library
 * is unloaded (the program ends) it waits for a warm-up that has begun: with auto that happens
 * only on grids whose run lasts much longer than the start-up.  DELPHI_GPU_BACKEND=cpu (any
 * case) and a build without CUDA skip it all; DELPHI_GPU_DEVICE=<n> picks the device (default
 * 0).  Values the kit rejects (checked again, with a message, at the first call) skip it too. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "delphi_gpu/delphi_compat.h"
#include "delphi_gpu/delphi_gpu.h"

/* DelPhi's igrid from its COMMON block (dg_itit.f, compiled with DelPhi's headers); NULL in
   programs that are not a DelPhi built with the kit. */
extern int dg_kit_grid_size(void) __attribute__((weak));

/* The edge below which a cold GPU loses to the CPU loop (as the kit's AUTO rule). */
#define KIT_COLD_EDGE 193

enum { EARLY_NEVER, EARLY_AUTO, EARLY_AT_LOAD };

static int whole_number(const char *text, long *value) {
    char *end = NULL;
    *value = strtol(text, &end, 10);
    return end != text && *end == '\0' && *value >= 0;
}

/* The mode and device from the environment; EARLY_NEVER when nothing is to be begun. */
static int early_start_mode(int *device, int *edge) {
    int mode = EARLY_AUTO;
    const char *early = getenv("DELPHI_GPU_EARLY_START");
    if (early && early[0]) {
        if (strcasecmp(early, "auto") == 0)
            mode = EARLY_AUTO;
        else if (strcmp(early, "1") == 0)
            mode = EARLY_AT_LOAD;
        else
            return EARLY_NEVER; /* "0", or a value the first call rejects */
    }
    const char *backend = getenv("DELPHI_GPU_BACKEND");
    if (backend && strcasecmp(backend, "cpu") == 0) return EARLY_NEVER;
    if (!dg_backend_built(DG_BACKEND_CUDA)) return EARLY_NEVER;
    long value = 0;
    *device = 0;
    const char *text = getenv("DELPHI_GPU_DEVICE");
    if (text && text[0]) {
        if (!whole_number(text, &value) || value > 1024) return EARLY_NEVER;
        *device = (int)value;
    }
    *edge = KIT_COLD_EDGE;
    text = getenv("DELPHI_GPU_MIN_POINTS");
    if (text && text[0]) {
        if (!whole_number(text, &value)) return EARLY_NEVER;
        if (value == 0) return EARLY_AT_LOAD; /* the GPU for every grid: it will start anyway */
        while ((long)*edge * *edge * *edge < value && *edge < 4096)
            ++*edge;
    }
    if (backend && strcasecmp(backend, "cuda") == 0) return EARLY_AT_LOAD; /* it will start */
    if (mode == EARLY_AUTO && !dg_kit_grid_size) return EARLY_NEVER;       /* no grid to watch */
    return mode;
}

/* The grid edge as the kit's watch sees it (for the kit's tests): DelPhi's igrid, or -1 when
   this program has no dg_kit_grid_size. */
int dg_kit_watched_grid(void) {
    return dg_kit_grid_size ? dg_kit_grid_size() : -1;
}

__attribute__((constructor)) static void dg_kit_begin_cuda_start(void) {
    int device = 0, edge = KIT_COLD_EDGE;
    /* A failure here only means no warm-up: the solver's own start-up reports any problem. */
    switch (early_start_mode(&device, &edge)) {
    case EARLY_AT_LOAD:
        (void)dg_delphi_begin_warm_up(device);
        break;
    case EARLY_AUTO:
        (void)dg_delphi_watch_grid(dg_kit_grid_size, edge, device);
        break;
    default:
        break;
    }
}

__attribute__((destructor)) static void dg_kit_wait_cuda_start(void) {
    dg_delphi_stop_watch();
    dg_delphi_wait_warm_up();
    dg_wait_cuda_start();
}
