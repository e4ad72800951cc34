/* libFuzzer target: the phimap map reader (and format detection through map_read). */
#include "fuzz_common.h"
#include "io_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.phimap", data, size);
    map_grid m;
    io_error err;
    io_error_clear(&err);
    int rc = phimap_read(path, &m, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) map_grid_free(&m);
    io_error_clear(&err);
    rc = map_read(path, -1, &m, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) map_grid_free(&m);
    unlink(path);
    return 0;
}
