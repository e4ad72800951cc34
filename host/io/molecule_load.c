/* The choice of molecule reader for a run (PQR, DelPhi's unformatted PDB, DelPhi PDB, or PDB
 * with radius and charge tables), and the model count of a PDB file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_settings.h"
#include "io_text.h"
#include "molecule_internal.h"

static int require_table(const run_settings *s, int kind, const char *path, io_error *err) {
    if (io_file_readable(path)) return IO_OK;
    char how[SETTINGS_ORIGIN_MAX + 64];
    settings_describe_input(s, kind, how, sizeof how);
    return io_fail(err, IO_ERR_FILE, path, 0, kind == INPUT_SIZ ? "in(siz)" : "in(crg)",
                   "%s file not found or not readable (%s); a plain PDB file needs radius and "
                   "charge tables",
                   kind == INPUT_SIZ ? "radius" : "charge", how);
}

int molecule_count_models(const char *path, int *count, io_error *err) {
    *count = 0;
    int is_unformatted = 0;
    int rc = unpdb_detect(path, &is_unformatted, err);
    if (rc) return rc;
    if (is_unformatted) { /* DelPhi's unformatted PDB file: one model, no lines */
        *count = 1;
        return IO_OK;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return io_fail(err, IO_ERR_FILE, path, 0, NULL, "cannot open the molecule file: %s",
                       strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int models = 0, atoms_since = 0;
    while (io_read_line(fp, &line, &cap) >= 0) {
        if (pdb_line_is_atom(line)) atoms_since = 1;
        if (!pdb_line_ends_model(line)) continue;
        if (strncmp(line, "ENDMDL", 6) != 0) break;
        /* every block counts, an empty one too (the readers number them so; its run fails
           and says so, and the models after it still run) */
        models += 1, atoms_since = 0;
    }
    models += atoms_since;
    free(line);
    fclose(fp);
    *count = models;
    return IO_OK;
}

int molecule_file_kind(const char *path, int *kind, io_error *err) {
    *kind = MOLECULE_FILE_TEXT;
    int yes = 0;
    int rc = unpdb_detect(path, &yes, err);
    if (rc == IO_OK && yes) *kind = MOLECULE_FILE_UNFORMATTED;
    if (rc == IO_OK && !yes) rc = pdb_is_delphi_format(path, &yes, err);
    if (rc == IO_OK && yes && *kind == MOLECULE_FILE_TEXT) *kind = MOLECULE_FILE_DELPHI;
    return rc;
}

int molecule_uses_tables(const run_settings *s, int *uses, io_error *err) {
    *uses = 0;
    if (s->pqr_file[0] || !s->pdb_file[0]) return IO_OK;
    int kind;
    const int rc = molecule_file_kind(s->pdb_file, &kind, err);
    if (rc == IO_OK) *uses = kind == MOLECULE_FILE_TEXT;
    return rc;
}

static int load_selected(const run_settings *s, molecule *mol, io_notes *notes, io_error *err);

int molecule_load(const run_settings *s, molecule *mol, io_notes *notes, io_error *err) {
    read_atom_lines_select_model(s->model > 0 ? s->model : 0);
    const int rc = load_selected(s, mol, notes, err);
    read_atom_lines_select_model(0);
    return rc;
}

static int load_selected(const run_settings *s, molecule *mol, io_notes *notes, io_error *err) {
    memset(mol, 0, sizeof *mol);
    if (s->pqr_file[0]) return molecule_read_pqr(s->pqr_file, mol, notes, err);
    if (!s->pdb_file[0])
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                       "no input molecule (settings not resolved?)");

    const int tables_named =
        s->input_source[INPUT_SIZ] >= SOURCE_FILE || s->input_source[INPUT_CRG] >= SOURCE_FILE;
    const char *tables = tables_named ? "the radius and charge files given are not read"
                                      : "no radius or charge file is needed";
    int kind;
    int rc = molecule_file_kind(s->pdb_file, &kind, err);
    if (rc) return rc;
    if (kind == MOLECULE_FILE_UNFORMATTED) {
        io_note(notes, IO_NOTE_INFO,
                "%s is DelPhi's unformatted PDB file with radii and charges; %s", s->pdb_file,
                tables);
        return molecule_read_unpdb(s->pdb_file, mol, notes, err);
    }
    if (kind == MOLECULE_FILE_DELPHI) {
        io_note(notes, IO_NOTE_INFO, "%s is a DelPhi PDB file with radii and charges; %s",
                s->pdb_file, tables);
        return molecule_read_delphi_pdb(s->pdb_file, mol, notes, err);
    }
    rc = require_table(s, INPUT_SIZ, s->siz_file, err);
    if (rc) return rc;
    rc = require_table(s, INPUT_CRG, s->crg_file, err);
    if (rc) return rc;
    return molecule_read_pdb(s->pdb_file, s->siz_file, s->crg_file, mol, notes, err);
}
