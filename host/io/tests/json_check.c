/* Validating JSON parser for the tests (see json_check.h). */
#include "json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *text;
    size_t pos;
    char *error;
    size_t error_size;
    int failed;
    int depth;
} parser;

static void fail(parser *p, const char *what) {
    if (!p->failed) snprintf(p->error, p->error_size, "offset %zu: %s", p->pos, what);
    p->failed = 1;
}

static void skip_ws(parser *p) {
    while (strchr(" \t\r\n", p->text[p->pos]) && p->text[p->pos])
        p->pos++;
}

static json_value *new_value(json_type type) {
    json_value *v = calloc(1, sizeof *v);
    if (v) v->type = type;
    return v;
}

static int append(json_value *v, char *key, json_value *item) {
    char **keys = v->keys;
    if (v->type == JSON_OBJECT) {
        keys = realloc(v->keys, (v->count + 1) * sizeof *keys);
        if (!keys) return -1;
        v->keys = keys;
        keys[v->count] = key;
    }
    json_value **items = realloc(v->items, (v->count + 1) * sizeof *items);
    if (!items) return -1;
    v->items = items;
    items[v->count++] = item;
    return 0;
}

static void put_utf8(char *out, size_t *n, unsigned long cp) {
    if (cp < 0x80)
        out[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int hex4(parser *p, unsigned long *cp) {
    *cp = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->text[p->pos++];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        *cp = *cp * 16 + (unsigned long)d;
    }
    return 0;
}

static char *parse_string(parser *p) {
    if (p->text[p->pos] != '"') {
        fail(p, "expected a string");
        return NULL;
    }
    p->pos++;
    /* Escapes only shrink the text, so the rest of the input bounds the result. */
    char *out = malloc(strlen(p->text + p->pos) + 1);
    size_t n = 0;
    if (!out) return NULL;
    for (;;) {
        unsigned char c = (unsigned char)p->text[p->pos];
        if (c == '\0') {
            fail(p, "unterminated string");
            break;
        }
        if (c < 0x20) {
            fail(p, "control character in a string");
            break;
        }
        p->pos++;
        if (c == '"') {
            out[n] = '\0';
            return out;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            continue;
        }
        char e = p->text[p->pos++];
        unsigned long cp;
        switch (e) {
        case '"':
            out[n++] = '"';
            break;
        case '\\':
            out[n++] = '\\';
            break;
        case '/':
            out[n++] = '/';
            break;
        case 'b':
            out[n++] = '\b';
            break;
        case 'f':
            out[n++] = '\f';
            break;
        case 'n':
            out[n++] = '\n';
            break;
        case 'r':
            out[n++] = '\r';
            break;
        case 't':
            out[n++] = '\t';
            break;
        case 'u':
            if (hex4(p, &cp) != 0) {
                fail(p, "bad \\u escape");
                free(out);
                return NULL;
            }
            put_utf8(out, &n, cp);
            break;
        default:
            fail(p, "bad escape");
            free(out);
            return NULL;
        }
    }
    free(out);
    return NULL;
}

static int parse_number(parser *p, double *value) {
    const char *s = p->text + p->pos;
    size_t i = 0;
    if (s[i] == '-') i++;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return -1;
    if (s[i] == '.') {
        i++;
        if (!(s[i] >= '0' && s[i] <= '9')) return -1;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-') i++;
        if (!(s[i] >= '0' && s[i] <= '9')) return -1;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    *value = strtod(s, NULL);
    p->pos += i;
    return 0;
}

static json_value *parse_value(parser *p) {
    skip_ws(p);
    if (++p->depth > 64) {
        fail(p, "nested too deeply");
        return NULL;
    }
    const char *s = p->text + p->pos;
    json_value *v = NULL;
    if (*s == '{' || *s == '[') {
        int object = *s == '{';
        char close = object ? '}' : ']';
        v = new_value(object ? JSON_OBJECT : JSON_ARRAY);
        p->pos++;
        skip_ws(p);
        if (p->text[p->pos] == close)
            p->pos++;
        else
            for (;;) {
                char *key = NULL;
                skip_ws(p);
                if (object) {
                    key = parse_string(p);
                    if (!key) break;
                    skip_ws(p);
                    if (p->text[p->pos++] != ':') {
                        fail(p, "expected ':'");
                        free(key);
                        break;
                    }
                }
                json_value *item = parse_value(p);
                if (!item || append(v, key, item) != 0) {
                    free(key);
                    json_free(item);
                    fail(p, "bad member");
                    break;
                }
                skip_ws(p);
                char c = p->text[p->pos++];
                if (c == close) break;
                if (c != ',') {
                    fail(p, "expected ',' or a closing bracket");
                    break;
                }
            }
    } else if (*s == '"') {
        v = new_value(JSON_STRING);
        v->string = parse_string(p);
    } else if (!strncmp(s, "true", 4) || !strncmp(s, "false", 5)) {
        v = new_value(JSON_BOOL);
        v->number = *s == 't';
        p->pos += *s == 't' ? 4 : 5;
    } else if (!strncmp(s, "null", 4)) {
        v = new_value(JSON_NULL);
        p->pos += 4;
    } else {
        v = new_value(JSON_NUMBER);
        if (parse_number(p, &v->number) != 0) fail(p, "not a JSON value");
    }
    p->depth--;
    if (p->failed) {
        json_free(v);
        return NULL;
    }
    return v;
}

json_value *json_parse(const char *text, char *error, size_t error_size) {
    parser p = {text, 0, error, error_size, 0, 0};
    json_value *v = parse_value(&p);
    if (v) {
        skip_ws(&p);
        if (p.text[p.pos] != '\0') {
            fail(&p, "text after the top-level value");
            json_free(v);
            v = NULL;
        }
    }
    return v;
}

void json_free(json_value *v) {
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->keys) free(v->keys[i]);
        json_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->string);
    free(v);
}

const json_value *json_get(const json_value *root, const char *path) {
    const json_value *v = root;
    char key[128];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key || v->type != JSON_OBJECT) return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        const json_value *next = NULL;
        for (size_t i = 0; i < v->count; i++)
            if (strcmp(v->keys[i], key) == 0) next = v->items[i];
        v = next;
        path += n;
        if (*path == '.') path++;
    }
    return v;
}
