/* The partners of a binding run (see io_binding.h). */
#include <stdio.h>
#include <string.h>

#include "io_binding.h"
#include "io_text.h"

#define OPTION "--binding"

typedef struct chain_sides {
    int hetatm;                     /* the spec is the word hetatm */
    int two_sided;                  /* "A:B" rather than "A" */
    char side[2][BINDING_SPEC_MAX]; /* the chains of each side ('_' made ' ') */
} chain_sides;

static int is_chain_char(char c) {
    return c > ' ' && c < 0x7f && c != ':' && c != ',';
}

/* Parse SPEC into its sides; messages name the option. */
static int parse(const char *spec, chain_sides *out, io_error *err) {
    memset(out, 0, sizeof *out);
    if (!spec || !spec[0])
        return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION,
                       "needs the partners: chains (A:B, or A against the rest) or hetatm");
    if (strlen(spec) >= BINDING_SPEC_MAX)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION,
                       "'%.20s...' is too long (at most %d "
                       "characters)",
                       spec, BINDING_SPEC_MAX - 1);
    if (io_iequal(spec, "hetatm")) {
        out->hetatm = 1;
        return IO_OK;
    }
    int k = 0;
    size_t n = 0;
    for (const char *p = spec; *p; ++p) {
        if (*p == ':') {
            if (++k > 1)
                return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION,
                               "'%s' has more than one ':' (two partners: A:B)", spec);
            n = 0;
            continue;
        }
        if (*p == ',') continue;
        if (!is_chain_char(*p))
            return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION,
                           "'%s': chain identifiers are single printable characters ('_' for a "
                           "blank chain), separated by ',' at most",
                           spec);
        const char chain = *p == '_' ? ' ' : *p;
        for (int j = 0; j <= k; ++j)
            if (strchr(out->side[j], chain))
                return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION, "'%s' names chain '%c' twice",
                               spec, *p);
        out->side[k][n++] = chain;
    }
    out->two_sided = k == 1;
    for (int j = 0; j <= k; ++j)
        if (!out->side[j][0])
            return io_fail(err, IO_ERR_INPUT, NULL, 0, OPTION,
                           "'%s': the %s partner names no chain", spec, j ? "second" : "first");
    return IO_OK;
}

int binding_spec_check(const char *spec, io_error *err) {
    chain_sides sides;
    return parse(spec, &sides, err);
}

/* "chain A" or "chains A, C" ('_' for a blank one). */
static void describe(const char *chains, char *name, size_t size) {
    const size_t count = strlen(chains);
    size_t used = (size_t)snprintf(name, size, "chain%s ", count > 1 ? "s" : "");
    for (size_t i = 0; i < count && used + 4 < size; ++i)
        used += (size_t)snprintf(name + used, size - used, "%s%c", i ? ", " : "",
                                 chains[i] == ' ' ? '_' : chains[i]);
}

int binding_split(const char *spec, const molecule *mol, int *partner,
                  char names[2][BINDING_NAME_MAX], io_error *err) {
    chain_sides sides;
    int st = parse(spec, &sides, err);
    if (st != IO_OK) return st;
    long count[2] = {0, 0};
    if (sides.hetatm) {
        for (size_t i = 0; i < mol->count; ++i) {
            partner[i] = strcmp(mol->atoms[i].record, "HETATM") == 0 ? 0 : 1;
            ++count[partner[i]];
        }
        snprintf(names[0], BINDING_NAME_MAX, "the HETATM records");
        snprintf(names[1], BINDING_NAME_MAX, "the ATOM records");
    } else {
        /* every listed chain must have atoms */
        for (int k = 0; k < 1 + sides.two_sided; ++k)
            for (const char *c = sides.side[k]; *c; ++c) {
                size_t i = 0;
                while (i < mol->count && (mol->atoms[i].chain ? mol->atoms[i].chain : ' ') != *c)
                    ++i;
                if (i == mol->count)
                    return io_fail(err, IO_ERR_INPUT, mol->source, 0, OPTION,
                                   "no atom of chain '%c' (%s)", *c == ' ' ? '_' : *c, spec);
            }
        for (size_t i = 0; i < mol->count; ++i) {
            const atom *a = &mol->atoms[i];
            const char chain = a->chain ? a->chain : ' ';
            if (strchr(sides.side[0], chain))
                partner[i] = 0;
            else if (!sides.two_sided || strchr(sides.side[1], chain))
                partner[i] = 1;
            else
                return io_fail(err, IO_ERR_INPUT, mol->source, a->source_line, OPTION,
                               "atom %d %s %s %d of chain '%c' is in neither partner of '%s' "
                               "(list its chain, or name one partner only: the other is then "
                               "every other atom)",
                               a->serial, a->name, a->residue, a->residue_number,
                               chain == ' ' ? '_' : chain, spec);
            ++count[partner[i]];
        }
        describe(sides.side[0], names[0], BINDING_NAME_MAX);
        if (sides.two_sided)
            describe(sides.side[1], names[1], BINDING_NAME_MAX);
        else
            snprintf(names[1], BINDING_NAME_MAX, "the other atoms");
    }
    for (int k = 0; k < 2; ++k)
        if (count[k] == 0)
            return io_fail(err, IO_ERR_INPUT, mol->source, 0, OPTION,
                           "'%s': partner %d (%s) has no atoms; all %zu are in partner %d (%s)",
                           spec, k + 1, names[k], mol->count, 2 - k, names[1 - k]);
    return IO_OK;
}

size_t binding_residue_end(const molecule *mol, const int *partner, size_t i) {
    const atom *first = &mol->atoms[i];
    size_t j = i;
    for (; j < mol->count && partner[j] == partner[i]; ++j) {
        const atom *a = &mol->atoms[j];
        if (a->chain != first->chain || a->residue_number != first->residue_number ||
            a->insertion != first->insertion || strcmp(a->residue, first->residue) != 0)
            break;
    }
    return j;
}

static char or_dash(char c) {
    return c == ' ' || c == '\0' ? '-' : c;
}

int binding_residues_write(const char *path, const molecule *mol, const int *partner,
                           const double *atom_energy, double binding_energy, io_error *err) {
    if (!mol || !partner || !atom_energy)
        return io_fail(err, IO_ERR_INPUT, path, 0, "--binding-residues",
                       "no atom parts of a binding run to write");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    fprintf(fp, "# delphi-gpu binding: each residue's part of the binding energy (kT), (1/2) q "
                "times the difference,\n# complex minus its partner alone, of the Coulombic, "
                "reaction-field and salt potentials at its atoms\n");
    fprintf(fp, "# molecule %s\n", mol->source);
    fprintf(fp, "# partner chain residue number insertion energy_kT atoms\n");
    double sum = 0.0;
    long residues = 0;
    for (size_t i = 0; i < mol->count;) {
        const atom *first = &mol->atoms[i];
        const size_t j = binding_residue_end(mol, partner, i);
        double energy = 0.0;
        for (size_t k = i; k < j; ++k)
            energy += atom_energy[k];
        fprintf(fp, "%d %c %s %d %c %.6f %zu\n", partner[i] + 1, or_dash(first->chain),
                first->residue[0] ? first->residue : "-", first->residue_number,
                or_dash(first->insertion), energy, j - i);
        sum += energy, ++residues;
        i = j;
    }
    fprintf(fp, "# %ld residues, sum %.6f kT; binding energy %.6f kT\n", residues, sum,
            binding_energy);
    return atomic_file_commit(&af, err);
}
