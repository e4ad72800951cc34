/* Internal to host_io: Fortran unformatted sequential records, as gfortran writes them (a 4-byte
 * length before and after each record's bytes), for DelPhi's binary files (the phimap and the
 * dielectric map).  Written little-endian; read in the byte order the caller found. */
#ifndef HOST_IO_FORTRAN_RECORDS_H
#define HOST_IO_FORTRAN_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "io_common.h"

/* A file being read record by record.  what names the file's kind in messages ("phimap",
 * "dielectric map"). */
typedef struct fortran_reader {
    FILE *fp;
    const char *path;
    const char *what;
    int big_endian;
    int record; /* records read so far */
} fortran_reader;

/* The first record's length marker, read and the position restored: *little and *big its two
 * readings.  Returns 0, or -1 when the file has fewer than 4 bytes. */
int fortran_first_length(FILE *fp, uint32_t *little, uint32_t *big);

/* The next record's bytes (malloc'ed, *len of them).  A missing or truncated record, a
 * record split into subrecords (over 2 GiB) and disagreeing markers are failures naming the
 * record, with nothing allocated. */
int fortran_read_record(fortran_reader *r, unsigned char **data, uint32_t *len, io_error *err);

/* A record's length marker (before and after its bytes), little-endian. */
void fortran_write_marker(FILE *fp, uint32_t len);

/* A whole record: marker, bytes, marker. */
void fortran_write_record(FILE *fp, const void *data, uint32_t len);

#endif /* HOST_IO_FORTRAN_RECORDS_H */
