/* The program's default precision (precision_default.h). */
#include "precision_default.h"

#include "app_mpi.h"
#include "delphi_gpu/delphi_gpu.h"

/* The precision when it does not depend on whether AUTO finds a GPU; -1 when it does. */
static int fixed_precision(const run_settings *s) {
    if (s->precision_given) return s->precision;
    if (APP_GPU_DEFAULT_PRECISION == DG_PRECISION_DOUBLE || s->backend == DG_BACKEND_CPU)
        return DG_PRECISION_DOUBLE;
    if (s->nonit > 0 && s->nonlinear_method != NONLINEAR_DELPHI) return DG_PRECISION_DOUBLE;
    if (app_mpi_size() > 1) return DG_PRECISION_DOUBLE; /* mixed runs on one process */
    if (s->backend == DG_BACKEND_CUDA) return APP_GPU_DEFAULT_PRECISION;
    return -1;
}

int app_precision_follows_backend(const run_settings *s) {
    return fixed_precision(s) < 0;
}

int app_default_precision(const run_settings *s) {
    const int fixed = fixed_precision(s);
    if (fixed >= 0) return fixed;
    int count = 0; /* auto: the GPU when one is usable, as the library decides */
    return dg_backend_built(DG_BACKEND_CUDA) && dg_cuda_device_count(&count) == DG_OK && count > 0
               ? APP_GPU_DEFAULT_PRECISION
               : DG_PRECISION_DOUBLE;
}
