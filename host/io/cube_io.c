/* Gaussian cube: two comment lines; "natoms origin" ; three "n vector" lines; natoms atom lines
 * "Z charge x y z"; then the values, z fastest, 6 per line with a new line after each z-row.
 * Lengths in Bohr (a negative n on an axis line means Angstrom, which the reader accepts). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_maps.h"
#include "io_text.h"

/* Atomic number from a PDB atom name (first letter; two-letter ions by name). */
static int guess_element(const char *name) {
    static const struct {
        const char *name;
        int z;
    } ions[] = {{"NA", 11}, {"MG", 12}, {"CL", 17}, {"CA", 20}, {"ZN", 30}, {"FE", 26}, {"K", 19}};
    const char *p = name;
    while (*p && isdigit((unsigned char)*p))
        p++; /* "1HB" */
    for (size_t i = 0; i < sizeof ions / sizeof ions[0]; i++)
        if (io_iequal(p, ions[i].name) && strcmp(p, "CA") != 0) return ions[i].z; /* CA: C-alpha */
    switch (toupper((unsigned char)p[0])) {
    case 'H':
        return 1;
    case 'C':
        return 6;
    case 'N':
        return 7;
    case 'O':
        return 8;
    case 'P':
        return 15;
    case 'S':
        return 16;
    default:
        return 0;
    }
}

int cube_write(const char *path, const map_grid *m, const molecule *atoms, io_error *err) {
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    const double b = 1.0 / IO_BOHR_IN_ANGSTROM; /* Angstrom -> Bohr */
    const double h = b / m->scale;
    const int natoms = atoms && atoms->count > 0 ? (int)atoms->count : 1;
    fprintf(fp, "%s\n", m->title[0] ? m->title : "electrostatic potential from delphi-gpu");
    fprintf(fp, "values in kT/e; grid %d x %d x %d, %.6g points/A; lengths in Bohr\n", m->n[0],
            m->n[1], m->n[2], m->scale);
    fprintf(fp, "%5d %14.8f %14.8f %14.8f\n", natoms, map_grid_coordinate(m, 0, 1) * b,
            map_grid_coordinate(m, 1, 1) * b, map_grid_coordinate(m, 2, 1) * b);
    for (int a = 0; a < 3; a++)
        fprintf(fp, "%5d %14.8f %14.8f %14.8f\n", m->n[a], a == 0 ? h : 0.0, a == 1 ? h : 0.0,
                a == 2 ? h : 0.0);
    if (atoms && atoms->count > 0) {
        for (size_t i = 0; i < atoms->count; i++) {
            const atom *at = &atoms->atoms[i];
            int z = guess_element(at->name);
            fprintf(fp, "%5d %14.8f %14.8f %14.8f %14.8f\n", z, (double)z, at->x * b, at->y * b,
                    at->z * b);
        }
    } else {
        /* One dummy atom (Z = 0) at the grid centre: the format needs at least one line. */
        fprintf(fp, "%5d %14.8f %14.8f %14.8f %14.8f\n", 0, 0.0, m->center[0] * b, m->center[1] * b,
                m->center[2] * b);
    }
    const int nx = m->n[0], ny = m->n[1], nz = m->n[2];
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            for (int k = 0; k < nz; k++) {
                double v = m->values[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * k)];
                fprintf(fp, " %13.6e", v);
                if (k % 6 == 5 || k == nz - 1) fputc('\n', fp);
            }
        }
    return atomic_file_commit(&af, err);
}

