/* Map format dispatch (phimap, OpenDX, cube, MRC/CCP4) and format recognition. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_maps.h"
#include "io_text.h"

/* A map must make sense before any byte is written. */
static int check_geometry(const char *path, const map_grid *m, io_error *err) {
    for (int k = 0; k < 3; k++)
        if (m->n[k] < 1 || !isfinite(m->center[k]))
            return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                           "bad map geometry (size %d, centre %g)", m->n[k], m->center[k]);
    if (!(m->scale > 0.0) || !isfinite(m->scale))
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "bad map scale %g", m->scale);
    if (!m->values) return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "map has no values");
    return IO_OK;
}

int map_write(const char *path, int format, const map_grid *m, const molecule *atoms,
              io_error *err) {
    int rc = check_geometry(path, m, err);
    if (rc) return rc;
    switch (format) {
    case MAP_DELPHI:
        return phimap_write(path, m, err);
    case MAP_DX:
        return dx_write(path, m, err);
    case MAP_CUBE:
        return cube_write(path, m, atoms, err);
    case MAP_MRC:
        return mrc_write(path, m, err);
    default:
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "unknown map format %d", format);
    }
}

int map_detect_format(const char *path, int *format, io_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open map file: %s",
                       strerror(errno));
    unsigned char head[512];
    size_t got = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    head[got] = '\0';
    /* MRC/CCP4: "MAP " in header word 53 (before the phimap test: its first word, the column
       count, is small too). */
    if (got >= 212 && memcmp(head + 208, "MAP ", 4) == 0) {
        *format = MAP_MRC;
        return IO_OK;
    }
    /* Binary phimap: a Fortran record marker, small in one byte order or the other. */
    if (got >= 4) {
        unsigned long le =
            head[0] | head[1] << 8 | (unsigned long)head[2] << 16 | (unsigned long)head[3] << 24;
        unsigned long be =
            head[3] | head[2] << 8 | (unsigned long)head[1] << 16 | (unsigned long)head[0] << 24;
        if ((le > 0 && le <= 4096) || (be > 0 && be <= 4096)) {
            *format = MAP_DELPHI;
            return IO_OK;
        }
    }
    /* DX: comment lines, then "object". */
    const char *p = (const char *)head;
    while (*p == '#') {
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    if (strncmp(p, "object", 6) == 0) {
        *format = MAP_DX;
        return IO_OK;
    }
    /* Cube: two free comment lines, then "natoms x y z" with numbers. */
    const char *nl1 = strchr((const char *)head, '\n');
    const char *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL;
    if (nl2) {
        long natoms;
        double x, y, z;
        if (sscanf(nl2 + 1, "%ld %lf %lf %lf", &natoms, &x, &y, &z) == 4) {
            *format = MAP_CUBE;
            return IO_OK;
        }
    }
    return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                   "not a recognised map file (DelPhi phimap, OpenDX, Gaussian cube or MRC/CCP4)");
}

int map_read(const char *path, int format, map_grid *m, io_error *err) {
    memset(m, 0, sizeof *m);
    if (format < 0) {
        int rc = map_detect_format(path, &format, err);
        if (rc) return rc;
    }
    switch (format) {
    case MAP_DELPHI:
        return phimap_read(path, m, err);
    case MAP_DX:
        return dx_read(path, m, err);
    case MAP_CUBE:
        return cube_read(path, m, err);
    case MAP_MRC:
        return mrc_read(path, m, err);
    default:
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "unknown map format %d", format);
    }
}
