/* A build without CUDA: the multigrid CUDA solve is absent and says so. */
#include "mg.h"

int dg_cuda_mg_solve(int device, void *backend_state, const dg_mg_hierarchy *h, int precision,
                     void *phi, int phi_is_double, const dg_phi_check_view *check, int threads,
                     const dg_mg_control *control, dg_mg_outcome *outcome, dg_error *err) {
    (void)device, (void)backend_state, (void)h, (void)precision, (void)phi, (void)phi_is_double,
        (void)control;
    (void)check, (void)threads;
    (void)outcome;
    return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                        "this library was not built with CUDA (configure with -DGPU=ON)");
}

int dg_cuda_mg_jacobian_begin(int device, const dg_mg_hierarchy *plan, int threads, void **state,
                              dg_error *err) {
    (void)device, (void)plan, (void)threads;
    *state = NULL;
    return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                        "this library was not built with CUDA (configure with -DGPU=ON)");
}

int dg_cuda_mg_jacobian_solve(void *state, const float *factor, const float *b, float *delta,
                              const dg_mg_control *control, dg_mg_outcome *outcome, dg_error *err) {
    (void)state, (void)factor, (void)b, (void)delta, (void)control, (void)outcome;
    return dg_error_set(err, DG_ERR_BACKEND_NOT_BUILT,
                        "this library was not built with CUDA (configure with -DGPU=ON)");
}

void dg_cuda_mg_jacobian_end(void *state) {
    (void)state;
}

void dg_cuda_mg_speculate_always(int on) {
    (void)on;
}

void dg_cuda_mg_class_min(long unknowns) {
    (void)unknowns;
}
