/* DelPhi's unformatted PDB file (in(unpdb), out(unpdb); the binary molecule file MCCE writes).
 *
 * A Fortran sequential unformatted file: every record is a 4-byte length n, n bytes, and the
 * same 4-byte length again.  The byte order is the writer's (little-endian on today's machines);
 * the first length marker tells which, and every marker and number of the file follows it.
 *
 *   format 0 (no header; what MCCE and DelPhi's out(unpdb) write): one record per atom,
 *            x, y, z, radius, charge as 4-byte reals (20 bytes) or as 8-byte reals (40 bytes,
 *            a DelPhi built with 8-byte default reals)
 *   format 1 record 1: 80 characters containing "DELPHI" and "PDB"
 *            record 2: the format number (4-byte integer, 1)
 *            record 3: the atom count (4-byte integer)
 *            then one record per atom: a 15-character descriptor (atom name in characters 1-5,
 *            residue name 7-9, chain 11, residue number 12-15: PDB columns 12-26), then
 *            x, y, z, radius, charge as 4-byte (35 bytes) or 8-byte reals (55 bytes)
 * Every record of the atoms has the same length.  Coordinates and radii are in Angstrom,
 * charges in e. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_bytes.h"
#include "io_text.h"
#include "molecule_internal.h"

enum {
    UNPDB_ATOM4 = 20,      /* format 0 atom: 5 x 4-byte reals */
    UNPDB_ATOM8 = 40,      /* format 0 atom: 5 x 8-byte reals */
    UNPDB_HEADER = 80,     /* format 1 record 1 */
    UNPDB_DESCRIPTOR = 15, /* format 1 atom descriptor */
    UNPDB_DATOM4 = UNPDB_DESCRIPTOR + UNPDB_ATOM4,
    UNPDB_DATOM8 = UNPDB_DESCRIPTOR + UNPDB_ATOM8,
    UNPDB_RECORD_MAX = UNPDB_HEADER /* the longest record of the format */
};

static const char *const value_names[5] = {"x", "y", "z", "radius", "charge"};

/* A record length the first record of the file may have. */
static int first_length(uint32_t n) {
    return n == UNPDB_ATOM4 || n == UNPDB_ATOM8 || n == UNPDB_HEADER;
}

/* The byte order of the first length marker: 0 little-endian, 1 big-endian, -1 neither gives a
 * length the format uses.  (No length of it reads as one in the other order, so the choice is
 * never ambiguous.) */
static int marker_order(const unsigned char marker[4]) {
    if (first_length(io_get_u32(marker, 0))) return 0;
    if (first_length(io_get_u32(marker, 1))) return 1;
    return -1;
}

int unpdb_detect(const char *path, int *is_unformatted, io_error *err) {
    *is_unformatted = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open the molecule file: %s",
                       strerror(errno));
    unsigned char head[4 + UNPDB_RECORD_MAX + 4];
    const size_t got = fread(head, 1, sizeof head, fp);
    fclose(fp);
    if (got < 4) return IO_OK;
    const int big = marker_order(head);
    if (big < 0) return IO_OK;
    const uint32_t n = io_get_u32(head, big);
    if (got < 4 + n + 4) return IO_OK;
    *is_unformatted = io_get_u32(head + 4 + n, big) == n;
    return IO_OK;
}

/* ---- Reading records ------------------------------------------------------------------------ */
typedef struct unf_file {
    FILE *fp;
    const char *path;
    int big_endian;
    int record; /* number of the record being read (1-based) */
    unsigned char body[UNPDB_RECORD_MAX];
} unf_file;

/* The next record, whose length must be want or want2 (0: no second choice); what describes
 * the record expected, for messages.  *len is its length.  *at_end is set (and IO_OK returned)
 * when the file ends cleanly before the record. */
