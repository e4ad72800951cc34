/* DelPhi parameter file, statement syntax: reading lines, comments, splitting into statements.
 *
 * Rules (DelPhi's syntax): one statement per line or several separated by commas; case does not
 * matter (file names keep theirs); blanks are ignored; '!' starts a comment that runs to the end
 * of the line.  A statement is name=value (an '=' outside parentheses) or function(args). */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_settings.h"
#include "io_text.h"
#include "params_internal.h"

/* Remove the comment and the blanks outside quotes, in place.  Returns 0, or -1 when a quote
 * is not closed.  *dropped_statement is set when the comment itself holds a second '!' followed
 * by something that looks like a statement (DelPhi's "!comment! statement" form). */
static int clean_line(char *line, int *dropped_statement) {
    char quote = 0;
    size_t out = 0;
    *dropped_statement = 0;
    for (size_t i = 0; line[i]; i++) {
        char c = line[i];
        if (quote) {
            line[out++] = c;
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '!') {
            const char *second = strchr(line + i + 1, '!');
            if (second && (strchr(second, '=') || strchr(second, '('))) *dropped_statement = 1;
            break;
        }
        if (c == '"' || c == '\'') quote = c;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') continue;
        line[out++] = c;
    }
    line[out] = '\0';
    return quote ? -1 : 0;
}

int params_apply_statement(param_context *ctx, const char *statement) {
    /* Find an '=' outside parentheses and quotes; check the brackets balance. */
    int depth = 0;
    char quote = 0;
    const char *equals = NULL;
    const char *open = NULL;
    for (const char *p = statement; *p; p++) {
        if (quote) {
            if (*p == quote) quote = 0;
            continue;
        }
        if (*p == '"' || *p == '\'')
            quote = *p;
        else if (*p == '(') {
            if (depth == 0 && !open) open = p;
            depth++;
        } else if (*p == ')') {
            if (--depth < 0) break;
        } else if (*p == '=' && depth == 0 && !equals)
            equals = p;
    }
    if (depth != 0)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, NULL,
                       "unbalanced parentheses in '%s'", statement);

    if (equals && (!open || equals < open)) {
        char name[64];
        size_t len = (size_t)(equals - statement);
        if (len == 0 || len >= sizeof name)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, NULL,
                           "malformed statement '%s' (expected name=value)", statement);
        memcpy(name, statement, len);
        name[len] = '\0';
        char lower[64];
        params_lower(lower, sizeof lower, name);
        const char *value = equals + 1;
        if (!*value)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, lower,
                           "missing value after '='");
        return params_apply_assignment(ctx, lower, value);
    }
    if (open && statement[strlen(statement) - 1] == ')') {
        char name[64];
        size_t len = (size_t)(open - statement);
        if (len == 0 || len >= sizeof name)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, NULL,
                           "malformed statement '%s'", statement);
        memcpy(name, statement, len);
        name[len] = '\0';
        char lower[64];
        params_lower(lower, sizeof lower, name);
        size_t args_len = strlen(open + 1) - 1;
        char *args = malloc(args_len + 1);
        if (!args)
            return io_fail(ctx->err, IO_ERR_MEMORY, ctx->origin, ctx->line, NULL, "out of memory");
        memcpy(args, open + 1, args_len);
        args[args_len] = '\0';
        int rc = params_apply_function(ctx, lower, args);
        free(args);
        return rc;
    }
    char lower[64];
    params_lower(lower, sizeof lower, statement);
    if (params_is_assignment_name(lower))
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, lower, "missing '=value'");
    return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, NULL,
                   "unknown or malformed statement '%s' (expected name=value or function(...))",
                   statement);
}

/* Apply every comma-separated statement of one line. */
static int parse_line(param_context *ctx, char *line) {
    int dropped = 0;
    if (clean_line(line, &dropped) != 0)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, NULL,
                       "a quoted name is not closed");
    if (dropped)
        io_note(ctx->notes, IO_NOTE_WARNING,
                "%s: text after a second '!' is part of the comment here (comments run to "
                "the end of the line); DelPhi may have read it as a statement",
                params_where(ctx));

    char *start = line;
    int depth = 0;
    char quote = 0;
    for (char *p = line;; p++) {
        char c = *p;
        if (quote && c) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '"' || c == '\'')
            quote = c;
        else if (c == '(')
            depth++;
        else if (c == ')')
            depth--;
        if ((c == ',' && depth == 0) || c == '\0') {
            *p = '\0';
            if (*start) {
                int rc = params_apply_statement(ctx, start);
                if (rc != IO_OK) return rc;
            }
            if (c == '\0') break;
            start = p + 1;
        }
    }
    return IO_OK;
}

int settings_parse_text(run_settings *s, const char *text, const char *origin, int first_line,
                        io_notes *notes, io_error *err) {
    param_context ctx = {s, origin, first_line, 0, notes, err, ""};
    if (origin && origin[0] == '-' && origin[1] == '-') ctx.from_option = 1;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) return io_fail(err, IO_ERR_MEMORY, origin, 0, NULL, "out of memory");
    memcpy(copy, text, len + 1);

    int rc = IO_OK;
    char *line = copy;
    while (line) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        rc = parse_line(&ctx, line);
        if (rc != IO_OK) break;
        if (ctx.line > 0) ctx.line++;
        line = next;
    }
    free(copy);
    return rc;
}

int settings_parse_file(run_settings *s, const char *path, io_notes *notes, io_error *err) {
    if (strlen(path) >= sizeof s->param_file)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                       "the parameter file's name is %zu characters long (at most %zu)",
                       strlen(path), sizeof s->param_file - 1);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open parameter file: %s",
                       strerror(errno));
    snprintf(s->param_file, sizeof s->param_file, "%s", path);

    param_context ctx = {s, path, 0, 0, notes, err, ""};
    char *buf = NULL;
    size_t cap = 0;
    long len;
    int rc = IO_OK;
    int first_text_seen = 0;
    while ((len = io_read_line(fp, &buf, &cap)) >= 0) {
        ctx.line++;
        if (strlen(buf) != (size_t)len) {
            rc = io_fail(err, IO_ERR_INPUT, path, ctx.line, NULL,
                         "contains a NUL byte: not a text parameter file");
            break;
        }
        if (!first_text_seen) {
            /* DelPhi reads the old positional ("type 1") format when the file starts with a
             * digit.  Only the statement format is implemented. */
            if (isdigit((unsigned char)buf[0])) {
                rc = io_fail(err, IO_ERR_UNSUPPORTED, path, ctx.line, NULL,
                             "this looks like DelPhi's old positional (\"type 1\") parameter "
                             "format (the file starts with a digit), which is not supported; "
                             "write the parameters as statements (e.g. gsize=65, scale=2.0)");
                break;
            }
            first_text_seen = 1;
        }
        rc = parse_line(&ctx, buf);
        if (rc != IO_OK) break;
    }
    if (rc == IO_OK && ferror(fp))
        rc = io_fail(err, IO_ERR_FILE, path, ctx.line, NULL, "read error: %s", strerror(errno));
    free(buf);
    fclose(fp);
    return rc;
}
