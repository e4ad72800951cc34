/* Internal to the molecule readers. */
#ifndef HOST_IO_MOLECULE_INTERNAL_H
#define HOST_IO_MOLECULE_INTERNAL_H

#include <stddef.h>

#include "io_molecule.h"

/** What a molecule or site file is, by its content: DelPhi's unformatted PDB (checked first: its
 *  header record may name DELPHI and PDB as a text one does), DelPhi's text PDB, or other text. */
enum molecule_file_kind { MOLECULE_FILE_TEXT, MOLECULE_FILE_UNFORMATTED, MOLECULE_FILE_DELPHI };
int molecule_file_kind(const char *path, int *kind, io_error *err);

/** Append a copy of *a (grows the array). */
int molecule_push(molecule *mol, const atom *a, io_error *err);

/** Room for count atoms in an empty molecule, with the capacity molecule_push expects for that
 *  count (so that it may push more).  IO_OK or IO_ERR_MEMORY. */
int molecule_reserve(molecule *mol, size_t count);

/** Called for every ATOM/HETATM line; fills *a (source_line is set) or fails. */
typedef int (*atom_line_fn)(void *ctx, const char *path, const char *line, size_t len, int lineno,
                            atom *a, io_error *err);

/** Read the ATOM/HETATM lines of a text file (first model only: stops at ENDMDL or END),
 *  skipping the first skip_lines lines, then molecule_check().  what names the file in
 *  messages ("PQR file").  threaded: fn may run on several threads at once (it changes nothing
 *  but its atom and error), so a large file's lines are parsed in parallel; the first failing
 *  line in file order is reported either way.  On error mol is freed. */
int read_atom_lines(const char *path, const char *what, int skip_lines, atom_line_fn fn, void *ctx,
                    int threaded, molecule *mol, io_notes *notes, io_error *err);

/** The model read_atom_lines reads in this thread (0: the first, with a note about the others;
 *  k >= 1: the k-th MODEL/ENDMDL block), set by molecule_load around its reader. */
void read_atom_lines_select_model(int model);

/** Line starts with an ATOM or HETATM record name. */
int pdb_line_is_atom(const char *line);
/** ATOM or HETATM in any case (the line may be one the strict test above rejects). */
int pdb_line_is_atom_any_case(const char *line);
/** Line is an END or ENDMDL record (end of the first model). */
int pdb_line_ends_model(const char *line);

/** Identifiers from PDB columns: record 1-6, serial 7-11, name 13-16, residue 18-21, chain 22,
 *  residue number 23-26, insertion code 27. */
void pdb_fixed_identifiers(const char *line, size_t len, atom *a);

/** Coordinates from columns 31-38, 39-46, 47-54.  Returns an io_parse_status: IO_PARSE_OK,
 *  IO_NOT_A_NUMBER (column group *bad is not a number, or the line is too short) or
 *  IO_NOT_FINITE (*bad is NaN/Inf); *bad is 0, 1, 2 for x, y, z. */
int pdb_fixed_coordinates(const char *line, size_t len, double xyz[3], int *bad);

/** A real from columns first..last.  Returns as io_parse_real (IO_NOT_A_NUMBER also for blank). */
int pdb_fixed_real(const char *line, size_t len, int first, int last, double *v);

/** Whitespace PQR atom line: identifiers from the leading fields, x y z q r from the last five.
 *  Returns 0, or -1 with a reason in why. */
int pqr_whitespace_atom(const char *line, atom *a, char *why, size_t why_size);

/** Fixed-column PQR atom line: PDB columns, then charge and radius as the two blank-separated
 *  fields after column 54.  Returns 0, or -1 with a reason in why. */
int pqr_fixed_atom(const char *line, size_t len, atom *a, char *why, size_t why_size);

#endif /* HOST_IO_MOLECULE_INTERNAL_H */