static int next_record(unf_file *f, uint32_t want, uint32_t want2, const char *what, uint32_t *len,
                       int *at_end, io_error *err) {
    unsigned char marker[4];
    *at_end = 0;
    if (f->record == INT_MAX)
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: too many atoms for memory (more than %d records)", f->record,
                       INT_MAX - 1);
    f->record++;
    size_t got = fread(marker, 1, 4, f->fp);
    if (got == 0 && !ferror(f->fp)) {
        *at_end = 1;
        return IO_OK;
    }
    if (got < 4) {
        if (ferror(f->fp))
            return io_fail(err, IO_ERR_FILE, f->path, f->record, NULL, "record %d: read error: %s",
                           f->record, strerror(errno));
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: truncated: the file ends inside its length marker (%zu of 4 "
                       "bytes)",
                       f->record, got);
    }
    const uint32_t n = io_get_u32(marker, f->big_endian);
    if (n != want && (want2 == 0 || n != want2)) {
        char lengths[48];
        if (want2)
            snprintf(lengths, sizeof lengths, "%u or %u", (unsigned)want, (unsigned)want2);
        else
            snprintf(lengths, sizeof lengths, "%u", (unsigned)want);
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: a record of %lu bytes where %s (%s bytes) was expected",
                       f->record, (unsigned long)n, what, lengths);
    }
    got = fread(f->body, 1, n, f->fp);
    if (got < n) {
        if (ferror(f->fp))
            return io_fail(err, IO_ERR_FILE, f->path, f->record, NULL, "record %d: read error: %s",
                           f->record, strerror(errno));
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: truncated: %u bytes announced, the file ends after %zu",
                       f->record, (unsigned)n, got);
    }
    got = fread(marker, 1, 4, f->fp);
    if (got < 4) {
        if (ferror(f->fp))
            return io_fail(err, IO_ERR_FILE, f->path, f->record, NULL, "record %d: read error: %s",
                           f->record, strerror(errno));
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: truncated: the file ends inside its closing length marker (%zu "
                       "of 4 bytes)",
                       f->record, got);
    }
    const uint32_t closing = io_get_u32(marker, f->big_endian);
    if (closing != n)
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: the length markers disagree (%u before the record, %lu after "
                       "it): not a Fortran unformatted record",
                       f->record, (unsigned)n, (unsigned long)closing);
    *len = n;
    return IO_OK;
}

/* The same record, which must be there (the file may not end before it). */
static int required_record(unf_file *f, uint32_t want, uint32_t want2, const char *what,
                           uint32_t *len, io_error *err) {
    int at_end;
    int rc = next_record(f, want, want2, what, len, &at_end, err);
    if (rc == IO_OK && at_end)
        rc = io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                     "record %d: missing: the file ends before %s", f->record, what);
    return rc;
}

/* A descriptor character: NUL reads as a blank, other unprintable bytes as '?'. */
static char descriptor_char(unsigned char c) {
    if (c == 0) return ' ';
    return c < 0x20 || c > 0x7e ? '?' : (char)c;
}

/* Identifiers from the 15-character descriptor (PDB columns 12-26): atom name 1-5, residue name
 * 7-9, chain 11, residue number 12-15.  Blank fields stay blank (residue number 0); a residue
 * number that is not an integer reads as 0. */
static void parse_descriptor(const unsigned char *d, atom *a) {
    char text[UNPDB_DESCRIPTOR + 1];
    for (int i = 0; i < UNPDB_DESCRIPTOR; i++)
        text[i] = descriptor_char(d[i]);
    text[UNPDB_DESCRIPTOR] = '\0';
    io_columns(text, UNPDB_DESCRIPTOR, 1, 5, a->name, sizeof a->name);
    io_columns(text, UNPDB_DESCRIPTOR, 7, 9, a->residue, sizeof a->residue);
    a->chain = text[10];
    char number[8];
    long resnum;
    io_columns(text, UNPDB_DESCRIPTOR, 12, 15, number, sizeof number);
    const int ok = number[0] && io_parse_int(number, &resnum) == 0;
    a->residue_number = ok && resnum > -100000 && resnum < 100000 ? (int)resnum : 0;
}

/* x, y, z, radius, charge from 4-byte (real_size 4) or 8-byte reals at p.  The values are
 * held to molecule_check's limits here, so that the message names the record (the atoms of
 * format 0 have no names to name them by). */
static int parse_values(const unf_file *f, const unsigned char *p, int real_size, atom *a,
                        io_error *err) {
    double v[5];
    for (int k = 0; k < 5; k++) {
        v[k] = real_size == 4 ? (double)io_get_f32(p + 4 * k, f->big_endian)
                              : io_get_f64(p + 8 * k, f->big_endian);
        const char *bad = NULL;
        if (!isfinite(v[k]))
            bad = "is not a finite number";
        else if (k < 3 && fabs(v[k]) > IO_MAX_COORDINATE)
            bad = "coordinate is absurd (|x| > 1e5 A)";
        else if (k == 3 && (v[k] < 0.0 || v[k] > IO_MAX_RADIUS))
            bad = "is out of range (0 to 10 A)";
        else if (k == 4 && fabs(v[k]) > IO_MAX_CHARGE)
            bad = "is out of range (|q| <= 10 e)";
        if (bad)
            return io_fail(err, IO_ERR_INPUT, f->path, f->record, value_names[k],
                           "record %d: %s %s (%g)", f->record, value_names[k], bad, v[k]);
    }
    a->x = v[0], a->y = v[1], a->z = v[2], a->radius = v[3], a->charge = v[4];
    return IO_OK;
}

