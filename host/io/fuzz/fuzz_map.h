/* Shared body of the map-reader fuzz targets (DX, cube, phimap): the format's own reader, then
 * map_read's format detection, on the same input. */
#ifndef HOST_IO_FUZZ_MAP_H
#define HOST_IO_FUZZ_MAP_H

#include "fuzz_common.h"
#include "io_maps.h"

typedef int (*fuzz_map_reader)(const char *path, map_grid *m, io_error *err);

static int fuzz_map_input(const char *tag, fuzz_map_reader reader, const uint8_t *data,
                          size_t size) {
    const char *path = fuzz_file(tag, data, size);
    map_grid m;
    io_error err;
    io_error_clear(&err);
    int rc = reader(path, &m, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) map_grid_free(&m);
    io_error_clear(&err);
    rc = map_read(path, -1, &m, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) map_grid_free(&m);
    unlink(path);
    return 0;
}

#endif /* HOST_IO_FUZZ_MAP_H */
