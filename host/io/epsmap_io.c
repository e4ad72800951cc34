/* DelPhi's compact dielectric map (out(eps)): writer and reader.  Layout: io_epsmap.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran_records.h"
#include "io_bytes.h"
#include "io_epsmap.h"
#include "io_text.h"

int epsmap_words(int n) {
    return n / 16 + 1;
}

/* The words of one grid row of n bytes (x fastest): the byte of 1-based point i goes to word
 * i / 16, bit i mod 16, bit 15 counting -32768. */
static void pack_row(const unsigned char *row, int n, int words, unsigned char *out) {
    memset(out, 0, 4 * (size_t)words);
    int32_t word = 0;
    for (int i = 1; i <= n + 1; ++i) {
        if (i % 16 == 0 || i == n + 1) {
            io_put_u32(out + 4 * ((i - 1) / 16), (uint32_t)word);
            word = 0;
        }
        if (i <= n && row[i - 1]) word += i % 16 == 15 ? -32768 : 1 << (i % 16);
    }
}

/* One record of `rows` grid rows from bytes (rows * n of them), packed. */
static void write_rows(FILE *fp, const unsigned char *bytes, size_t rows, int n, int words,
                       unsigned char *buf) {
    fortran_write_marker(fp, (uint32_t)(rows * (size_t)words * 4));
    for (size_t r = 0; r < rows; ++r) {
        pack_row(bytes + r * (size_t)n, n, words, buf);
        fwrite(buf, 4, (size_t)words, fp);
    }
    fortran_write_marker(fp, (uint32_t)(rows * (size_t)words * 4));
}

int epsmap_write(const char *path, const epsilon_map *m, io_error *err) {
    if (!m || m->n < 3 || !m->solute || !m->ion_accessible)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no dielectric map to write");
    const int n = m->n, words = epsmap_words(n);
    const size_t rows = (size_t)n * (size_t)n;
    if (3 * rows * (size_t)words * 4 > 0x7fffffffUL)
        return io_fail(err, IO_ERR_UNSUPPORTED, path, 0, NULL,
                       "a %d^3 grid is too large for one record of DelPhi's dielectric map", n);
    unsigned char *buf = malloc((size_t)words * 4);
    if (!buf) return io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 1, err);
    if (rc) {
        free(buf);
        return rc;
    }
    unsigned char head[20];
    io_put_u32(head, 1);
    io_put_f32(head + 4, (float)m->scale);
    for (int k = 0; k < 3; ++k)
        io_put_f32(head + 8 + 4 * k, (float)m->center[k]);
    fortran_write_record(af.fp, head, sizeof head);
    write_rows(af.fp, m->solute, 3 * rows, n, words, buf);
    write_rows(af.fp, m->ion_accessible, rows, n, words, buf);
    free(buf);
    return atomic_file_commit(&af, err);
}

/* ---- Reading ------------------------------------------------------------------------------ */

static int32_t *words_of(const unsigned char *data, size_t count, int big_endian) {
    int32_t *w = malloc((count ? count : 1) * sizeof *w);
    for (size_t i = 0; w && i < count; ++i)
        w[i] = (int32_t)io_get_u32(data + 4 * i, big_endian);
    return w;
}

int epsmap_read(const char *path, int *n, double *scale, double center[3], int32_t **solute,
                int32_t **ions, io_error *err) {
    *solute = *ions = NULL;
    fortran_reader reader = {fopen(path, "rb"), path, "dielectric map", 0, 0};
    if (!reader.fp) return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open");
    /* the first record (20 or 36 bytes) says the byte order */
    uint32_t little = 0, big_first = 0;
    int rc = IO_OK;
    if (fortran_first_length(reader.fp, &little, &big_first) != 0)
        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                     "truncated dielectric map: record 1 is missing");
    else if (little == 20 || little == 36)
        reader.big_endian = 0;
    else if (big_first == 20 || big_first == 36)
        reader.big_endian = 1;
    else
        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                     "not a DelPhi dielectric map: the first record has %u bytes, not 20 or 36",
                     little);
    unsigned char *rec[3] = {NULL, NULL, NULL};
    uint32_t len[3] = {0, 0, 0};
    for (int r = 0; r < 3 && rc == IO_OK; ++r)
        rc = fortran_read_record(&reader, &rec[r], &len[r], err);
    fclose(reader.fp);
    const int big = reader.big_endian;
    if (rc == IO_OK) {
        /* real*4 scale and centre, or real*8 from a DelPhi built with 8-byte reals. */
        for (int k = 0; k < 4; ++k) {
            const double v = len[0] == 20 ? io_get_f32(rec[0] + 4 + 4 * k, big)
                                          : io_get_f64(rec[0] + 4 + 8 * k, big);
            if (k == 0)
                *scale = v;
            else
                center[k - 1] = v;
        }
        /* n from the ion record: n * n * (n / 16 + 1) words. */
        const size_t count = len[2] / 4;
        int found = 0;
        for (int m = 3; m <= 4096 && !found; ++m)
            if ((size_t)m * m * epsmap_words(m) == count) *n = m, found = 1;
        if (!found || len[2] % 4 || len[1] != 3 * len[2])
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                         "dielectric map: records of %u and %u bytes fit no grid", len[1], len[2]);
    }
    if (rc == IO_OK) {
        *solute = words_of(rec[1], len[1] / 4, big);
        *ions = words_of(rec[2], len[2] / 4, big);
        if (!*solute || !*ions) {
            free(*solute), free(*ions);
            *solute = *ions = NULL;
            rc = io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory");
        }
    }
    free(rec[0]), free(rec[1]), free(rec[2]);
    return rc;
}