static int push_atom(unf_file *f, molecule *mol, atom *a, io_error *err) {
    a->serial = (int)mol->count + 1;
    a->source_line = f->record;
    snprintf(a->record, sizeof a->record, "ATOM");
    if (molecule_push(mol, a, NULL) != IO_OK)
        return io_fail(err, IO_ERR_MEMORY, f->path, f->record, NULL,
                       "record %d: too many atoms for memory (out of memory after %zu atoms)",
                       f->record, mol->count);
    return IO_OK;
}

static void blank_atom(atom *a) {
    memset(a, 0, sizeof *a);
    a->chain = a->insertion = ' ';
}

/* Format 0: the first record (real_size from its length) is already in f->body. */
static int read_format0(unf_file *f, uint32_t length, molecule *mol, io_error *err) {
    const int real_size = length == UNPDB_ATOM4 ? 4 : 8;
    const char *what = real_size == 4 ? "an atom record (x, y, z, radius, charge as 4-byte reals)"
                                      : "an atom record (x, y, z, radius, charge as 8-byte reals)";
    for (;;) {
        atom a;
        blank_atom(&a);
        int rc = parse_values(f, f->body, real_size, &a, err);
        if (rc == IO_OK) rc = push_atom(f, mol, &a, err);
        if (rc) return rc;
        int at_end;
        rc = next_record(f, length, 0, what, &length, &at_end, err);
        if (rc || at_end) return rc;
    }
}

/* Does the header record name DELPHI and PDB (in any case)? */
static int header_names_delphi(const unsigned char *body, size_t len) {
    char text[UNPDB_RECORD_MAX + 1];
    for (size_t i = 0; i < len; i++)
        text[i] = (char)toupper(descriptor_char(body[i]));
    text[len] = '\0';
    return strstr(text, "DELPHI") && strstr(text, "PDB");
}

static int32_t get_i32(const unsigned char *p, int big_endian) {
    const uint32_t u = io_get_u32(p, big_endian);
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - INT32_MAX - 1) + INT32_MIN;
}

/* Format 1: the header record is already in f->body. */
static int read_format1(unf_file *f, molecule *mol, io_error *err) {
    if (!header_names_delphi(f->body, UNPDB_HEADER))
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: an 80-byte first record without 'DELPHI' and 'PDB': not the "
                       "header of DelPhi's unformatted PDB file",
                       f->record);
    uint32_t len;
    int rc = required_record(f, 4, 0, "the format number (a 4-byte integer)", &len, err);
    if (rc) return rc;
    const int32_t format = get_i32(f->body, f->big_endian);
    if (format != 1)
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, "format",
                       "record %d: unformatted PDB format %ld is not known (format 1 has a "
                       "header, format 0 none)",
                       f->record, (long)format);
    rc = required_record(f, 4, 0, "the atom count (a 4-byte integer)", &len, err);
    if (rc) return rc;
    const int count_record = f->record;
    const int32_t count = get_i32(f->body, f->big_endian);
    if (count <= 0)
        return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                       "record %d: the atom count is %ld: no atoms", f->record, (long)count);
    const char *what = "an atom record (15-character descriptor, then x, y, z, radius, charge)";
    rc = required_record(f, UNPDB_DATOM4, UNPDB_DATOM8, what, &len, err);
    if (rc) return rc;
    const int real_size = len == UNPDB_DATOM4 ? 4 : 8;
    for (;;) {
        if (mol->count == (size_t)count)
            return io_fail(err, IO_ERR_INPUT, f->path, f->record, NULL,
                           "record %d: more atom records than the atom count of record %d (%ld)",
                           f->record, count_record, (long)count);
        atom a;
        blank_atom(&a);
        parse_descriptor(f->body, &a);
        rc = parse_values(f, f->body + UNPDB_DESCRIPTOR, real_size, &a, err);
        if (rc == IO_OK) rc = push_atom(f, mol, &a, err);
        if (rc) return rc;
        int at_end;
        rc = next_record(f, len, 0, what, &len, &at_end, err);
        if (rc) return rc;
        if (at_end) break;
    }
    if (mol->count != (size_t)count)
        return io_fail(err, IO_ERR_INPUT, f->path, count_record, NULL,
                       "record %d: the atom count is %ld, but the file holds %zu atom records",
                       count_record, (long)count, mol->count);
    return IO_OK;
}

