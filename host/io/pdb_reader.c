/* PDB files: DelPhi's own "DELPHI PDB FILE" formats, and plain PDB with radius/charge tables. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_text.h"
#include "molecule_internal.h"

/* ---- DelPhi PDB file --------------------------------------------------------------------------
 * Line 1 contains "DELPHI" and "PDB" (DelPhi's test; its writers say "DELPHI PDB FILE" or
 * "DELPHI PDB"), line 2 gives the format as the number after its first '=' ("FORMAT = n",
 * "FORMAT NUMBER=n").  Coordinates in columns 31-54, then
 *   format 4: charge 55-62, radius 63-70
 *   format 1: radius 55-60, charge 61-67
 *   format 2: radius 55-66, charge 67-78 (two 12-column fields; radius first, as in format 1) */

typedef struct delphi_columns {
    int radius_first, radius_last, charge_first, charge_last;
} delphi_columns;

static int first_lines(const char *path, char *line1, char *line2, size_t size, io_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open PDB file: %s",
                       strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    line1[0] = line2[0] = '\0';
    if (io_read_line(fp, &buf, &cap) >= 0) snprintf(line1, size, "%s", buf);
    if (io_read_line(fp, &buf, &cap) >= 0) snprintf(line2, size, "%s", buf);
    free(buf);
    fclose(fp);
    return IO_OK;
}

static int contains_ci(const char *text, const char *word) {
    for (; *text; text++)
        if (io_istarts(text, word)) return 1;
    return 0;
}

/* DelPhi's own test of a first line: it names DELPHI and PDB. */
static int delphi_first_line(const char *line1) {
    return contains_ci(line1, "DELPHI") && contains_ci(line1, "PDB");
}

int pdb_is_delphi_format(const char *path, int *is_delphi, io_error *err) {
    char line1[256], line2[256];
    int rc = first_lines(path, line1, line2, sizeof line1, err);
    if (rc) return rc;
    *is_delphi = delphi_first_line(line1);
    return IO_OK;
}

static int delphi_format(const char *path, delphi_columns *cols, io_error *err) {
    char line1[256], line2[256];
    int rc = first_lines(path, line1, line2, sizeof line1, err);
    if (rc) return rc;
    if (!delphi_first_line(line1))
        return io_fail(err, IO_ERR_INPUT, path, 1, NULL,
                       "not a DelPhi PDB file (line 1 does not contain 'DELPHI PDB')");
    char packed[256];
    size_t n = 0;
    for (const char *p = line2; *p && n + 1 < sizeof packed; p++)
        if (!isspace((unsigned char)*p)) packed[n++] = (char)toupper((unsigned char)*p);
    packed[n] = '\0';
    /* "FORMAT = n" or "FORMAT NUMBER=n", possibly after a record name such as REMARK (line 1 may
       have one too): the number after the first '=', as DelPhi reads it. */
    const char *at = strchr(packed, '=');
    long format;
    if (!at || !strstr(packed, "FORMAT") || strstr(packed, "FORMAT") > at ||
        io_parse_int(at + 1, &format) != 0)
        return io_fail(err, IO_ERR_INPUT, path, 2, "FORMAT",
                       "expected 'FORMAT = n' (or 'FORMAT NUMBER=n') on line 2 of a DelPhi PDB "
                       "file, found '%s'",
                       line2);
    switch (format) {
    case 4:
        *cols = (delphi_columns){63, 70, 55, 62};
        break;
    case 1:
        *cols = (delphi_columns){55, 60, 61, 67};
        break;
    case 2:
        *cols = (delphi_columns){55, 66, 67, 78};
        break;
    default:
        return io_fail(err, IO_ERR_UNSUPPORTED, path, 2, "FORMAT",
                       "DelPhi PDB format %ld is not supported (formats 1, 2 and 4 are)", format);
    }
    return IO_OK;
}

static int coordinates(const char *path, const char *line, size_t len, int lineno, atom *a,
                       io_error *err) {
    static const char *axis[3] = {"x", "y", "z"};
    double xyz[3];
    int bad = 0;
    int rc = pdb_fixed_coordinates(line, len, xyz, &bad);
    if (rc != 0) {
        char text[16];
        io_columns(line, len, 31 + 8 * bad, 38 + 8 * bad, text, sizeof text);
        return io_fail(err, IO_ERR_INPUT, path, lineno, axis[bad],
                       "malformed ATOM line: columns %d-%d '%s' %s", 31 + 8 * bad, 38 + 8 * bad,
                       text,
                       !text[0]              ? "are blank (line too short?)"
                       : rc == IO_NOT_FINITE ? "are NaN or infinite"
                                             : "are not a number");
    }
    pdb_fixed_identifiers(line, len, a);
    a->x = xyz[0];
    a->y = xyz[1];
    a->z = xyz[2];
    return IO_OK;
}

