/* Helpers for the program tests: the common checks (dg_check.h), and running the pipeline in
 * process with an argument list. */
#ifndef HOST_APP_TEST_H
#define HOST_APP_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../delphi_gpu/tests/dg_check.h"
#include "pipeline.h"

/* Run delphi-gpu with the NULL-terminated arguments; the log goes to stdout when verbose. */
static inline int run_program(pipeline *p, int verbose, ...) {
    char *argv[64];
    int argc = 0;
    argv[argc++] = "delphi-gpu";
    va_list ap;
    va_start(ap, verbose);
    for (char *a; argc < 63 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return pipeline_execute(p, argc, argv, verbose ? stdout : NULL);
}

static inline int file_exists(const char *path) {
    return access(path, F_OK) == 0;
}

/* The numbers of a site (frc) line after its six labels (record, serial, atom, residue, chain,
 * residue number): x y z charge potential and the asked-for columns, at most max of them into v.
 * Returns how many, or -1 for a comment line. */
static inline int frc_numbers(const char *line, double *v, int max) {
    if (line[0] == '#') return -1;
    const char *p = line;
    for (int label = 0; label < 6; ++label) {
        while (*p == ' ' || *p == '\t')
            ++p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            ++p;
    }
    int n = 0;
    for (char *end; n < max; ++n, p = end) {
        v[n] = strtod(p, &end);
        if (end == p) break;
    }
    return n;
}

/* A whole file as a NUL-terminated string (malloc'ed), or NULL. */
static inline char *read_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *text = NULL;
    long size = -1;
    if (fseek(fp, 0, SEEK_END) == 0 && (size = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0)
        text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, fp) == (size_t)size)
        text[size] = '\0';
    else
        free(text), text = NULL;
    fclose(fp);
    return text;
}

#endif /* HOST_APP_TEST_H */
