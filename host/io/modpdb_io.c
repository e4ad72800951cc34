/* The modified PDB output (out(modpdb), out(modpdb4)). */
#include <stdio.h>
#include <string.h>

#include "io_modpdb.h"

/* Columns 1-30 of a PDB atom record: record, serial, name (where the input had it: a name of
 * fewer than 4 characters starts in column 14 unless it started in column 13, as a two-letter
 * element's does, ZN; DelPhi copies the columns), residue, chain, residue number and insertion
 * code. */
static void atom_columns(const atom *a, char *out, size_t size) {
    char name[8];
    snprintf(name, sizeof name, strlen(a->name) < 4 && !a->name_at_13 ? " %-3s" : "%-4s", a->name);
    snprintf(out, size, "%-6s%5d %-4.4s %3.3s %c%4d%c   ", a->record[0] ? a->record : "ATOM",
             a->serial % 100000, name, a->residue, a->chain ? a->chain : ' ',
             a->residue_number % 10000, a->insertion ? a->insertion : ' ');
}

int modpdb_write(const char *path, const molecule *mol, int format, io_error *err) {
    if (!mol || (format != MODPDB_DELPHI1 && format != MODPDB_DELPHI4 && format != MODPDB_PQR))
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no atoms or no known format to write");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    if (format == MODPDB_PQR) {
        fprintf(fp, "REMARK   1 atoms with charges (e) and radii (A) written by delphi-gpu\n");
    } else {
        fprintf(fp, " DELPHI PDB FILE\n FORMAT = %d\n", format);
        fprintf(fp, "REMARK   1 written by delphi-gpu: %s\n",
                format == MODPDB_DELPHI1 ? "radius in columns 55-60, charge in 61-67"
                                         : "charge in columns 55-62, radius in 63-70");
    }
    char head[64];
    for (size_t i = 0; i < mol->count; ++i) {
        const atom *a = &mol->atoms[i];
        atom_columns(a, head, sizeof head);
        fprintf(fp, "%s%8.3f%8.3f%8.3f", head, a->x, a->y, a->z);
        if (format == MODPDB_DELPHI1)
            fprintf(fp, "%6.2f%7.3f\n", a->radius, a->charge);
        else if (format == MODPDB_DELPHI4)
            fprintf(fp, "%8.4f%8.3f\n", a->charge, a->radius);
        else
            fprintf(fp, " %8.4f %7.4f\n", a->charge, a->radius);
    }
    fprintf(fp, "END\n");
    return atomic_file_commit(&af, err);
}
