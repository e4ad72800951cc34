/* Shared part of the libFuzzer targets of host_io: the readers take file names, so each input
 * is written to a private temporary file first and the reader is run on that file. */
#ifndef HOST_IO_FUZZ_COMMON_H
#define HOST_IO_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_common.h"

/* Write data to <dir>/dg-fuzz-<pid>-<tag> and return that name. */
static const char *fuzz_file(const char *tag, const uint8_t *data, size_t size) {
    static char path[6][128];
    static int slot;
    char *p = path[slot++ % 6];
    /* /dev/shm when there is one: no disk traffic for millions of small files. */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(p, 128, "%s/dg-fuzz-%ld-%s", dir, (long)getpid(), tag);
    FILE *f = fopen(p, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    return p;
}

/* An error must come with a message: a reader that fails silently is a defect. */
static void fuzz_expect_message(int rc, const io_error *err) {
    if (rc != IO_OK && err->message[0] == '\0') abort();
}

#endif /* HOST_IO_FUZZ_COMMON_H */
