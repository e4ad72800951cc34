/* Molecule storage, range checks, and the line loop every molecule reader uses. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_settings.h"
#include "io_text.h"
#include "molecule_internal.h"

void molecule_free(molecule *mol) {
    if (!mol) return;
    free(mol->atoms);
    mol->atoms = NULL;
    mol->count = 0;
    mol->positions_only = 0;
}

int molecule_push(molecule *mol, const atom *a, io_error *err) {
    /* Capacity is implied by count (the readers build molecules from empty): 64 up to 64
     * atoms, then the next power of two, so the array is full when count is 0 or a power of two
     * of at least 64. */
    size_t count = mol->count;
    int full = count == 0 || (count >= 64 && (count & (count - 1)) == 0);
    if (full) {
        size_t cap = count == 0 ? 64 : count * 2;
        atom *p = realloc(mol->atoms, cap * sizeof *p);
        if (!p)
            return io_fail(err, IO_ERR_MEMORY, mol->source, a->source_line, NULL,
                           "out of memory after %zu atoms", count);
        mol->atoms = p;
    }
    mol->atoms[mol->count++] = *a;
    return IO_OK;
}

int molecule_reserve(molecule *mol, size_t count) {
    /* The capacity molecule_push implies for count atoms (at least 64, else a power of two). */
    size_t cap = 64;
    while (cap < count)
        cap *= 2;
    atom *p = realloc(mol->atoms, cap * sizeof *p);
    if (!p) return IO_ERR_MEMORY;
    mol->atoms = p;
    return IO_OK;
}

double molecule_net_charge(const molecule *mol) {
    double q = 0.0;
    for (size_t i = 0; i < mol->count; i++)
        q += mol->atoms[i].charge;
    return q;
}

static int atom_fail(const molecule *mol, const atom *a, const char *field, const char *what,
                     double value, io_error *err) {
    return io_fail(err, IO_ERR_INPUT, mol->source, a->source_line, field,
                   "atom %s %s %d%s%c: %s (%g)", a->name, a->residue, a->residue_number,
                   a->chain != ' ' ? " chain " : "", a->chain != ' ' ? a->chain : ' ', what, value);
}

int molecule_check(const molecule *mol, io_error *err) {
    if (mol->count == 0)
        return io_fail(err, IO_ERR_INPUT, mol->source, 0, NULL,
                       "no atoms: the file has no ATOM or HETATM lines");
    for (size_t i = 0; i < mol->count; i++) {
        const atom *a = &mol->atoms[i];
        const double xyz[3] = {a->x, a->y, a->z};
        static const char *axis[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(xyz[k]))
                return atom_fail(mol, a, axis[k], "coordinate is not finite", xyz[k], err);
            if (fabs(xyz[k]) > IO_MAX_COORDINATE)
                return atom_fail(mol, a, axis[k], "coordinate is absurd (|x| > 1e5 A)", xyz[k],
                                 err);
        }
        if (!isfinite(a->radius) || a->radius < 0.0 || a->radius > IO_MAX_RADIUS)
            return atom_fail(mol, a, "radius", "radius out of range (0 to 10 A)", a->radius, err);
        if (!isfinite(a->charge) || fabs(a->charge) > IO_MAX_CHARGE)
            return atom_fail(mol, a, "charge", "charge out of range (|q| <= 10 e)", a->charge, err);
    }
    return IO_OK;
}

/* The model molecule_load asks the readers for (run_settings.model): 0 = the first model with
 * a note about the others, k >= 1 = the k-th MODEL/ENDMDL block.  Set only for the duration of
 * molecule_load, per thread. */
static _Thread_local int selected_model = 0;

void read_atom_lines_select_model(int model) {
    selected_model = model;
}

/* The whole file in memory, NUL-terminated (size + 1 bytes); NULL on a read error. */
static char *read_whole(FILE *fp, size_t *size) {
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap);
    while (text) {
        used += fread(text + used, 1, cap - used - 1, fp);
        if (used + 1 < cap) break; /* end of file or an error */
        char *grown = realloc(text, cap * 2);
        if (!grown) free(text);
        text = grown, cap *= 2;
    }
    if (!text) return NULL;
    text[used] = '\0';
    *size = used;
    return text;
}

/* An atom line to parse: its text (NUL-terminated in the file's buffer), length and number. */
typedef struct atom_line {
    char *text;
    size_t len;
    int lineno;
} atom_line;

