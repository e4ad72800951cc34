/* host_io: molecule readers (PQR, PDB + .siz/.crg, DelPhi PDB formats 1, 2, 4, DelPhi's
 * unformatted PDB file) and site lists.
 *
 * Every reader fills a molecule (molecule.h; free it with molecule_free) and checks the atoms:
 * finite coordinates with |x| <= 1e5 A, 0 <= radius <= 10 A, |charge| <= 10 e, at least one
 * atom.  Errors name the file, the line (the record of a binary file) and the field. */
#ifndef HOST_IO_MOLECULE_H
#define HOST_IO_MOLECULE_H

#include "io_common.h"
#include "molecule.h"
#include "settings.h"

#define IO_MAX_COORDINATE 1.0e5 /* A */
#define IO_MAX_RADIUS     10.0  /* A */
#define IO_MAX_CHARGE     10.0  /* e */

/** The input molecule of a run: the PQR file, or the PDB file (DelPhi PDB format, or plain PDB
 *  with the radius and charge tables).  Settings must have been resolved.  s->model >= 1 reads
 *  that model (MODEL/ENDMDL block) of a multi-model file, 0 the first (with a note about the
 *  others). */
int molecule_load(const run_settings *s, molecule *mol, io_notes *notes, io_error *err);

/** Models of a molecule file: MODEL/ENDMDL blocks holding atoms (1 for a file without them). */
int molecule_count_models(const char *path, int *count, io_error *err);

/** PQR: whitespace form (the last five fields of ATOM/HETATM lines are x y z charge radius, so
 *  a missing chain ID is fine) or fixed columns (coordinates in columns 31-54). */
int molecule_read_pqr(const char *path, molecule *mol, io_notes *notes, io_error *err);

/** Plain PDB (ATOM/HETATM lines, PDB columns) with radii from siz_path and charges from
 *  crg_path.  An atom without a radius entry is an error; without a charge entry it gets 0. */
int molecule_read_pdb(const char *pdb_path, const char *siz_path, const char *crg_path,
                      molecule *mol, io_notes *notes, io_error *err);

/** DelPhi PDB file: line 1 contains "DELPHI PDB FILE", line 2 "FORMAT = n" (n = 1, 2 or 4). */
int molecule_read_delphi_pdb(const char *path, molecule *mol, io_notes *notes, io_error *err);

/** Is path a DelPhi PDB file?  Sets *is_delphi (0/1).  Only fails if it cannot be read. */
int pdb_is_delphi_format(const char *path, int *is_delphi, io_error *err);

/** DelPhi's unformatted PDB file (in(unpdb); MCCE's binary molecule file): Fortran unformatted
 *  records (4-byte length markers, either byte order), one per atom holding x, y, z, radius,
 *  charge as 4- or 8-byte reals ("format 0"), or a header (an 80-character line naming DELPHI
 *  and PDB, the format number 1, the atom count) and per atom a 15-character descriptor (PDB
 *  columns 12-26: name, residue, chain, residue number) before the five reals ("format 1").
 *  Atoms are records "ATOM" numbered from 1; source_line is the record number, which every
 *  message names. */
int molecule_read_unpdb(const char *path, molecule *mol, io_notes *notes, io_error *err);

/** Does path start with a Fortran unformatted record of a length DelPhi's unformatted PDB file
 *  begins with (20, 40 or 80 bytes, closing marker equal)?  Sets *is_unformatted (0/1); a text
 *  file never is one.  Only fails if the file cannot be opened. */
int unpdb_detect(const char *path, int *is_unformatted, io_error *err);

/** DelPhi's out(unpdb): format 0 with 4-byte reals, little-endian, written atomically. */
int unpdb_write(const char *path, const molecule *mol, io_error *err);

/** Site positions for the frc output (in(frc)): a DelPhi PDB file, DelPhi's unformatted PDB
 *  file or a *.pqr file (with charges and radii), or any other PDB-like list of ATOM lines
 *  (positions only; charge and radius 0). */
int molecule_read_sites(const char *path, molecule *mol, io_notes *notes, io_error *err);

/** Sites read from a file that gives no charges or radii (sites->positions_only: plain PDB
 *  lines) take them from the run's radius and charge tables, as DelPhi gives them: the best
 *  entry's value (charge_table_find, radius_table_find), 0 without one.  A no-op for other site
 * lists. */
int molecule_sites_from_tables(molecule *sites, const char *siz_path, const char *crg_path,
                               io_notes *notes, io_error *err);

/** Does the run read its molecule with the radius and charge tables (a plain PDB file, not a
 *  PQR, DelPhi PDB or unformatted file)?  Sets *uses (0/1); fails only on an unreadable file. */
int molecule_uses_tables(const run_settings *s, int *uses, io_error *err);

/** Range checks listed above; line numbers come from atom.source_line. */
int molecule_check(const molecule *mol, io_error *err);

/** Sum of the charges (e). */
double molecule_net_charge(const molecule *mol);

/* ---- Radius (.siz) and charge (.crg) tables ------------------------------------------------- */
#define TABLE_ANY_RESNUM (-2147483647 - 1) /* blank residue number: matches any */

typedef struct table_entry {
    char atom[7];    /* atom name, trimmed, upper-case; never blank */
    char residue[4]; /* trimmed, upper-case; "" matches any residue */
    int resnum;      /* TABLE_ANY_RESNUM matches any */
    char chain;      /* ' ' matches any */
    double value;    /* radius (A) or charge (e) */
    int line;        /* line in the table file */
} table_entry;

typedef struct atom_table {
    table_entry *entries;
    size_t count;
    char source[SETTINGS_PATH_MAX];
} atom_table;

/** Radius table: comment lines ('!'), a header line "atom__res_radius_" (atom a6, residue a3,
 *  radius f8.3) or "atom__resnumbc_radius_" (atom a6, residue a3, number a4, chain a1, radius
 *  f8.3), then fixed-column entries. */
int radius_table_read(const char *path, atom_table *table, io_notes *notes, io_error *err);
/** Charge table: comment lines, a header line, then atom a6, residue a3, number a4, chain a1,
 *  charge f8.x. */
int charge_table_read(const char *path, atom_table *table, io_notes *notes, io_error *err);
void atom_table_free(atom_table *table);

/** The entry for an atom, or NULL, searched as DelPhi searches, from the most specific key
 *  down; each search wants an entry whose fields are exactly the key's (names and chain
 *  case-blind; a blank in the key wants a blank field).  Radii: (atom, residue, number, chain),
 *  (atom, residue, number), (atom, residue), (atom), then the atom name's first letter alone
 *  (an element's entry: CA takes C's).  Charges: a chain's wildcard "*" (residue and number
 *  blank, the atom's chain) first, then (atom, residue, number, chain), (atom, residue, number),
 *  (atom, residue, chain), (atom, residue), (atom, number, chain), (atom, number), (atom, chain),
 *  (atom). */
const table_entry *radius_table_find(const atom_table *table, const atom *a);
const table_entry *charge_table_find(const atom_table *table, const atom *a);

#endif /* HOST_IO_MOLECULE_H */
