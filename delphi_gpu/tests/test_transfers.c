/* The CPU backend's transfers: the face layout, the faces-only load (same iterates as the full
 * load, in every precision and for float and double arrays), round trips, and the solver's
 * choice of the faces-only load (transfer_check.h). */
#include "transfer_check.h"

int main(void) {
    transfer_check_layout(5, 5, 5);
    transfer_check_layout(7, 9, 5);
    transfer_check_layout(11, 5, 13);
    transfer_check_host_copies(71, 3);
    transfer_check_host_copies(9, 1);
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    for (int k = 0; k < 3; ++k)
        for (int is_double = 0; is_double < 2; ++is_double)
            transfer_check_faces(DG_BACKEND_CPU, precisions[k], is_double, 21);
    transfer_check_faces(DG_BACKEND_CPU, DG_PRECISION_DOUBLE, 1, 45); /* parallel loops */
    transfer_check_solver(DG_BACKEND_CPU, 21);
    return test_finish("test_transfers");
}
