/* Atomic output files: written to a temporary beside the target, renamed over it on commit. */
#define _POSIX_C_SOURCE 200809L

#include "io_common.h"

#include "temp_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int atomic_file_open(atomic_file *af, const char *path, int binary, io_error *err) {
    (void)binary; /* POSIX streams make no text/binary difference */
    memset(af, 0, sizeof *af);
    if (!path || !path[0])
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL, "empty output file name");
    if (strlen(path) >= sizeof af->path)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "output file name is too long");
    snprintf(af->path, sizeof af->path, "%s", path ? path : "");
    snprintf(af->temp_path, sizeof af->temp_path, "%s.tmp-XXXXXX", path);

    int fd = mkstemp(af->temp_path);
    if (fd < 0)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot create output file: %s",
                       strerror(errno));
    if (temp_files_add(af->temp_path, af->path, err) != IO_OK) {
        close(fd);
        remove(af->temp_path);
        return err ? err->status : IO_ERR_MEMORY;
    }
    /* mkstemp makes the file 0600; give it the permissions an ordinary new file would get. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, (mode_t)(0666 & ~mask)) != 0) {
        /* Not fatal for correctness, but say so rather than leave odd permissions silently. */
        int e = errno;
        close(fd);
        remove(af->temp_path);
        temp_files_forget(af->temp_path);
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot set permissions: %s", strerror(e));
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        remove(af->temp_path);
        temp_files_forget(af->temp_path);
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open output file: %s", strerror(e));
    }
    return IO_OK;
}

/* Why an earlier buffered write of fp failed (the stream keeps only that it did): the error of
 * a write of one block past the file's end, which meets the same full disk or size limit (the
 * temporary is removed anyway); EIO when that write succeeds. */
static int failed_write_errno(FILE *fp) {
    static const char block[65536];
    const int fd = fileno(fp);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return EIO;
    const off_t end = (st.st_size / (off_t)sizeof block + 1) * (off_t)sizeof block;
    if (pwrite(fd, block, sizeof block, end) < 0 && errno != 0) return errno;
    return EIO;
}

int atomic_file_commit(atomic_file *af, io_error *err) {
    if (!af->fp) return io_fail(err, IO_ERR_FILE, af->path, 0, NULL, "output file is not open");
    int failed = ferror(af->fp) != 0;
    int e = failed ? failed_write_errno(af->fp) : 0;
    if (fflush(af->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed && fsync(fileno(af->fp)) != 0 && errno != EINVAL && errno != EROFS) {
        failed = 1;
        e = errno;
    }
    if (fclose(af->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    af->fp = NULL;
    if (failed) {
        remove(af->temp_path);
        temp_files_forget(af->temp_path);
        return io_fail(err, IO_ERR_FILE, af->path, 0, NULL, "write failed: %s", strerror(e));
    }
    if (temp_files_staging()) { /* renamed with the others when the whole run succeeded */
        temp_files_stage_done(af->temp_path);
        return IO_OK;
    }
    const int renamed = rename(af->temp_path, af->path) == 0;
    e = errno;
    temp_files_forget(af->temp_path);
    if (!renamed) {
        remove(af->temp_path);
        return io_fail(err, IO_ERR_FILE, af->path, 0, NULL, "cannot rename the finished file: %s",
                       strerror(e));
    }
    return IO_OK;
}

void atomic_file_abort(atomic_file *af) {
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
        remove(af->temp_path);
        temp_files_forget(af->temp_path);
    }
}
