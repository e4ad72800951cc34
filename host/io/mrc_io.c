/* MRC2014 / CCP4 maps: the binary volume format of electron microscopy and crystallography,
 * which UCSF Chimera and ChimeraX, PyMOL, VMD and the mrcfile and gemmi libraries read.
 *
 * A 1024-byte header of 256 four-byte words, an extended header of NSYMBT bytes (we write
 * none), then the values, columns fastest.  The words this file writes and reads (1-based, as
 * the format's descriptions number them):
 *    1-3  NC, NR, NS: columns, rows, sections          4  MODE (2: 32-bit IEEE reals)
 *    5-7  NCSTART, NRSTART, NSSTART: the first point's position in whole intervals
 *    8-10 MX, MY, MZ: intervals along the cell        11-13 cell lengths (A)
 *   14-16 cell angles (90)                            17-19 MAPC, MAPR, MAPS: the axes of
 *   20-22 DMIN, DMAX, DMEAN                                  columns, rows, sections (1, 2, 3)
 *   23    ISPG (1: one volume)                        24 NSYMBT
 *   27    EXTTYP (none)                               28 NVERSION (20140)
 *   50-52 ORIGIN: x, y, z (A) of the first point      53 "MAP "
 *   54    MACHST: 0x44 0x44 0 0 little-endian, 0x11 0x11 0 0 big-endian
 *   55    RMS deviation from the mean                 56 NLABL, then ten 80-character labels
 * We write little-endian, columns along x (x fastest, as DelPhi's phimap), MX = NX so that the
 * voxel is 1/scale A on every axis, and the first point's position exactly in ORIGIN (what
 * MRC2014 readers such as ChimeraX and mrcfile use) and, rounded to whole intervals, in the
 * starts: a DelPhi grid's points are generally not whole spacings from 0, so a reader that
 * places a map by its starts alone (as crystallographic ones such as gemmi do) puts it within
 * half a spacing of its place rather than at the coordinates' origin.
 *
 * The reader accepts either byte order, any permutation of MAPC/MAPR/MAPS, an extended
 * header, and a position given either by ORIGIN or (when ORIGIN is all zero) by the starts;
 * it needs mode 2, right angles and one spacing on all three axes (a map_grid has one scale).
 * DelPhi's own "CCP4" output is a Fortran record file rather than this layout; it is not read. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_bytes.h"
#include "io_maps.h"
#include "io_text.h"

#define HEADER_BYTES 1024
#define LABEL_BYTES  80
#define STAMP        "delphi-gpu: electrostatic potential in kT/e"

/* Word w (0-based) of the header. */
static unsigned char *word(unsigned char *h, int w) {
    return h + 4 * w;
}

