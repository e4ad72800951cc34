/* OpenDX scalar field on a regular grid, the layout APBS writes:
 *   object 1 class gridpositions counts nx ny nz / origin / 3 delta lines
 *   object 2 class gridconnections counts nx ny nz
 *   object 3 class array type double rank 0 items N data follows
 *   N values, 3 per line, z fastest (then y, then x)
 *   attribute and field lines.
 * The reader needs an axis-aligned grid with the same spacing on the three axes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_maps.h"
#include "io_text.h"

int dx_write(const char *path, const map_grid *m, io_error *err) {
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    const int nx = m->n[0], ny = m->n[1], nz = m->n[2];
    const double h = 1.0 / m->scale;
    fprintf(fp, "# %s\n", m->title[0] ? m->title : "electrostatic potential");
    fprintf(fp, "# Written by delphi-gpu. Values in kT/e; coordinates in Angstrom.\n");
    fprintf(fp, "object 1 class gridpositions counts %d %d %d\n", nx, ny, nz);
    fprintf(fp, "origin %.10e %.10e %.10e\n", map_grid_coordinate(m, 0, 1),
            map_grid_coordinate(m, 1, 1), map_grid_coordinate(m, 2, 1));
    fprintf(fp, "delta %.10e 0.000000e+00 0.000000e+00\n", h);
    fprintf(fp, "delta 0.000000e+00 %.10e 0.000000e+00\n", h);
    fprintf(fp, "delta 0.000000e+00 0.000000e+00 %.10e\n", h);
    fprintf(fp, "object 2 class gridconnections counts %d %d %d\n", nx, ny, nz);
    fprintf(fp, "object 3 class array type double rank 0 items %zu data follows\n",
            map_grid_points(m));
    int on_line = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++) {
                double v = m->values[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * k)];
                fprintf(fp, on_line ? " %.6e" : "%.6e", v);
                if (++on_line == 3) {
                    fputc('\n', fp);
                    on_line = 0;
                }
            }
    if (on_line) fputc('\n', fp);
    fprintf(fp, "attribute \"dep\" string \"positions\"\n");
    fprintf(fp, "object \"regular positions regular connections\" class field\n");
    fprintf(fp, "component \"positions\" value 1\n");
    fprintf(fp, "component \"connections\" value 2\n");
    fprintf(fp, "component \"data\" value 3\n");
    return atomic_file_commit(&af, err);
}

/* Header lines in any order until "data follows"; comments (#) and blank lines skipped. */
typedef struct dx_header {
    int counts[3], have_counts;
    double origin[3];
    int have_origin;
    double delta[3][3];
    int deltas;
    long items;
} dx_header;

static int parse_header_line(const char *path, int lineno, const char *line, dx_header *h,
                             int *data_follows, io_error *err) {
    if (strncmp(line, "origin", 6) == 0) {
        if (sscanf(line + 6, "%lf %lf %lf", &h->origin[0], &h->origin[1], &h->origin[2]) != 3)
            return io_fail(err, IO_ERR_INPUT, path, lineno, "origin", "expected three numbers");
        if (!isfinite(h->origin[0]) || !isfinite(h->origin[1]) || !isfinite(h->origin[2]))
            return io_fail(err, IO_ERR_INPUT, path, lineno, "origin", "the origin is not finite");
        h->have_origin = 1;
    } else if (strncmp(line, "delta", 5) == 0) {
        if (h->deltas == 3)
            return io_fail(err, IO_ERR_INPUT, path, lineno, "delta", "more than three deltas");
        double *d = h->delta[h->deltas++];
        if (sscanf(line + 5, "%lf %lf %lf", &d[0], &d[1], &d[2]) != 3)
            return io_fail(err, IO_ERR_INPUT, path, lineno, "delta", "expected three numbers");
        if (!isfinite(d[0]) || !isfinite(d[1]) || !isfinite(d[2]))
            return io_fail(err, IO_ERR_INPUT, path, lineno, "delta", "a spacing is not finite");
    } else if (strncmp(line, "object", 6) == 0) {
        const char *counts = strstr(line, "counts");
        if (strstr(line, "gridpositions")) {
            if (!counts ||
                sscanf(counts + 6, "%d %d %d", &h->counts[0], &h->counts[1], &h->counts[2]) != 3)
                return io_fail(err, IO_ERR_INPUT, path, lineno, "gridpositions",
                               "expected 'counts nx ny nz'");
            h->have_counts = 1;
        } else if (strstr(line, "class array")) {
            const char *items = strstr(line, "items");
            if (!items || sscanf(items + 5, "%ld", &h->items) != 1)
                return io_fail(err, IO_ERR_INPUT, path, lineno, "array", "expected 'items N'");
            if (!strstr(line, "data follows"))
                return io_fail(err, IO_ERR_UNSUPPORTED, path, lineno, "array",
                               "only inline data ('data follows') is supported");
            *data_follows = 1;
        }
    }
    return IO_OK;
}

