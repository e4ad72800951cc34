/* A build without CUDA: the CUDA backend is absent and says so. */
#include "backend.h"
#include "newton_backend.h"
#include "delphi_gpu/delphi_gpu_types.h"

const dg_backend_ops *dg_cuda_backend(void) {
    return NULL;
}

int dg_cuda_count_devices(int *count, dg_error *err) {
    if (count) *count = 0;
    return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                        "this library was not built with CUDA (configure with -DGPU=ON)");
}

const dg_newton_ops *dg_cuda_newton(void) {
    return NULL;
}
int dg_cuda_begin_start(int device, dg_error *err) {
    (void)device;
    return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                        "this library was not built with CUDA (configure with -DGPU=ON)");
}

void dg_cuda_wait_start(void) {}

void dg_cuda_set_pinned_floor(size_t bytes) {
    (void)bytes;
}