static int read_unpdb(unf_file *f, molecule *mol, io_error *err) {
    unsigned char marker[4];
    const size_t got = fread(marker, 1, 4, f->fp);
    if (got == 0 && !ferror(f->fp))
        return io_fail(err, IO_ERR_INPUT, f->path, 1, NULL,
                       "record 1: missing: the file is empty (no atoms)");
    if (got < 4 || (f->big_endian = marker_order(marker)) < 0) {
        if (ferror(f->fp))
            return io_fail(err, IO_ERR_FILE, f->path, 1, NULL, "record 1: read error: %s",
                           strerror(errno));
        return io_fail(err, IO_ERR_INPUT, f->path, 1, NULL,
                       "record 1: not DelPhi's unformatted PDB file: the file does not start "
                       "with a Fortran record length of %d, %d or %d bytes",
                       UNPDB_ATOM4, UNPDB_ATOM8, UNPDB_HEADER);
    }
    const uint32_t first = io_get_u32(marker, f->big_endian);
    /* A file of fewer than INT_MAX records: more could not be numbered (nor held). */
    const long long bytes = io_bytes_left(f->fp);
    const long long per_atom = first == UNPDB_HEADER ? UNPDB_DATOM4 + 8 : (long long)first + 8;
    if (bytes > 0 && bytes / per_atom >= INT_MAX - 4)
        return io_fail(err, IO_ERR_INPUT, f->path, 1, NULL,
                       "record 1: too many atoms for memory: the file's %lld bytes would hold "
                       "%lld atom records (at most %d)",
                       bytes + 4, bytes / per_atom, INT_MAX - 5);
    if (fseek(f->fp, 0, SEEK_SET) != 0)
        return io_fail(err, IO_ERR_FILE, f->path, 0, NULL, "cannot rewind the file: %s",
                       strerror(errno));
    uint32_t len;
    int rc = required_record(
        f, first, 0, first == UNPDB_HEADER ? "the 80-character header" : "the first atom record",
        &len, err);
    if (rc) return rc;
    return len == UNPDB_HEADER ? read_format1(f, mol, err) : read_format0(f, len, mol, err);
}

int molecule_read_unpdb(const char *path, molecule *mol, io_notes *notes, io_error *err) {
    (void)notes;
    memset(mol, 0, sizeof *mol);
    snprintf(mol->source, sizeof mol->source, "%s", path);
    unf_file f;
    memset(&f, 0, sizeof f);
    f.path = path;
    f.fp = fopen(path, "rb");
    if (!f.fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open the unformatted PDB file: %s",
                       strerror(errno));
    int rc = read_unpdb(&f, mol, err);
    fclose(f.fp);
    if (rc == IO_OK) rc = molecule_check(mol, err);
    if (rc != IO_OK) molecule_free(mol);
    return rc;
}

/* ---- Writing ------------------------------------------------------------------------------- */
int unpdb_write(const char *path, const molecule *mol, io_error *err) {
    if (!mol || mol->count == 0)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no atoms to write");
    for (size_t i = 0; i < mol->count; i++) {
        const atom *a = &mol->atoms[i];
        const double v[5] = {a->x, a->y, a->z, a->radius, a->charge};
        for (int k = 0; k < 5; k++)
            if (!isfinite((float)v[k]))
                return io_fail(err, IO_ERR_INPUT, path, 0, value_names[k],
                               "atom %zu (%s %s %d): %g is not a finite 4-byte real", i + 1,
                               a->name, a->residue, a->residue_number, v[k]);
    }
    atomic_file af;
    int rc = atomic_file_open(&af, path, 1, err);
    if (rc) return rc;
    for (size_t i = 0; i < mol->count; i++) {
        const atom *a = &mol->atoms[i];
        const double v[5] = {a->x, a->y, a->z, a->radius, a->charge};
        unsigned char record[4 + UNPDB_ATOM4 + 4];
        io_put_u32(record, UNPDB_ATOM4);
        for (int k = 0; k < 5; k++)
            io_put_f32(record + 4 + 4 * k, (float)v[k]);
        io_put_u32(record + 4 + UNPDB_ATOM4, UNPDB_ATOM4);
        if (fwrite(record, 1, sizeof record, af.fp) != sizeof record) break;
    }
    return atomic_file_commit(&af, err);
}
