/* DelPhi radius (.siz) and charge (.crg) tables: reading and matching.
 *
 * Format (fixed columns after optional '!' comment lines and one header line):
 *   siz, header "atom__res_radius_":        atom 1-6, residue 7-9, radius 10-17
 *   siz, header "atom__resnumbc_radius_":   atom 1-6, residue 7-9, number 10-13, chain 14,
 *                                           radius 15-22
 *   crg (header read, not interpreted):     atom 1-6, residue 7-9, number 10-13, chain 14,
 *                                           charge 15-22
 * Entries are matched by DelPhi's search orders (radius_table_find, charge_table_find); chains
 * case-blind.  Tabs are refused (columns would shift). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_text.h"
#include "molecule_internal.h"

void atom_table_free(atom_table *table) {
    if (!table) return;
    free(table->entries);
    table->entries = NULL;
    table->count = 0;
}

static int push_entry(atom_table *t, const table_entry *e, size_t *cap, io_error *err) {
    if (t->count == *cap) {
        size_t grown = *cap ? *cap * 2 : 128;
        table_entry *p = realloc(t->entries, grown * sizeof *p);
        if (!p) return io_fail(err, IO_ERR_MEMORY, t->source, e->line, NULL, "out of memory");
        t->entries = p;
        *cap = grown;
    }
    t->entries[t->count++] = *e;
    return IO_OK;
}

static int same_key(const table_entry *a, const table_entry *b) {
    return io_iequal(a->atom, b->atom) && io_iequal(a->residue, b->residue) &&
           a->resnum == b->resnum &&
           toupper((unsigned char)a->chain) == toupper((unsigned char)b->chain);
}

/* Parse one entry line.  long_form: number and chain columns present. */
static int parse_entry(const atom_table *t, const char *line, size_t len, int lineno, int long_form,
                       int is_charge, table_entry *e, io_error *err) {
    const char *what = is_charge ? "charge" : "radius";
    char buf[32];
    memset(e, 0, sizeof *e);
    e->line = lineno;
    io_columns(line, len, 1, 6, e->atom, sizeof e->atom);
    if (!e->atom[0])
        return io_fail(err, IO_ERR_INPUT, t->source, lineno, "atom",
                       "atom name (columns 1-6) is blank");
    io_columns(line, len, 7, 9, e->residue, sizeof e->residue);
    e->resnum = TABLE_ANY_RESNUM;
    e->chain = ' ';
    int value_first = 10;
    if (long_form) {
        io_columns(line, len, 10, 13, buf, sizeof buf);
        long v = 0;
        if (buf[0] && io_parse_int(buf, &v) != 0)
            return io_fail(err, IO_ERR_INPUT, t->source, lineno, "residue number",
                           "columns 10-13 '%s' are not an integer", buf);
        if (buf[0]) e->resnum = (int)v;
        if (len >= 14 && line[13] != ' ') e->chain = line[13];
        value_first = 15;
    }
    io_columns(line, len, value_first, value_first + 7, buf, sizeof buf);
    int rc = io_parse_real(buf, &e->value);
    if (rc != 0)
        return io_fail(err, IO_ERR_INPUT, t->source, lineno, what, "columns %d-%d '%s' %s",
                       value_first, value_first + 7, buf,
                       !buf[0]               ? "are blank"
                       : rc == IO_NOT_FINITE ? "are not finite"
                                             : "are not a number");
    if (is_charge && (e->value < -IO_MAX_CHARGE || e->value > IO_MAX_CHARGE))
        return io_fail(err, IO_ERR_INPUT, t->source, lineno, what,
                       "charge %g out of range (|q| <= 10 e)", e->value);
    if (!is_charge && (e->value < 0.0 || e->value > IO_MAX_RADIUS))
        return io_fail(err, IO_ERR_INPUT, t->source, lineno, what,
                       "radius %g out of range (0 to 10 A)", e->value);
    return IO_OK;
}

