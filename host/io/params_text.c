/* Small text helpers of the parameter-file readers: lower-casing and the "file:line" of the
 * statement being read.  Used by params_file.c, params_statements.c and params_functions.c. */
#include <ctype.h>
#include <stdio.h>

#include "params_internal.h"

void params_lower(char *dst, size_t size, const char *src) {
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    if (size) dst[i] = '\0';
}

const char *params_where(param_context *ctx) {
    if (ctx->line > 0)
        snprintf(ctx->where, sizeof ctx->where, "%s:%d", ctx->origin, ctx->line);
    else
        snprintf(ctx->where, sizeof ctx->where, "%s", ctx->origin);
    return ctx->where;
}
