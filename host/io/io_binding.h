/* host_io: the two partners of a binding run (--binding SPEC), chosen from the molecule's
 * atoms.
 *
 * SPEC is one of
 *   A:B      the atoms of chain A against those of chain B; each side may list several chains
 *            (AC:B, or A,C:B); every atom must be in one side
 *   A        the atoms of chain A (or of the chains listed) against all the others
 *   hetatm   the HETATM records (a ligand, ions) against the ATOM records
 * Chain identifiers are single characters, case-sensitive as in PDB files; "_" stands for a
 * blank chain.  The word hetatm (any case) is never read as a list of chains. */
#ifndef HOST_IO_BINDING_H
#define HOST_IO_BINDING_H

#include <stddef.h>

#include "io_common.h"
#include "molecule.h"
#include "settings.h"

#define BINDING_SPEC_MAX SETTINGS_BINDING_MAX
#define BINDING_NAME_MAX 96

/** Check SPEC's form alone (the option's value), before any molecule is read. */
int binding_spec_check(const char *spec, io_error *err);

/** partner[i] = 0 or 1 for each atom of mol (an array of mol->count), and each partner's
 *  description for the log ("chain A", "chains A, C", "the HETATM records", "the other
 *  atoms").  Fails, naming the option, the file and the atom's line, when a listed chain has
 *  no atoms, a chain is on both sides, an atom is in neither side, or a partner is empty. */
int binding_split(const char *spec, const molecule *mol, int *partner,
                  char names[2][BINDING_NAME_MAX], io_error *err);

/** Each residue's part of the binding energy (--binding-residues): atom_energy[i] is atom i's
 *  part (kT; dg_calc_run_binding), partner[i] its partner (0 or 1).  A residue is a run of
 *  consecutive atoms with the same chain, residue number, insertion code and residue name.
 *  Written as a table (atomic): comment lines starting with '#', then per residue
 *    partner chain residue number insertion energy_kT atoms
 *  (partner 1 or 2, chain and insertion '-' when blank), then '#' lines with the sum and the
 *  binding energy. */
int binding_residues_write(const char *path, const molecule *mol, const int *partner,
                           const double *atom_energy, double binding_energy, io_error *err);

/** The end (one past the last atom) of the residue that starts at atom i, as the table groups
 *  them (one partner's consecutive atoms of one chain, residue number, insertion and name). */
size_t binding_residue_end(const molecule *mol, const int *partner, size_t i);

#endif /* HOST_IO_BINDING_H */
