/* Version, status and outcome strings. */
#include "delphi_gpu/delphi_gpu.h"

#define DG_STR2(x) #x
#define DG_STR(x)  DG_STR2(x)

const char *dg_version_string(void) {
    return DG_STR(DG_VERSION_MAJOR) "." DG_STR(DG_VERSION_MINOR) "." DG_STR(DG_VERSION_PATCH);
}

const char *dg_status_string(int status) {
    switch (status) {
    case DG_OK:
        return "success";
    case DG_ERR_INVALID_ARGUMENT:
        return "invalid argument";
    case DG_ERR_INVALID_GRID:
        return "invalid grid dimensions";
    case DG_ERR_NONFINITE_INPUT:
        return "NaN or Inf in the input";
    case DG_ERR_INDEX_OUT_OF_RANGE:
        return "index out of range";
    case DG_ERR_WRONG_PARITY:
        return "point in the wrong odd/even section";
    case DG_ERR_COUNT_MISMATCH:
        return "inconsistent counts";
    case DG_ERR_BAD_PERMITTIVITY:
        return "zero or negative permittivity";
    case DG_ERR_BAD_OMEGA:
        return "relaxation factor or spectral radius out of range";
    case DG_ERR_BACKEND_NOT_BUILT:
        return "backend not built into this library";
    case DG_ERR_NO_DEVICE:
        return "no usable CUDA device";
    case DG_ERR_DEVICE:
        return "CUDA error";
    case DG_ERR_OUT_OF_MEMORY:
        return "out of host memory";
    case DG_ERR_DEVICE_OUT_OF_MEMORY:
        return "not enough GPU memory";
    case DG_ERR_STATE:
        return "call out of order";
    case DG_ERR_UNSUPPORTED:
        return "unsupported input";
    case DG_ERR_INTERNAL:
        return "internal error";
    default:
        return "unknown status code";
    }
}

const char *dg_outcome_string(int outcome) {
    switch (outcome) {
    case DG_OUTCOME_CONVERGED:
        return "converged";
    case DG_OUTCOME_COMPLETED:
        return "completed the requested iterations";
    case DG_OUTCOME_NOT_CONVERGED:
        return "not converged within the iteration limit";
    case DG_OUTCOME_DIVERGED:
        return "diverged";
    case DG_OUTCOME_STOPPED:
        return "stopped by the progress callback";
    case DG_OUTCOME_FLOAT_RESOLUTION:
        return "float resolution reached";
    default:
        return "unknown outcome";
    }
}