static int grid_from_header(const char *path, const dx_header *h, map_grid *m, io_error *err) {
    if (!h->have_counts || !h->have_origin || h->deltas != 3)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                       "incomplete header (needs gridpositions counts, origin and 3 deltas)");
    const double hx = h->delta[0][0];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double d = h->delta[a][b];
            if (a != b && d != 0.0)
                return io_fail(err, IO_ERR_UNSUPPORTED, path, 0, "delta",
                               "the grid axes are not aligned with x, y, z");
            if (a == b && (!(d > 0.0) || fabs(d - hx) > 1e-6 * hx))
                return io_fail(err, IO_ERR_UNSUPPORTED, path, 0, "delta",
                               "the grid spacing must be the same positive value on all axes");
        }
    if (h->items != (long)h->counts[0] * h->counts[1] * h->counts[2])
        return io_fail(err, IO_ERR_INPUT, path, 0, "items", "%ld items for a %d x %d x %d grid",
                       h->items, h->counts[0], h->counts[1], h->counts[2]);
    double center[3];
    for (int k = 0; k < 3; k++)
        center[k] = h->origin[k] + (h->counts[k] - 1) / 2.0 * hx;
    return map_grid_alloc(m, h->counts, 1.0 / hx, center, err);
}

int dx_read(const char *path, map_grid *m, io_error *err) {
    memset(m, 0, sizeof *m);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open DX file: %s", strerror(errno));
    dx_header h;
    memset(&h, 0, sizeof h);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = IO_OK, data_follows = 0;
    while (!data_follows && io_read_line(fp, &line, &cap) >= 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\0') continue;
        rc = parse_header_line(path, lineno, line, &h, &data_follows, err);
        if (rc) break;
    }
    free(line);
    if (rc == IO_OK && !data_follows)
        rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "no 'class array ... data follows'");
    /* Every value takes at least two bytes (a digit and a separator): a header promising more
       than the file holds is refused before anything is allocated for it. */
    const long long left = io_bytes_left(fp);
    if (rc == IO_OK && left >= 0 && h.items > 0 && (long long)h.items > left / 2 + 1)
        rc = io_fail(err, IO_ERR_INPUT, path, lineno, "items",
                     "the header promises %ld values but only %lld bytes follow", h.items, left);
    if (rc == IO_OK) rc = grid_from_header(path, &h, m, err);
    if (rc == IO_OK) {
        const int nx = m->n[0], ny = m->n[1], nz = m->n[2];
        for (int i = 0; i < nx && rc == IO_OK; i++)
            for (int j = 0; j < ny && rc == IO_OK; j++)
                for (int k = 0; k < nz && rc == IO_OK; k++) {
                    double v;
                    if (fscanf(fp, "%lf", &v) != 1)
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, "data",
                                     "expected %ld values, the data ends or breaks after %ld",
                                     h.items, (long)k + (long)nz * (j + (long)ny * i));
                    else if (!isfinite(v))
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, "data",
                                     "value %ld is NaN or infinite",
                                     1 + (long)k + (long)nz * (j + (long)ny * i));
                    else
                        m->values[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * k)] = v;
                }
    }
    fclose(fp);
    if (rc != IO_OK) map_grid_free(m);
    return rc;
}
