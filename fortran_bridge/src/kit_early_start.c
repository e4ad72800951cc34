/* The DelPhi kit's early CUDA start-up: when this library is loaded (DelPhi's executable starts),
 * CUDA's start-up and a warm-up of the SOR kernels begin on a background thread
 * (dg_delphi_begin_warm_up: the kernels loaded, a float solver kept for the first call), so that
 * they overlap DelPhi's own set-up (reading the molecule, building the grid) instead of adding
 * to the first itit/nitit call.  When the library is unloaded (the program ends) it waits for
 * that thread, so that the program never exits while CUDA is still starting.
 *
 * Off by default: a process much shorter than CUDA's start-up would then wait for it at exit
 * (measured on an H100 with CUDA's start-up alone: a Born-sized DelPhi run 0.36 s instead of
 * 0.02 s), and the GPU must never
 * make a run slower.  Environment: DELPHI_GPU_EARLY_START=1 turns it on (a large grid's first
 * call then starts in tens of milliseconds instead of a few tenths of a second);
 * DELPHI_GPU_BACKEND=cpu (any case) and a build without CUDA skip it; DELPHI_GPU_DEVICE=<n>
 * picks the device (default 0). */
#include <stdlib.h>
#include <strings.h>

#include "delphi_gpu/delphi_compat.h"
#include "delphi_gpu/delphi_gpu.h"

static int early_start_wanted(int *device) {
    const char *early = getenv("DELPHI_GPU_EARLY_START");
    if (!early || early[0] != '1' || early[1] != '\0') return 0;
    const char *backend = getenv("DELPHI_GPU_BACKEND");
    if (backend && strcasecmp(backend, "cpu") == 0) return 0;
    if (!dg_backend_built(DG_BACKEND_CUDA)) return 0;
    *device = 0;
    const char *text = getenv("DELPHI_GPU_DEVICE");
    if (text && text[0]) {
        char *end = NULL;
        long value = strtol(text, &end, 10);
        if (*end != '\0' || value < 0 || value > 1024) return 0; /* the kit reports it later */
        *device = (int)value;
    }
    return 1;
}

__attribute__((constructor)) static void dg_kit_begin_cuda_start(void) {
    int device = 0;
    /* A failure here only means no warm-up: the solver's own start-up reports any problem. */
    if (early_start_wanted(&device)) (void)dg_delphi_begin_warm_up(device);
}

__attribute__((destructor)) static void dg_kit_wait_cuda_start(void) {
    dg_delphi_wait_warm_up();
    dg_wait_cuda_start();
}
