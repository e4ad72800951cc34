/* Internal text helpers of host_io. */
#define _POSIX_C_SOURCE 200809L

#include "io_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

long io_read_line(FILE *fp, char **buf, size_t *cap) {
    size_t len = 0, consumed = 0;
    int c;
    /* One lock for the line, not one per character (getc_unlocked): reading is a visible part
       of a large input's run. */
    flockfile(fp);
    while ((c = getc_unlocked(fp)) != EOF) {
        ++consumed;
        if (len + 2 > *cap) {
            size_t grown = *cap ? *cap * 2 : 256;
            char *p = realloc(*buf, grown);
            if (!p) {
                funlockfile(fp);
                return -1;
            }
            *buf = p;
            *cap = grown;
        }
        if (c == '\n') break;
        (*buf)[len++] = (char)c;
    }
    funlockfile(fp);
    if (c == EOF && len == 0) return -1;
    if (!*buf) { /* an empty last line before EOF cannot get here, but keep *buf valid */
        *buf = malloc(1);
        if (!*buf) return -1;
        *cap = 1;
    }
    if (len > 0 && (*buf)[len - 1] == '\r') len--;
    (*buf)[len] = '\0';
    /* A UTF-8 byte-order mark is dropped from the file's first line (the line began at offset
       0: the position now is what it consumed). */
    if (len >= 3 && memcmp(*buf, "\xEF\xBB\xBF", 3) == 0 && ftell(fp) == (long)consumed) {
        memmove(*buf, *buf + 3, len - 2);
        len -= 3;
    }
    return (long)len;
}

void io_trim_copy(char *dst, size_t size, const char *src, size_t len) {
    if (size == 0) return;
    while (len > 0 && isspace((unsigned char)*src)) {
        src++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)src[len - 1]))
        len--;
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

int io_iequal(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

int io_istarts(const char *s, const char *prefix) {
    for (; *prefix; s++, prefix++)
        if (!*s || tolower((unsigned char)*s) != tolower((unsigned char)*prefix)) return 0;
    return 1;
}

int io_parse_real(const char *text, double *value) {
    char buf[128];
    io_trim_copy(buf, sizeof buf, text, strlen(text));
    if (!buf[0] || strlen(text) >= sizeof buf) return IO_NOT_A_NUMBER;
    /* Fortran writes 1.0d-3; C wants 1.0e-3.  Only an exponent letter after a digit or '.'. */
    for (char *p = buf + 1; *p; p++)
        if ((*p == 'd' || *p == 'D') && (isdigit((unsigned char)p[-1]) || p[-1] == '.')) *p = 'e';
    /* strtod would accept "nan", "inf" and hex; a parameter or coordinate never is one. */
    for (const char *p = buf; *p; p++)
        if (!(isdigit((unsigned char)*p) || strchr("+-.eE", *p))) {
            if (io_iequal(buf, "nan") || io_iequal(buf, "inf") || io_iequal(buf, "-inf") ||
                io_iequal(buf, "+inf") || io_iequal(buf, "infinity") || io_iequal(buf, "-nan"))
                return IO_NOT_FINITE;
            return IO_NOT_A_NUMBER;
        }
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0') return IO_NOT_A_NUMBER;
    if (!isfinite(v)) return IO_NOT_FINITE;
    *value = v;
    return IO_PARSE_OK;
}

int io_parse_int(const char *text, long *value) {
    double v;
    if (io_parse_real(text, &v) != 0) return -1;
    if (v != floor(v) || fabs(v) > 2.0e9) return -1;
    *value = (long)v;
    return 0;
}

void io_columns(const char *line, size_t len, int first, int last, char *dst, size_t size) {
    size_t start = (size_t)(first - 1);
    if (start >= len) {
        if (size) dst[0] = '\0';
        return;
    }
    size_t stop = (size_t)last < len ? (size_t)last : len;
    io_trim_copy(dst, size, line + start, stop - start);
}

int io_split_blanks(char *line, char **tokens, int max) {
    int n = 0;
    char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p) break;
        if (n == max) return max + 1;
        tokens[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

void io_directory_of(const char *path, char *dir, size_t size) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        if (size) dir[0] = '\0';
        return;
    }
    size_t len = (size_t)(slash - path) + 1;
    if (len >= size) len = size - 1;
    memcpy(dir, path, len);
    dir[len] = '\0';
}

int io_file_readable(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    fclose(fp);
    return 1;
}

long long io_bytes_left(FILE *fp) {
    struct stat st;
    const long at = ftell(fp);
    if (at < 0 || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (long long)st.st_size - at;
}