static int column_value(const char *path, const char *line, size_t len, int lineno,
                        const char *what, int first, int last, double *v, io_error *err) {
    int rc = pdb_fixed_real(line, len, first, last, v);
    if (rc == 0) return IO_OK;
    char text[32];
    io_columns(line, len, first, last, text, sizeof text);
    return io_fail(err, IO_ERR_INPUT, path, lineno, what, "columns %d-%d '%s' %s", first, last,
                   text,
                   !text[0]              ? "are blank"
                   : rc == IO_NOT_FINITE ? "are NaN or infinite"
                                         : "are not a number");
}

static int delphi_line(void *ctx, const char *path, const char *line, size_t len, int lineno,
                       atom *a, io_error *err) {
    const delphi_columns *c = ctx;
    int rc = coordinates(path, line, len, lineno, a, err);
    if (rc) return rc;
    rc = column_value(path, line, len, lineno, "radius", c->radius_first, c->radius_last,
                      &a->radius, err);
    if (rc) return rc;
    return column_value(path, line, len, lineno, "charge", c->charge_first, c->charge_last,
                        &a->charge, err);
}

int molecule_read_delphi_pdb(const char *path, molecule *mol, io_notes *notes, io_error *err) {
    memset(mol, 0, sizeof *mol);
    delphi_columns cols;
    int rc = delphi_format(path, &cols, err);
    if (rc) return rc;
    return read_atom_lines(path, "DelPhi PDB file", 2, delphi_line, &cols, 1, mol, notes, err);
}

/* ---- Plain PDB with radius and charge tables ----------------------------------------------- */

typedef struct pdb_tables {
    const atom_table *siz, *crg;
    size_t uncharged;
    int first_uncharged_line;
} pdb_tables;

static int pdb_line(void *ctx, const char *path, const char *line, size_t len, int lineno, atom *a,
                    io_error *err) {
    pdb_tables *t = ctx;
    int rc = coordinates(path, line, len, lineno, a, err);
    if (rc) return rc;
    const table_entry *r = radius_table_find(t->siz, a);
    if (!r) {
        char chain[16] = "";
        if (a->chain != ' ') snprintf(chain, sizeof chain, " chain %c", a->chain);
        return io_fail(err, IO_ERR_INPUT, path, lineno, "radius",
                       "no radius for atom '%s' of residue '%s' %d%s in the radius file %s",
                       a->name, a->residue, a->residue_number, chain, t->siz->source);
    }
    a->radius = r->value;
    const table_entry *q = charge_table_find(t->crg, a);
    if (q)
        a->charge = q->value;
    else {
        a->charge = 0.0; /* as DelPhi: an atom without a charge entry is neutral */
        if (t->uncharged++ == 0) t->first_uncharged_line = lineno;
    }
    return IO_OK;
}

/* Both tables, or neither (an error in either). */
static int read_tables(const char *siz_path, const char *crg_path, atom_table *siz, atom_table *crg,
                       io_notes *notes, io_error *err) {
    int rc = radius_table_read(siz_path, siz, notes, err);
    if (rc) return rc;
    rc = charge_table_read(crg_path, crg, notes, err);
    if (rc) atom_table_free(siz);
    return rc;
}

int molecule_sites_from_tables(molecule *sites, const char *siz_path, const char *crg_path,
                               io_notes *notes, io_error *err) {
    if (!sites->positions_only) return IO_OK;
    atom_table siz, crg;
    int rc = read_tables(siz_path, crg_path, &siz, &crg, notes, err);
    if (rc) return rc;
    size_t charged = 0, sized = 0;
    for (size_t i = 0; i < sites->count; ++i) {
        atom *a = &sites->atoms[i];
        const table_entry *q = charge_table_find(&crg, a), *r = radius_table_find(&siz, a);
        a->charge = q ? q->value : 0.0;
        a->radius = r ? r->value : 0.0;
        charged += q != NULL, sized += r != NULL;
    }
    io_note(notes, IO_NOTE_INFO,
            "%s: %zu of %zu sites took a charge from %s and %zu a radius from %s (as DelPhi "
            "gives them to the sites of a file without charges)",
            sites->source, charged, sites->count, crg_path, sized, siz_path);
    atom_table_free(&siz);
    atom_table_free(&crg);
    return IO_OK;
}

int molecule_read_pdb(const char *pdb_path, const char *siz_path, const char *crg_path,
                      molecule *mol, io_notes *notes, io_error *err) {
    memset(mol, 0, sizeof *mol);
    atom_table siz, crg;
    int rc = read_tables(siz_path, crg_path, &siz, &crg, notes, err);
    if (rc) return rc;
    pdb_tables t = {&siz, &crg, 0, 0};
    rc = read_atom_lines(pdb_path, "PDB file", 0, pdb_line, &t, 0, mol, notes, err);
    /* Atoms without a charge entry are common (DelPhi gives them 0): a note; every atom without
       one, a likely wrong charge file: a warning. */
    if (rc == IO_OK && t.uncharged > 0)
        io_note(notes, t.uncharged == mol->count ? IO_NOTE_WARNING : IO_NOTE_INFO,
                "%s: %zu of %zu atoms have no entry in the charge file %s and get charge 0 "
                "(first at line %d)",
                pdb_path, t.uncharged, mol->count, crg_path, t.first_uncharged_line);
    atom_table_free(&siz);
    atom_table_free(&crg);
    return rc;
}
