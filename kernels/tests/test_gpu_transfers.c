/* The CUDA backend's transfers (transfer_check.h): the faces-only load gives bitwise the iterates
 * of the full load in every precision and for float and double arrays, round trips keep every
 * value, on a grid of one slab and on one of several slabs (the double-buffered pipeline), and
 * the solver takes the faces-only load only for an interior of +0.0. */
#include "gpu_test.h"
#include "transfer_check.h"

int main(void) {
    gpu_require_device("test_gpu_transfers");
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    for (int k = 0; k < 3; ++k)
        for (int is_double = 0; is_double < 2; ++is_double) {
            transfer_check_faces(DG_BACKEND_CUDA, precisions[k], is_double, 33);
            transfer_check_faces(DG_BACKEND_CUDA, precisions[k], is_double, 161);
        }
    transfer_check_solver(DG_BACKEND_CUDA, 33);
    return test_finish("test_gpu_transfers");
}
