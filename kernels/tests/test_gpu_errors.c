/* Errors of the CUDA backend: no device (DG_ERR_NO_DEVICE with the reason; this part also runs
 * without a GPU, then the test reports itself skipped), a device ordinal out of range, and a
 * grid that does not fit in free GPU memory (DG_ERR_DEVICE_OUT_OF_MEMORY saying how much is
 * needed and free), after which the same handle still works. */
#include <cuda_runtime_api.h>

#include "gpu_test.h"

static void expect_status(dg_solver s, int status, int expected, const char *what) {
    CHECK(status == expected, "%s: status %d (%s), expected %d (%s): %s", what, status,
          dg_status_string(status), expected, dg_status_string(expected), dg_last_error(s));
    CHECK(strlen(dg_last_error(s)) > 10, "%s: message too short: '%s'", what, dg_last_error(s));
    printf("%s -> %s: %s\n", what, dg_status_string(status), dg_last_error(s));
}

int main(void) {
    int count = 0;
    CHECK(dg_cuda_device_count(&count) == DG_OK, "dg_cuda_device_count");
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CUDA;
    dg_solver s = NULL;
    if (count == 0) {
        expect_status(s, dg_create(&s, &o), DG_ERR_NO_DEVICE, "CUDA backend without a GPU");
        dg_destroy(s);
        if (test_failures) return test_finish("test_gpu_errors");
        printf("test_gpu_errors: SKIPPED (no usable CUDA device; the no-device error passed)\n");
        return GPU_TEST_SKIP;
    }

    o.device = count;
    expect_status(s, dg_create(&s, &o), DG_ERR_NO_DEVICE, "device ordinal out of range");
    dg_destroy(s);

    /* Leave about 1 GiB free, then ask for a grid that needs about 2 GiB. */
    o.device = 0;
    o.precision = DG_PRECISION_DOUBLE;
    s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    size_t free_bytes = 0, total_bytes = 0;
    void *hog = NULL;
    CHECK(cudaSetDevice(0) == cudaSuccess &&
              cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess,
          "cudaMemGetInfo");
    const size_t keep = (size_t)1 << 30;
    if (free_bytes > keep + ((size_t)256 << 20)) {
        CHECK(cudaMalloc(&hog, free_bytes - keep) == cudaSuccess, "cudaMalloc (hog)");
        dg_sparse_medium_d big = {0};
        big.nx = big.ny = big.nz = 641; /* 2 x 1.05 GiB half grids in double */
        big.index_kind = DG_INDEX_DELPHI_HALF;
        int st = dg_set_sparse_medium_d(s, &big);
        expect_status(s, st, DG_ERR_DEVICE_OUT_OF_MEMORY, "641^3 grid with 1 GiB free");
        CHECK(strstr(dg_last_error(s), "MiB") && strstr(dg_last_error(s), "free"),
              "the message says how much is needed and free");
        cudaFree(hog);
    }
    /* The handle still works. */
    const int n1 = 17;
    dg_sparse_medium_d small = {0};
    small.nx = small.ny = small.nz = n1;
    small.index_kind = DG_INDEX_DELPHI_HALF;
    CHECK_OK(dg_set_sparse_medium_d(s, &small), s);
    double *phi = malloc((size_t)n1 * n1 * n1 * sizeof *phi);
    for (int i = 0; i < n1 * n1 * n1; ++i)
        phi[i] = 1.0;
    dg_options it = o;
    it.iterations = 20;
    it.run_until_converged = 0;
    CHECK_OK(dg_set_options(s, &it), s);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(fabs(phi[n1 * n1 * n1 / 2] - 1.0) < 1e-12, "constant potential kept: %.17g",
          phi[n1 * n1 * n1 / 2]);
    free(phi);
    dg_destroy(s);
    return test_finish("test_gpu_errors");
}
