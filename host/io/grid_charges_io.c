/* DelPhi's grid-charge file (see io_grid_charges.h). */
#include <stdio.h>

#include "io_grid_charges.h"

int grid_charges_write_delphi(const char *path, const grid_charges *g, io_error *err) {
    if (!g || g->n < 1 || (g->count > 0 && (!g->index || !g->charge)))
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no grid charges to write");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    fprintf(fp, " DELPHI OUTPUT FILE: GRID CHARGE\n");
    fprintf(fp, " FORMAT NUMBER=           1\n");
    fprintf(fp, " NUMBER OF CHARGES= %11ld\n", g->count);
    fprintf(fp, " DIELECTRIC IN MEDIUM NUMBER            0  : %24.17g\n", g->eps_out);
    fprintf(fp, " DIELECTRIC IN MEDIUM NUMBER            1  : %24.17g\n", g->eps_in);
    fprintf(fp, " GRID SCALE= %24.17g\n", g->scale);
    const long n = g->n;
    for (long k = 0; k < g->count; ++k) {
        const long w = g->index[k];
        fprintf(fp, " %24.17g %11ld %11ld %11ld\n", g->charge[k], w % n + 1, w / n % n + 1,
                w / (n * n) + 1);
    }
    return atomic_file_commit(&af, err);
}
