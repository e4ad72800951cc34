/* A small validating JSON parser for the tests (RFC 8259 grammar: objects, arrays, strings
 * with escapes, numbers, true/false/null; nothing after the top value).  It builds a tree that
 * the tests query by dotted path ("grid.size"). */
#ifndef HOST_IO_JSON_CHECK_H
#define HOST_IO_JSON_CHECK_H

#include <stddef.h>

typedef enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value {
    json_type type;
    double number;             /* JSON_NUMBER; JSON_BOOL: 0/1 */
    char *string;              /* JSON_STRING (UTF-8, escapes decoded) */
    size_t count;              /* JSON_ARRAY / JSON_OBJECT members */
    char **keys;               /* JSON_OBJECT */
    struct json_value **items; /* JSON_ARRAY / JSON_OBJECT */
} json_value;

/** Parse text; NULL on a syntax error (message with the offset in error). */
json_value *json_parse(const char *text, char *error, size_t error_size);
void json_free(json_value *v);

/** Member by dotted path of object keys, or NULL. */
const json_value *json_get(const json_value *root, const char *path);

#endif /* HOST_IO_JSON_CHECK_H */
