/* Fortran unformatted sequential records (see fortran_records.h). */
#include "fortran_records.h"

#include <stdlib.h>

#include "io_bytes.h"
#include "io_text.h"

int fortran_first_length(FILE *fp, uint32_t *little, uint32_t *big) {
    unsigned char marker[4];
    const long at = ftell(fp);
    const int got = fread(marker, 1, 4, fp) == 4;
    if (at >= 0) fseek(fp, at, SEEK_SET);
    if (!got) return -1;
    *little = io_get_u32(marker, 0), *big = io_get_u32(marker, 1);
    return 0;
}

int fortran_read_record(fortran_reader *r, unsigned char **data, uint32_t *len, io_error *err) {
    unsigned char marker[4], tail[4];
    *data = NULL;
    const int record = ++r->record;
    if (fread(marker, 1, 4, r->fp) != 4)
        return io_fail(err, IO_ERR_INPUT, r->path, 0, NULL, "truncated %s: record %d is missing",
                       r->what, record);
    const uint32_t n = io_get_u32(marker, r->big_endian);
    if (n & 0x80000000u)
        return io_fail(err, IO_ERR_UNSUPPORTED, r->path, 0, NULL,
                       "%s record %d is split into Fortran subrecords (over 2 GiB); not supported",
                       r->what, record);
    const long long left = io_bytes_left(r->fp);
    if (left >= 0 && (long long)n + 4 > left)
        return io_fail(err, IO_ERR_INPUT, r->path, 0, NULL,
                       "truncated %s: record %d claims %u bytes but only %lld follow", r->what,
                       record, n, left);
    unsigned char *bytes = malloc(n ? n : 1);
    if (!bytes) return io_fail(err, IO_ERR_MEMORY, r->path, 0, NULL, "out of memory");
    if (fread(bytes, 1, n, r->fp) != n || fread(tail, 1, 4, r->fp) != 4) {
        free(bytes);
        return io_fail(err, IO_ERR_INPUT, r->path, 0, NULL, "truncated %s: record %d ends early",
                       r->what, record);
    }
    if (io_get_u32(tail, r->big_endian) != n) {
        free(bytes);
        return io_fail(err, IO_ERR_INPUT, r->path, 0, NULL,
                       "corrupt %s: record %d markers disagree (%u bytes before it, %u after)",
                       r->what, record, n, io_get_u32(tail, r->big_endian));
    }
    *data = bytes, *len = n;
    return IO_OK;
}

void fortran_write_marker(FILE *fp, uint32_t len) {
    unsigned char marker[4];
    io_put_u32(marker, len);
    fwrite(marker, 1, 4, fp);
}

void fortran_write_record(FILE *fp, const void *data, uint32_t len) {
    fortran_write_marker(fp, len);
    fwrite(data, 1, len, fp);
    fortran_write_marker(fp, len);
}