static int read_table(const char *path, int is_charge, atom_table *t, io_notes *notes,
                      io_error *err) {
    memset(t, 0, sizeof *t);
    snprintf(t->source, sizeof t->source, "%s", path);
    const char *kind = is_charge ? "charge" : "radius";
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open %s file: %s", kind,
                       strerror(errno));
    char *line = NULL;
    size_t cap = 0, entry_cap = 0;
    long len;
    int lineno = 0, rc = IO_OK, header_seen = 0, long_form = is_charge;
    while ((len = io_read_line(fp, &line, &cap)) >= 0) {
        lineno++;
        if (line[0] == '!') continue;
        if (strspn(line, " \t") == (size_t)len) continue;
        if (strlen(line) != (size_t)len || strchr(line, '\t')) {
            rc = io_fail(err, IO_ERR_INPUT, path, lineno, NULL,
                         "%s: fixed-column %s files must not contain tabs or NUL bytes",
                         strchr(line, '\t') ? "tab character" : "NUL byte", kind);
            break;
        }
        if (!header_seen) {
            header_seen = 1;
            if (!is_charge) {
                if (io_istarts(line, "atom__resnumbc"))
                    long_form = 1;
                else if (io_istarts(line, "atom__res_radius"))
                    long_form = 0;
                else {
                    rc = io_fail(err, IO_ERR_INPUT, path, lineno, "header",
                                 "expected the header line 'atom__res_radius_' (or "
                                 "'atom__resnumbc_radius_') before the radius entries");
                    break;
                }
            } else if (!io_istarts(line, "atom")) {
                io_note(notes, IO_NOTE_WARNING,
                        "%s:%d: taken as the header line of the charge file (DelPhi skips it), "
                        "but it does not start with 'atom'",
                        path, lineno);
            }
            continue;
        }
        table_entry e;
        rc = parse_entry(t, line, (size_t)len, lineno, long_form, is_charge, &e, err);
        if (rc) break;
        for (size_t i = 0; i < t->count; i++)
            if (same_key(&t->entries[i], &e)) {
                io_note(notes, IO_NOTE_WARNING,
                        "%s:%d: duplicate %s entry for %s %s; the first one (line %d) is used",
                        path, lineno, kind, e.atom, e.residue, t->entries[i].line);
                break;
            }
        rc = push_entry(t, &e, &entry_cap, err);
        if (rc) break;
    }
    if (rc == IO_OK && ferror(fp))
        rc = io_fail(err, IO_ERR_FILE, path, lineno, NULL, "read error: %s", strerror(errno));
    if (rc == IO_OK && t->count == 0) {
        if (is_charge)
            io_note(notes, IO_NOTE_WARNING,
                    "%s: the charge file has no entries; every atom gets "
                    "charge 0",
                    path);
        else
            rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "the radius file has no entries");
    }
    free(line);
    fclose(fp);
    if (rc != IO_OK) atom_table_free(t);
    return rc;
}

int radius_table_read(const char *path, atom_table *table, io_notes *notes, io_error *err) {
    return read_table(path, 0, table, notes, err);
}

int charge_table_read(const char *path, atom_table *table, io_notes *notes, io_error *err) {
    return read_table(path, 1, table, notes, err);
}

/* The first entry whose fields are exactly these (names and chain case-blind): a blank
 * residue (""), number (TABLE_ANY_RESNUM) or chain (' ') asks for an entry that leaves that
 * field blank. */
static const table_entry *find_exact(const atom_table *table, const char *name, const char *residue,
                                     int resnum, char chain) {
    const char want_chain = (char)toupper((unsigned char)chain);
    for (size_t i = 0; i < table->count; i++) {
        const table_entry *e = &table->entries[i];
        if (!io_iequal(e->atom, name) || !io_iequal(e->residue, residue)) continue;
        if (e->resnum != resnum) continue;
        if ((char)toupper((unsigned char)e->chain) != want_chain) continue;
        return e;
    }
    return NULL;
}

const table_entry *radius_table_find(const atom_table *table, const atom *a) {
    const table_entry *e;
    if ((e = find_exact(table, a->name, a->residue, a->residue_number, a->chain))) return e;
    if ((e = find_exact(table, a->name, a->residue, a->residue_number, ' '))) return e;
    if ((e = find_exact(table, a->name, a->residue, TABLE_ANY_RESNUM, ' '))) return e;
    if ((e = find_exact(table, a->name, "", TABLE_ANY_RESNUM, ' '))) return e;
    const char element[2] = {a->name[0], '\0'}; /* CA takes C's entry */
    return element[0] ? find_exact(table, element, "", TABLE_ANY_RESNUM, ' ') : NULL;
}

const table_entry *charge_table_find(const atom_table *table, const atom *a) {
    const table_entry *e;
    /* a chain's wildcard, "*" with residue and number blank, before anything else */
    if ((e = find_exact(table, "*", "", TABLE_ANY_RESNUM, a->chain))) return e;
    for (int level = 0; level < 8; ++level) {
        const char *residue = level < 4 ? a->residue : "";
        const int resnum = level % 4 < 2 ? a->residue_number : TABLE_ANY_RESNUM;
        const char chain = level % 2 == 0 ? a->chain : ' ';
        if ((e = find_exact(table, a->name, residue, resnum, chain))) return e;
    }
    return NULL;
}