int read_atom_lines(const char *path, const char *what, int skip_lines, atom_line_fn fn, void *ctx,
                    int threaded, molecule *mol, io_notes *notes, io_error *err) {
    const int model = selected_model;
    int current = 1; /* model of the lines being read */
    memset(mol, 0, sizeof *mol);
    snprintf(mol->source, sizeof mol->source, "%s", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open %s: %s", what,
                       strerror(errno));
    size_t size = 0;
    char *text = read_whole(fp, &size);
    if (!text || ferror(fp)) {
        const int rc =
            text ? io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot read %s: %s", what,
                           strerror(errno))
                 : io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory reading %s", what);
        free(text);
        fclose(fp);
        return rc;
    }
    fclose(fp);
    /* Pass 1, in file order: which lines are atoms of the model read (up to the first problem
       a line's shape shows); pass 2 parses them, on several threads where fn allows. */
    size_t line_cap = 1024, lines = 0;
    atom_line *todo = malloc(line_cap * sizeof *todo);
    int lineno = 0, rc = IO_OK, ended = 0;
    io_error shape_err; /* a problem found in pass 1, reported unless an earlier atom fails */
    io_error_clear(&shape_err);
    size_t later_atoms = 0; /* atoms of other models, after ENDMDL */
    size_t recovered = 0;   /* atom lines with leading blanks or a lower-case record */
    const int whitespace_form = strcmp(what, "PQR file") == 0;
    char *next = text, *const end = text + size;
    while (todo && next < end) {
        char *line = next, *newline = memchr(line, '\n', (size_t)(end - line));
        size_t len = (size_t)((newline ? newline : end) - line);
        next = newline ? newline + 1 : end;
        if (len > 0 && line[len - 1] == '\r') len--;
        line[len] = '\0';
        if (line == text && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
            line += 3, len -= 3; /* a UTF-8 byte-order mark */
        lineno++;
        if (lineno <= skip_lines) continue;
        if (strlen(line) != len) {
            rc = io_fail(&shape_err, IO_ERR_INPUT, path, lineno, NULL,
                         "contains a NUL byte: not a text %s", what);
            break;
        }
        if (ended) {
            if (pdb_line_is_atom(line)) later_atoms++;
            continue;
        }
        if (pdb_line_ends_model(line)) {
            if (strncmp(line, "ENDMDL", 6) != 0) break; /* END: nothing follows */
            if (model == 0 || current == model) ended = 1;
            ++current;
            continue;
        }
        if (!pdb_line_is_atom(line)) {
            /* " ATOM", "atom", "Hetatm": an atom all the same; never dropped in silence. */
            const int blanks = (int)strspn(line, " \t");
            if (!pdb_line_is_atom_any_case(line + blanks)) continue;
            if (blanks > 0 && !whitespace_form) {
                rc = io_fail(&shape_err, IO_ERR_INPUT, path, lineno, NULL,
                             "the atom record starts in column %d, not 1: the fixed columns of "
                             "a %s cannot be read",
                             blanks + 1, what);
                break;
            }
            line += blanks, len -= (size_t)blanks;
            for (int k = 0; k < 6 && isalpha((unsigned char)line[k]); ++k)
                line[k] = (char)toupper((unsigned char)line[k]);
            recovered++;
        }
        if (model > 0 && current != model) continue;
        const char *tab = whitespace_form ? NULL : strchr(line, '\t');
        if (tab) { /* its columns would be read shifted, silently */
            rc = io_fail(&shape_err, IO_ERR_INPUT, path, lineno, NULL,
                         "a tab at column %d of an atom record: the fixed columns of a %s "
                         "cannot be read (write spaces)",
                         (int)(tab - line) + 1, what);
            break;
        }
        if (lines == line_cap) {
            atom_line *grown = realloc(todo, 2 * line_cap * sizeof *todo);
            if (!grown) free(todo);
            todo = grown, line_cap *= 2;
            if (!todo) break;
        }
        todo[lines++] = (atom_line){line, len, lineno};
    }
    if (!todo || molecule_reserve(mol, lines) != IO_OK) {
        free(todo), free(text);
        return io_fail(err, IO_ERR_MEMORY, path, lineno, NULL, "out of memory reading %s", what);
    }
    /* Pass 2: the first failing line in file order is the one reported. */
    long first_bad = (long)lines;
    int bad_rc = IO_OK;
#pragma omp parallel for schedule(static) if (threaded && lines >= 4096)
    for (long i = 0; i < (long)lines; ++i) {
        long seen;
#pragma omp atomic read
        seen = first_bad;
        if (i > seen) continue;
        atom a;
        memset(&a, 0, sizeof a);
        a.chain = a.insertion = ' ';
        a.source_line = todo[i].lineno;
        io_error line_err;
        const int line_rc = fn(ctx, path, todo[i].text, todo[i].len, todo[i].lineno, &a, &line_err);
        if (line_rc == IO_OK) {
            mol->atoms[i] = a;
        } else {
#pragma omp critical(read_atom_lines_first)
            if (i < first_bad) {
                bad_rc = line_rc;
                if (err) *err = line_err;
#pragma omp atomic write
                first_bad = i;
            }
        }
    }
    free(todo), free(text);
    if (bad_rc != IO_OK) {
        molecule_free(mol);
        return bad_rc;
    }
    mol->count = lines;
    if (rc != IO_OK) {
        if (err) *err = shape_err;
    }
    if (rc == IO_OK && model > 0 && mol->count == 0)
        rc = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "%s has no atoms in model %d (%d models)",
                     what, model, current - (ended ? 1 : 0));
    if (rc == IO_OK && recovered > 0)
        io_note(notes, IO_NOTE_WARNING,
                "%s: %zu atom records with leading blanks or in lower case were read as ATOM or "
                "HETATM",
                path, recovered);
    if (rc == IO_OK && model == 0 && later_atoms > 0)
        io_note(notes, IO_NOTE_WARNING,
                "%s: only the first model is read; %zu atoms after ENDMDL are ignored", path,
                later_atoms);
    if (rc == IO_OK) rc = molecule_check(mol, err);
    if (rc != IO_OK) molecule_free(mol);
    return rc;
}
