/* The program's precision when --precision is not given. */
#ifndef HOST_PRECISION_DEFAULT_H
#define HOST_PRECISION_DEFAULT_H

#include "settings.h"

/* THE switch: the default precision of a solve on the GPU (CUDA backend, or auto with a usable
 * GPU).  DG_PRECISION_MIXED (float sweeps, double answer and stopping test) becomes the default
 * once it measures faster than double on the GPU (scripts/device/mixed.sh); until then double.
 * On the CPU the default is always double. */
#define APP_GPU_DEFAULT_PRECISION DG_PRECISION_DOUBLE

/** s->precision when --precision was given, else the default for the backend the run will use. */
int app_default_precision(const run_settings *s);

#endif /* HOST_PRECISION_DEFAULT_H */
