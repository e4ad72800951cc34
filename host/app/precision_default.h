/* The program's precision when --precision is not given. */
#ifndef HOST_PRECISION_DEFAULT_H
#define HOST_PRECISION_DEFAULT_H

#include "settings.h"

/* THE switch: the default precision of a solve on the GPU (CUDA backend, or auto with a usable
 * GPU).  DG_PRECISION_MIXED (float sweeps, double answer and stopping test) measured faster than
 * double on an H100 with double's iteration counts and energies (docs/PERFORMANCE.md, run 9:
 * 1hpv at 385^3, solve 0.50 s against 0.56 s), so it is the GPU default.  Newton's nonlinear
 * runs stay double (their residual is in double already), and so does the CPU. */
#define APP_GPU_DEFAULT_PRECISION DG_PRECISION_MIXED

/** s->precision when --precision was given, else the default for the backend the run will use
 *  (with --backend auto this asks the library whether a GPU is usable, which starts CUDA's
 *  driver: call it once the backend is settled). */
int app_default_precision(const run_settings *s);

/** 1 when the default precision depends on the backend AUTO will find (--backend auto, no
 *  --precision, a run that would be mixed on the GPU and double on the CPU), else 0. */
int app_precision_follows_backend(const run_settings *s);

#endif /* HOST_PRECISION_DEFAULT_H */
