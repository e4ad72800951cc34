/* DelPhi binary phimap: Fortran unformatted sequential file of 5 records, each
 * framed by 4-byte record-length markers:
 *   1. 20-character label
 *   2. 10-character kind ("potential ") + 60-character title
 *   3. igrid^3 real*4 values, x fastest
 *   4. 16-character label
 *   5. real*4 scale, real*4 centre x, y, z, integer*4 igrid
 * We write little-endian (what gfortran writes on x86 and ARM).  The reader accepts either byte
 * order and, in records 3 and 5, real*8 as well as real*4. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran_records.h"
#include "io_bytes.h"
#include "io_maps.h"
#include "io_text.h"

#define START_LABEL "delphi-gpu potential" /* 20 characters: our own words */
#define END_LABEL   "delphi-gpu end  "     /* 16 characters */

static void padded(char *dst, size_t width, const char *src) {
    size_t n = strlen(src);
    if (n > width) n = width;
    memcpy(dst, src, n);
    memset(dst + n, ' ', width - n);
}

int phimap_write(const char *path, const map_grid *m, io_error *err) {
    if (m->n[0] != m->n[1] || m->n[0] != m->n[2])
        return io_fail(err, IO_ERR_UNSUPPORTED, path, 0, NULL,
                       "the DelPhi phimap format holds only cubic grids; this grid is %d x %d x "
                       "%d (write it as dx, cube or mrc)",
                       m->n[0], m->n[1], m->n[2]);
    const size_t points = map_grid_points(m);
    if (points * 4 > 0x7fffffffUL)
        return io_fail(err, IO_ERR_UNSUPPORTED, path, 0, NULL,
                       "a %d^3 grid is too large for one phimap record (at most 812^3)", m->n[0]);
    atomic_file af;
    int rc = atomic_file_open(&af, path, 1, err);
    if (rc) return rc;
    FILE *fp = af.fp;

    fortran_write_record(fp, START_LABEL, 20);
    char rec2[70];
    padded(rec2, 10, m->kind[0] ? m->kind : "potential");
    padded(rec2 + 10, 60, m->title);
    fortran_write_record(fp, rec2, 70);

    /* Record 3 in chunks, converted to little-endian real*4. */
    fortran_write_marker(fp, (uint32_t)(points * 4));
    enum { CHUNK = 16384 };
    unsigned char buf[CHUNK * 4];
    for (size_t start = 0; start < points; start += CHUNK) {
        size_t count = points - start < CHUNK ? points - start : CHUNK;
        for (size_t i = 0; i < count; i++)
            io_put_f32(buf + 4 * i, (float)m->values[start + i]);
        fwrite(buf, 4, count, fp);
    }
    fortran_write_marker(fp, (uint32_t)(points * 4));

    fortran_write_record(fp, END_LABEL, 16);
    unsigned char rec5[20];
    io_put_f32(rec5, (float)m->scale);
    for (int k = 0; k < 3; k++)
        io_put_f32(rec5 + 4 + 4 * k, (float)m->center[k]);
    io_put_u32(rec5 + 16, (uint32_t)m->n[0]);
    fortran_write_record(fp, rec5, 20);
    return atomic_file_commit(&af, err);
}

/* ---- Reading ------------------------------------------------------------------------------- */

static double get_real(const unsigned char *p, int size, int big_endian) {
    return size == 4 ? io_get_f32(p, big_endian) : io_get_f64(p, big_endian);
}

static void text_field(char *dst, size_t size, const unsigned char *src, size_t len) {
    while (len > 0 && (src[len - 1] == ' ' || src[len - 1] == '\0'))
        len--;
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

int phimap_read(const char *path, map_grid *m, io_error *err) {
    memset(m, 0, sizeof *m);
    fortran_reader r = {fopen(path, "rb"), path, "phimap", 0, 0};
    if (!r.fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open phimap: %s", strerror(errno));
    uint32_t le = 0, be = 0;
    int rc = IO_OK;
    if (fortran_first_length(r.fp, &le, &be) != 0)
        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "empty file");
    else if (le > 0 && le <= 4096)
        r.big_endian = 0;
    else if (be > 0 && be <= 4096)
        r.big_endian = 1;
    else
        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                     "not a DelPhi phimap (no Fortran record marker at the start)");
    unsigned char *rec[5] = {NULL, NULL, NULL, NULL, NULL};
    uint32_t len[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 5 && rc == IO_OK; i++)
        rc = fortran_read_record(&r, &rec[i], &len[i], err);
    fclose(r.fp);

    if (rc == IO_OK) {
        /* Record 5: scale, centre (real*4 or real*8), igrid (integer*4). */
        int real = len[4] == 20 ? 4 : len[4] == 36 ? 8 : 0;
        if (!real)
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                         "record 5 has %u bytes (expected 20 or 36)", len[4]);
        else {
            m->scale = get_real(rec[4], real, r.big_endian);
            for (int k = 0; k < 3; k++)
                m->center[k] = get_real(rec[4] + real * (k + 1), real, r.big_endian);
            uint32_t igrid = io_get_u32(rec[4] + 4 * real, r.big_endian);
            if (igrid < 1 || igrid > 4096 || !(m->scale > 0.0) || !isfinite(m->scale))
                rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                             "bad grid in record 5 (igrid %u, scale %g)", igrid, m->scale);
            else {
                m->n[0] = m->n[1] = m->n[2] = (int)igrid;
                for (int k = 0; k < 3 && rc == IO_OK; k++)
                    if (!isfinite(m->center[k]))
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "centre is not finite");
            }
        }
    }
    if (rc == IO_OK) {
        size_t points = map_grid_points(m);
        int vsize = len[2] == points * 4 ? 4 : len[2] == points * 8 ? 8 : 0;
        if (!vsize)
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                         "record 3 has %u bytes, which is not igrid^3 = %zu reals", len[2], points);
        else if (!(m->values = malloc(points * sizeof *m->values)))
            rc = io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory");
        else {
            m->owns_values = 1;
            for (size_t i = 0; i < points && rc == IO_OK; i++) {
                m->values[i] = get_real(rec[2] + vsize * i, vsize, r.big_endian);
                if (!isfinite(m->values[i]))
                    rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                                 "value %zu of the map is NaN or infinite", i + 1);
            }
        }
    }
    if (rc == IO_OK) {
        text_field(m->kind, sizeof m->kind, rec[1], len[1] < 10 ? len[1] : 10);
        if (len[1] > 10) text_field(m->title, sizeof m->title, rec[1] + 10, len[1] - 10);
    }
    for (int i = 0; i < 5; i++)
        free(rec[i]);
    if (rc != IO_OK) map_grid_free(m);
    return rc;
}