int mrc_write(const char *path, const map_grid *m, io_error *err) {
    const size_t points = map_grid_points(m);
    double lo = m->values[0], hi = m->values[0], sum = 0.0;
    for (size_t i = 0; i < points; i++) {
        const double v = m->values[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    const double mean = sum / (double)points;
    double squares = 0.0;
    for (size_t i = 0; i < points; i++)
        squares += (m->values[i] - mean) * (m->values[i] - mean);

    unsigned char h[HEADER_BYTES];
    memset(h, 0, sizeof h);
    const double spacing = 1.0 / m->scale;
    for (int a = 0; a < 3; a++) {
        io_put_u32(word(h, a), (uint32_t)m->n[a]);               /* NC, NR, NS */
        io_put_u32(word(h, 7 + a), (uint32_t)m->n[a]);           /* MX, MY, MZ */
        io_put_f32(word(h, 10 + a), (float)(m->n[a] * spacing)); /* cell lengths */
        io_put_f32(word(h, 13 + a), 90.0f);                      /* cell angles */
        io_put_u32(word(h, 16 + a), (uint32_t)(a + 1));          /* MAPC, MAPR, MAPS */
        const double first = map_grid_coordinate(m, a, 1);
        io_put_f32(word(h, 49 + a), (float)first); /* ORIGIN */
        const double start = nearbyint(first * m->scale);
        if (fabs(start) < 2e9) io_put_u32(word(h, 4 + a), (uint32_t)(int32_t)start); /* starts */
    }
    io_put_u32(word(h, 3), 2); /* MODE: 32-bit reals */
    io_put_f32(word(h, 19), (float)lo);
    io_put_f32(word(h, 20), (float)hi);
    io_put_f32(word(h, 21), (float)mean);
    io_put_u32(word(h, 22), 1);     /* ISPG: one volume */
    io_put_u32(word(h, 27), 20140); /* NVERSION */
    memcpy(word(h, 52), "MAP ", 4);
    h[4 * 53] = h[4 * 53 + 1] = 0x44; /* MACHST: little-endian */
    io_put_f32(word(h, 54), (float)sqrt(squares / (double)points));
    const int labels = m->title[0] ? 2 : 1;
    io_put_u32(word(h, 55), (uint32_t)labels);
    memset(word(h, 56), ' ', (size_t)labels * LABEL_BYTES);
    memcpy(word(h, 56), STAMP, strlen(STAMP));
    if (m->title[0]) memcpy(word(h, 56) + LABEL_BYTES, m->title, strlen(m->title));

    atomic_file af;
    int rc = atomic_file_open(&af, path, 1, err);
    if (rc) return rc;
    fwrite(h, 1, sizeof h, af.fp);
    enum { CHUNK = 16384 };
    unsigned char buf[CHUNK * 4];
    for (size_t start = 0; start < points; start += CHUNK) {
        const size_t count = points - start < CHUNK ? points - start : CHUNK;
        for (size_t i = 0; i < count; i++)
            io_put_f32(buf + 4 * i, (float)m->values[start + i]);
        fwrite(buf, 4, count, af.fp);
    }
    return atomic_file_commit(&af, err);
}

/* ---- Reading ------------------------------------------------------------------------------- */

/* The header's byte order: MACHST when it is one of the two known stamps, else the order in
 * which the mode is one of the format's small mode numbers. */
static int header_big_endian(unsigned char *h) {
    if (h[4 * 53] == 0x44) return 0;
    if (h[4 * 53] == 0x11) return 1;
    return io_get_u32(word(h, 3), 0) > 16;
}

static void label_text(char *dst, size_t size, const unsigned char *src) {
    size_t len = 0;
    while (len < LABEL_BYTES && src[len] >= 0x20 && src[len] < 0x7f)
        len++;
    io_trim_copy(dst, size, (const char *)src, len);
}

int mrc_read(const char *path, map_grid *m, io_error *err) {
    memset(m, 0, sizeof *m);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open MRC/CCP4 map: %s",
                       strerror(errno));
    unsigned char h[HEADER_BYTES];
    if (fread(h, 1, sizeof h, fp) != sizeof h) {
        fclose(fp);
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                       "truncated MRC/CCP4 map: the header needs %d bytes", HEADER_BYTES);
    }
    int rc = IO_OK;
    if (memcmp(word(h, 52), "MAP ", 4) != 0)
        rc = io_fail(err, IO_ERR_INPUT, path, 0, "MAP",
                     "not an MRC/CCP4 map (no \"MAP \" stamp in header word 53)");
    const int be = header_big_endian(h);
    int32_t count[3], start[3], intervals[3], axis_word[3], axis_of[3];
    float cell[3], angle[3], origin[3];
    for (int a = 0; a < 3; a++) {
        count[a] = (int32_t)io_get_u32(word(h, a), be);
        start[a] = (int32_t)io_get_u32(word(h, 4 + a), be);
        intervals[a] = (int32_t)io_get_u32(word(h, 7 + a), be);
        cell[a] = io_get_f32(word(h, 10 + a), be);
        angle[a] = io_get_f32(word(h, 13 + a), be);
        axis_word[a] = (int32_t)io_get_u32(word(h, 16 + a), be);
        axis_of[a] = axis_word[a] >= 1 && axis_word[a] <= 3 ? axis_word[a] - 1 : -1;
        origin[a] = io_get_f32(word(h, 49 + a), be);
    }
    const uint32_t mode = io_get_u32(word(h, 3), be);
    const int32_t extended = (int32_t)io_get_u32(word(h, 23), be);
    if (rc == IO_OK && mode != 2)
        rc = io_fail(err, IO_ERR_UNSUPPORTED, path, 0, "MODE",
                     "mode %u is not supported (only mode 2, 32-bit reals)", mode);
    for (int a = 0; a < 3 && rc == IO_OK; a++)
        if (count[a] < 1 || count[a] > 100000)
            rc = io_fail(err, IO_ERR_INPUT, path, 0,
                         a == 0   ? "NC"
                         : a == 1 ? "NR"
                                  : "NS",
                         "bad point count %d", (int)count[a]);
    if (rc == IO_OK && (axis_of[0] < 0 || axis_of[0] > 2 || axis_of[1] < 0 || axis_of[1] > 2 ||
                        axis_of[2] < 0 || axis_of[2] > 2 || axis_of[0] == axis_of[1] ||
                        axis_of[0] == axis_of[2] || axis_of[1] == axis_of[2]))
        rc = io_fail(err, IO_ERR_INPUT, path, 0, "MAPC/MAPR/MAPS",
                     "the axes %d, %d, %d are not a permutation of 1, 2, 3", (int)axis_word[0],
                     (int)axis_word[1], (int)axis_word[2]);
    for (int a = 0; a < 3 && rc == IO_OK; a++)
        if (!(fabsf(angle[a] - 90.0f) < 1e-3f))
            rc = io_fail(err, IO_ERR_UNSUPPORTED, path, 0, "cell angles",
                         "cell angles %g, %g, %g: only orthogonal grids are supported",
                         (double)angle[0], (double)angle[1], (double)angle[2]);
    double spacing[3] = {0, 0, 0};
    for (int a = 0; a < 3 && rc == IO_OK; a++) {
        spacing[a] = intervals[a] > 0 ? (double)cell[a] / intervals[a] : 0.0;
        if (!(spacing[a] > 0.0) || !isfinite(spacing[a]))
            rc = io_fail(err, IO_ERR_INPUT, path, 0, "cell",
                         "axis %c: cell length %g over %d intervals is not a spacing", 'x' + a,
                         (double)cell[a], (int)intervals[a]);
    }
    if (rc == IO_OK && (fabs(spacing[1] - spacing[0]) > 1e-5 * spacing[0] ||
                        fabs(spacing[2] - spacing[0]) > 1e-5 * spacing[0]))
        rc = io_fail(err, IO_ERR_UNSUPPORTED, path, 0, "cell",
                     "voxel sizes %g, %g, %g A differ (one spacing on all axes is needed)",
                     spacing[0], spacing[1], spacing[2]);
    for (int a = 0; a < 3 && rc == IO_OK; a++)
        if (!isfinite(origin[a]))
            rc = io_fail(err, IO_ERR_INPUT, path, 0, "ORIGIN", "the origin is not finite");
    if (rc == IO_OK && extended < 0)
        rc = io_fail(err, IO_ERR_INPUT, path, 0, "NSYMBT", "negative extended header size %d",
                     (int)extended);
    const size_t points = (size_t)count[0] * (size_t)count[1] * (size_t)count[2];
    if (rc == IO_OK) {
        const long long left = io_bytes_left(fp);
        if (left >= 0 && (unsigned long long)left < (unsigned long long)extended + 4ull * points)
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                         "truncated MRC/CCP4 map: %d x %d x %d reals after a %d-byte extended "
                         "header need %llu bytes, only %lld follow",
                         (int)count[0], (int)count[1], (int)count[2], (int)extended,
                         (unsigned long long)extended + 4ull * points, left);
        else if (fseek(fp, extended, SEEK_CUR) != 0)
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "cannot skip the extended header");
    }
    if (rc == IO_OK) {
        int n[3];
        for (int a = 0; a < 3; a++)
            n[axis_of[a]] = count[a];
        /* The first point: ORIGIN when set, else the starts in whole intervals. */
        const int from_origin = origin[0] != 0.0f || origin[1] != 0.0f || origin[2] != 0.0f;
        double first[3], center[3];
        for (int a = 0; a < 3; a++)
            first[axis_of[a]] = from_origin ? 0.0 : start[a] * spacing[axis_of[a]];
        for (int a = 0; a < 3; a++) {
            if (from_origin) first[a] = origin[a];
            center[a] = first[a] + 0.5 * (n[a] - 1) * spacing[0];
        }
        rc = map_grid_alloc(m, n, 1.0 / spacing[0], center, err);
    }
    if (rc == IO_OK) {
        /* File order: column c, row r, section s; the map's x fastest. */
        size_t stride[3] = {1, (size_t)m->n[0], (size_t)m->n[0] * (size_t)m->n[1]};
        const size_t sc = stride[axis_of[0]], sr = stride[axis_of[1]], ss = stride[axis_of[2]];
        unsigned char *row = malloc(4 * (size_t)count[0]);
        if (!row) rc = io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory");
        for (int32_t s = 0; s < count[2] && rc == IO_OK; s++)
            for (int32_t r = 0; r < count[1] && rc == IO_OK; r++) {
                if (fread(row, 4, (size_t)count[0], fp) != (size_t)count[0]) {
                    rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                                 "truncated MRC/CCP4 map: section %d, row %d ends early", (int)s,
                                 (int)r);
                    break;
                }
                for (int32_t c = 0; c < count[0]; c++) {
                    const double v = io_get_f32(row + 4 * c, be);
                    if (!isfinite(v)) {
                        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                                     "value at column %d, row %d, section %d is not finite",
                                     (int)c + 1, (int)r + 1, (int)s + 1);
                        break;
                    }
                    m->values[sc * c + sr * r + ss * s] = v;
                }
            }
        free(row);
    }
    if (rc == IO_OK) {
        const int labels = (int)io_get_u32(word(h, 55), be);
        char first_label[LABEL_BYTES + 1] = "";
        if (labels >= 1) label_text(first_label, sizeof first_label, word(h, 56));
        if (labels >= 2 && strcmp(first_label, STAMP) == 0)
            label_text(m->title, sizeof m->title, word(h, 56) + LABEL_BYTES);
        else if (strcmp(first_label, STAMP) != 0)
            snprintf(m->title, sizeof m->title, "%.60s", first_label);
    }
    fclose(fp);
    if (rc != IO_OK) map_grid_free(m);
    return rc;
}
