/* Tiny test helpers for the host_io unit tests: the common checks (dg_check.h) and CHECK_OK,
 * CHECK_CONTAINS, CHECK_ERROR_AT for host_io's status and messages, a scratch
 * directory per test, and small file helpers.  Each test program returns non-zero on failure. */
#ifndef HOST_IO_TEST_UTIL_H
#define HOST_IO_TEST_UTIL_H

#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../delphi_gpu/tests/dg_check.h"

/* Status and message checks: on failure print the message we got. */
#define CHECK_OK(rc, err)                                                                          \
    do {                                                                                           \
        test_checks++;                                                                             \
        if ((rc) != 0) {                                                                           \
            fprintf(stderr, "FAIL %s:%d: expected success, got %d: %s\n", __FILE__, __LINE__,      \
                    (rc), (err).message);                                                          \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#define CHECK_CONTAINS(text, part)                                                                 \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!strstr((text), (part))) {                                                             \
            fprintf(stderr, "FAIL %s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__,        \
                    (text), (part));                                                               \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* An error: non-zero status and a message that names the file and, if line > 0, "file:line". */
#define CHECK_ERROR_AT(rc, err, file, line)                                                        \
    do {                                                                                           \
        char where_[1200];                                                                         \
        if ((line) > 0)                                                                            \
            snprintf(where_, sizeof where_, "%s:%d:", (file), (line));                             \
        else                                                                                       \
            snprintf(where_, sizeof where_, "%s", (file));                                         \
        test_checks++;                                                                             \
        if ((rc) == 0) {                                                                           \
            fprintf(stderr, "FAIL %s:%d: expected an error naming %s, got success\n", __FILE__,    \
                    __LINE__, where_);                                                             \
            test_failures++;                                                                       \
        } else if (!strstr((err).message, where_)) {                                               \
            fprintf(stderr, "FAIL %s:%d: message '%s' does not name '%s'\n", __FILE__, __LINE__,   \
                    (err).message, where_);                                                        \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

static char test_scratch[4096];   /* absolute path of this test's scratch directory */
static char test_start_dir[4096]; /* where the test started */

/* Make a fresh scratch directory under the current one and change into it. */
static inline void test_enter_scratch(const char *name) {
    char dir[256];
    snprintf(dir, sizeof dir, "scratch_%s_XXXXXX", name);
    if (!getcwd(test_start_dir, sizeof test_start_dir) || !mkdtemp(dir) || chdir(dir) != 0 ||
        !getcwd(test_scratch, sizeof test_scratch)) {
        perror("scratch directory");
        exit(2);
    }
}

/* Remove a directory tree the test made (files and subdirectories only). */
static inline void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char child[4096 + 256];
        if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child) continue;
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(child);
        else
            unlink(child);
    }
    closedir(d);
    rmdir(path);
}

/* Report; on success the scratch directory is removed (kept for inspection on failure). */
static inline int test_finish(const char *name) {
    const int rc = dg_check_report(name);
    if (rc)
        fprintf(stderr, "%s: files kept in %s\n", name, test_scratch);
    else if (test_scratch[0] && chdir(test_start_dir) == 0)
        remove_tree(test_scratch);
    return rc;
}

static inline void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(2);
    }
    fputs(text, fp);
    fclose(fp);
}

static inline int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in dir whose name contains part (e.g. leftover ".tmp-" files). */
static inline int count_names_containing(const char *dir, const char *part) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, part)) n++;
    closedir(d);
    return n;
}

/* Whole file into a new buffer (NULL on failure). */
static inline char *read_text(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = '\0';
    fclose(fp);
    return buf;
}

#endif /* HOST_IO_TEST_UTIL_H */
