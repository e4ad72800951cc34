/* PQR files and site lists (in(frc)). */
#include <stdio.h>
#include <string.h>

#include "molecule_internal.h"

/* Whitespace form first (pdb2pqr --whitespace, and any PQR whose fields are separated); if
 * that fails, the fixed-column form (coordinates in columns 31-54, which may touch). */
static int pqr_line(void *ctx, const char *path, const char *line, size_t len, int lineno, atom *a,
                    io_error *err) {
    (void)ctx;
    char why[256], why_fixed[256];
    if (pqr_whitespace_atom(line, a, why, sizeof why) == 0) return IO_OK;
    if (pqr_fixed_atom(line, len, a, why_fixed, sizeof why_fixed) == 0) return IO_OK;
    return io_fail(err, IO_ERR_INPUT, path, lineno, a->record[0] ? a->record : "ATOM",
                   "malformed PQR atom line: %s", why);
}

int molecule_read_pqr(const char *path, molecule *mol, io_notes *notes, io_error *err) {
    return read_atom_lines(path, "PQR file", 0, pqr_line, NULL, 1, mol, notes, err);
}

/* Sites of a plain PDB file: coordinates from columns 31-54, or, if those do not parse, from a
 * whitespace reading.  Only positions and identifiers are taken (charge and radius 0): the
 * columns after the coordinates are occupancy and B-factor in a PDB file. */
static int site_line(void *ctx, const char *path, const char *line, size_t len, int lineno, atom *a,
                     io_error *err) {
    (void)ctx;
    double xyz[3];
    int bad;
    char why[256];
    if (pdb_fixed_coordinates(line, len, xyz, &bad) == 0) {
        pdb_fixed_identifiers(line, len, a);
        a->x = xyz[0];
        a->y = xyz[1];
        a->z = xyz[2];
        return IO_OK;
    }
    if (pqr_whitespace_atom(line, a, why, sizeof why) == 0) {
        a->charge = 0.0;
        a->radius = 0.0;
        return IO_OK;
    }
    return io_fail(err, IO_ERR_INPUT, path, lineno, "ATOM",
                   "malformed site line: no coordinates in columns 31-54 and %s", why);
}

static int has_pqr_extension(const char *path) {
    size_t n = strlen(path);
    if (n < 4) return 0;
    const char *e = path + n - 4;
    return e[0] == '.' && (e[1] == 'p' || e[1] == 'P') && (e[2] == 'q' || e[2] == 'Q') &&
           (e[3] == 'r' || e[3] == 'R');
}

/* DelPhi PDB files (text or unformatted) and *.pqr files give charges and radii too; other files
 * positions only.  An unformatted site file holds the same records as the molecule file. */
int molecule_read_sites(const char *path, molecule *mol, io_notes *notes, io_error *err) {
    int kind;
    int rc = molecule_file_kind(path, &kind, err);
    if (rc) return rc;
    if (kind == MOLECULE_FILE_UNFORMATTED) return molecule_read_unpdb(path, mol, notes, err);
    if (kind == MOLECULE_FILE_DELPHI) return molecule_read_delphi_pdb(path, mol, notes, err);
    if (has_pqr_extension(path)) return molecule_read_pqr(path, mol, notes, err);
    rc = read_atom_lines(path, "site file", 0, site_line, NULL, 1, mol, notes, err);
    if (rc == IO_OK) mol->positions_only = 1;
    return rc;
}