int cube_read(const char *path, map_grid *m, io_error *err) {
    memset(m, 0, sizeof *m);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open cube file: %s",
                       strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = IO_OK, lineno = 0;
    long natoms = 0;
    double origin[3], axis[3][3];
    int n[3];
    char title[128] = "";
    for (lineno = 1; lineno <= 6 && rc == IO_OK; lineno++) {
        if (io_read_line(fp, &line, &cap) < 0) {
            rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "truncated cube header");
            break;
        }
        if (lineno == 1) snprintf(title, sizeof title, "%s", line);
        if (lineno == 3 &&
            sscanf(line, "%ld %lf %lf %lf", &natoms, &origin[0], &origin[1], &origin[2]) != 4)
            rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "expected 'natoms x y z'");
        if (lineno == 3 && rc == IO_OK &&
            (!isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2])))
            rc = io_fail(err, IO_ERR_INPUT, path, lineno, "origin", "the origin is not finite");
        if (lineno == 3 && natoms < 0)
            rc = io_fail(err, IO_ERR_UNSUPPORTED, path, lineno, NULL,
                         "cube files with orbital data (negative atom count) are not supported");
        if (lineno >= 4) {
            int a = lineno - 4;
            if (sscanf(line, "%d %lf %lf %lf", &n[a], &axis[a][0], &axis[a][1], &axis[a][2]) != 4)
                rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "expected 'n dx dy dz'");
            else if (!isfinite(axis[a][0]) || !isfinite(axis[a][1]) || !isfinite(axis[a][2]))
                rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "a spacing is not finite");
        }
    }
    /* Units: Bohr, unless the counts are negative (Angstrom). */
    double to_angstrom = IO_BOHR_IN_ANGSTROM;
    if (rc == IO_OK && n[0] < 0 && n[1] < 0 && n[2] < 0) {
        to_angstrom = 1.0;
        for (int a = 0; a < 3; a++)
            n[a] = -n[a];
    }
    if (rc == IO_OK) {
        double h = axis[0][0];
        for (int a = 0; a < 3 && rc == IO_OK; a++) {
            if (n[a] < 1) rc = io_fail(err, IO_ERR_INPUT, path, 4 + a, NULL, "bad point count");
            for (int c = 0; c < 3 && rc == IO_OK; c++) {
                double d = axis[a][c];
                if ((a != c && d != 0.0) || (a == c && (!(d > 0.0) || fabs(d - h) > 1e-6 * h)))
                    rc = io_fail(err, IO_ERR_UNSUPPORTED, path, 4 + a, NULL,
                                 "the grid must be axis-aligned with equal spacing on all axes");
            }
        }
        for (long i = 0; i < natoms && rc == IO_OK; i++, lineno++)
            if (io_read_line(fp, &line, &cap) < 0)
                rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL, "truncated atom list");
        if (rc == IO_OK) {
            double spacing = h * to_angstrom, center[3];
            for (int a = 0; a < 3; a++)
                center[a] = origin[a] * to_angstrom + (n[a] - 1) / 2.0 * spacing;
            const long long points = (long long)n[0] * n[1] * n[2], left = io_bytes_left(fp);
            if (left >= 0 && points > left / 2 + 1) /* two bytes at least per value */
                rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL,
                             "the header promises %d x %d x %d = %lld values but only %lld "
                             "bytes follow",
                             n[0], n[1], n[2], points, left);
            else
                rc = map_grid_alloc(m, n, 1.0 / spacing, center, err);
            snprintf(m->title, sizeof m->title, "%.60s", title);
        }
    }
    free(line);
    if (rc == IO_OK) {
        const int nx = n[0], ny = n[1], nz = n[2];
        for (int i = 0; i < nx && rc == IO_OK; i++)
            for (int j = 0; j < ny && rc == IO_OK; j++)
                for (int k = 0; k < nz && rc == IO_OK; k++) {
                    double v;
                    if (fscanf(fp, "%lf", &v) != 1)
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, "data",
                                     "expected %ld values; the data ends or breaks early",
                                     (long)nx * ny * nz);
                    else if (!isfinite(v))
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, "data", "NaN or infinite value");
                    else
                        m->values[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * k)] = v;
                }
    }
    fclose(fp);
    if (rc != IO_OK) map_grid_free(m);
    return rc;
}
