/* Parsing of single ATOM/HETATM lines: PDB fixed columns and the whitespace PQR form. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_text.h"
#include "molecule_internal.h"

int pdb_line_is_atom(const char *line) {
    return strncmp(line, "ATOM", 4) == 0 || strncmp(line, "HETATM", 6) == 0;
}

int pdb_line_is_atom_any_case(const char *line) {
    const size_t n = io_istarts(line, "HETATM") ? 6 : io_istarts(line, "ATOM") ? 4 : 0;
    /* The record name ends there: "ATOMS" or "atomic" is not an atom record. */
    return n > 0 && !isalpha((unsigned char)line[n]);
}

int pdb_line_ends_model(const char *line) {
    if (strncmp(line, "ENDMDL", 6) == 0) return 1;
    return strncmp(line, "END", 3) == 0 && (line[3] == '\0' || line[3] == ' ');
}

static void set_record(atom *a, const char *line) {
    snprintf(a->record, sizeof a->record, "%s",
             strncmp(line, "HETATM", 6) == 0 ? "HETATM" : "ATOM");
}

void pdb_fixed_identifiers(const char *line, size_t len, atom *a) {
    char buf[16];
    long v;
    set_record(a, line);
    io_columns(line, len, 7, 11, buf, sizeof buf);
    a->serial = io_parse_int(buf, &v) == 0 ? (int)v : 0;
    io_columns(line, len, 13, 16, a->name, sizeof a->name);
    a->name_at_13 = len >= 13 && line[12] != ' ';
    io_columns(line, len, 18, 21, a->residue, sizeof a->residue);
    a->chain = len >= 22 && line[21] != ' ' ? line[21] : ' ';
    io_columns(line, len, 23, 26, buf, sizeof buf);
    a->residue_number = io_parse_int(buf, &v) == 0 ? (int)v : 0;
    a->insertion = len >= 27 && line[26] != ' ' ? line[26] : ' ';
}

int pdb_fixed_real(const char *line, size_t len, int first, int last, double *v) {
    char buf[32];
    io_columns(line, len, first, last, buf, sizeof buf);
    if (!buf[0]) return IO_NOT_A_NUMBER;
    return io_parse_real(buf, v);
}

int pdb_fixed_coordinates(const char *line, size_t len, double xyz[3], int *bad) {
    for (int k = 0; k < 3; k++) {
        int rc = pdb_fixed_real(line, len, 31 + 8 * k, 38 + 8 * k, &xyz[k]);
        if (rc != 0) {
            *bad = k;
            return rc;
        }
    }
    return 0;
}

/* "A12" -> chain A, number 12; "12A" -> number 12, insertion A; "12" -> number 12. */
static int parse_residue_number(const char *tok, atom *a) {
    char digits[16];
    const char *p = tok;
    if (isalpha((unsigned char)p[0]) && (isdigit((unsigned char)p[1]) || p[1] == '-')) {
        a->chain = p[0];
        p++;
    }
    size_t n = strlen(p);
    if (n > 0 && isalpha((unsigned char)p[n - 1])) {
        a->insertion = p[n - 1];
        n--;
    }
    if (n == 0 || n >= sizeof digits) return -1;
    memcpy(digits, p, n);
    digits[n] = '\0';
    long v;
    if (io_parse_int(digits, &v) != 0) return -1;
    a->residue_number = (int)v;
    return 0;
}

static const char *field_names[5] = {"x", "y", "z", "charge", "radius"};

int pqr_whitespace_atom(const char *line, atom *a, char *why, size_t why_size) {
    enum { MAX_TOKENS = 24 };
    char copy[512];
    if (strlen(line) >= sizeof copy) {
        snprintf(why, why_size, "line too long");
        return -1;
    }
    strcpy(copy, line);
    char *tok[MAX_TOKENS + 2];
    int n = io_split_blanks(copy, tok + 1, MAX_TOKENS);
    if (n > MAX_TOKENS) {
        snprintf(why, why_size, "too many fields");
        return -1;
    }
    /* "HETATM1234": the record name glued to a large serial number. */
    tok[0] = NULL;
    char **t = tok + 1;
    char record_only[8];
    if (n > 0) {
        size_t rlen = strncmp(t[0], "HETATM", 6) == 0 ? 6 : 4;
        if (strlen(t[0]) > rlen) {
            memcpy(record_only, t[0], rlen);
            record_only[rlen] = '\0';
            t = tok;
            t[0] = record_only;
            t[1] = t[1] + rlen;
            n++;
        }
    }
    if (n < 10) {
        snprintf(why, why_size,
                 "expected at least 10 fields (record serial name residue [chain] resnum x y z "
                 "charge radius), found %d",
                 n);
        return -1;
    }
    double v[5];
    for (int k = 0; k < 5; k++) {
        int rc = io_parse_real(t[n - 5 + k], &v[k]);
        if (rc != 0) {
            snprintf(why, why_size, "field %d (%s) '%s' is %s", n - 4 + k, field_names[k],
                     t[n - 5 + k], rc == IO_NOT_FINITE ? "NaN or infinite" : "not a number");
            return -1;
        }
    }
    set_record(a, line);
    long serial;
    a->serial = io_parse_int(t[1], &serial) == 0 ? (int)serial : 0;
    snprintf(a->name, sizeof a->name, "%.5s", t[2]);
    snprintf(a->residue, sizeof a->residue, "%.4s", t[3]);
    a->chain = ' ';
    a->insertion = ' ';
    a->residue_number = 0;
    int middle = n - 5 - 4; /* fields between the residue name and x */
    if (middle == 2) {
        if (strlen(t[4]) != 1) {
            snprintf(why, why_size, "chain ID '%s' should be one character", t[4]);
            return -1;
        }
        a->chain = t[4][0];
    }
    if (middle < 1 || middle > 2 || parse_residue_number(t[4 + middle - 1], a) != 0) {
        snprintf(why, why_size, "cannot read the residue number (fields 5-%d)", 4 + middle);
        return -1;
    }
    a->x = v[0];
    a->y = v[1];
    a->z = v[2];
    a->charge = v[3];
    a->radius = v[4];
    return 0;
}

int pqr_fixed_atom(const char *line, size_t len, atom *a, char *why, size_t why_size) {
    double xyz[3];
    int bad = 0;
    int rc = pdb_fixed_coordinates(line, len, xyz, &bad);
    if (rc != 0) {
        snprintf(why, why_size, "columns %d-%d (%s) %s", 31 + 8 * bad, 38 + 8 * bad,
                 field_names[bad],
                 rc == IO_NOT_FINITE ? "hold NaN or infinity" : "are not a number");
        return -1;
    }
    char rest[256];
    io_columns(line, len, 55, (int)len, rest, sizeof rest);
    char *tok[4];
    int n = io_split_blanks(rest, tok, 3);
    if (n != 2) {
        snprintf(why, why_size, "expected charge and radius after column 54, found %d fields", n);
        return -1;
    }
    double qr[2];
    for (int k = 0; k < 2; k++) {
        rc = io_parse_real(tok[k], &qr[k]);
        if (rc != 0) {
            snprintf(why, why_size, "%s '%s' is %s", field_names[3 + k], tok[k],
                     rc == IO_NOT_FINITE ? "NaN or infinite" : "not a number");
            return -1;
        }
    }
    pdb_fixed_identifiers(line, len, a);
    a->x = xyz[0];
    a->y = xyz[1];
    a->z = xyz[2];
    a->charge = qr[0];
    a->radius = qr[1];
    return 0;
}
