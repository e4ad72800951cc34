/* The induced surface charges output (out(scrg)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_surface_charges.h"

int surface_charges_write(const char *path, const surface_charges *c, const char *title,
                          io_error *err) {
    if (!c || (c->count > 0 && (!c->point || !c->site || !c->charge || !c->energy)) ||
        c->grid_n < 1)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no surface charges to write");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    fprintf(fp, "# induced surface charges written by delphi-gpu\n");
    if (title && title[0]) fprintf(fp, "# %s\n", title);
    fprintf(fp, "# index i j k x(A) y(A) z(A) charge(e) energy(kT)\n");
    const long n = c->grid_n;
    double total = 0.0, energy = 0.0;
    for (size_t k = 0; k < c->count; ++k) {
        const long w = c->point[k];
        fprintf(fp, "%7zu %5ld %5ld %5ld %10.4f %10.4f %10.4f %15.7e %15.7e\n", k + 1, w % n + 1,
                (w / n) % n + 1, w / (n * n) + 1, c->site[3 * k], c->site[3 * k + 1],
                c->site[3 * k + 2], c->charge[k], c->energy[k]);
        total += c->charge[k], energy += c->energy[k];
    }
    fprintf(fp, "# charges %zu, total charge = %.8e e, sum of energy = %.8e kT\n", c->count, total,
            energy);
    return atomic_file_commit(&af, err);
}

void io_fortran_g12_5(double v, char out[13]) {
    const double a = fabs(v);
    if (!isfinite(v)) {
        snprintf(out, 13, "%12s", "************");
        return;
    }
    if (a == 0.0 || (a >= 0.1 && a < 1e5)) {
        /* k digits before the point, 5 - k after; a rounding up to the next power of ten takes
           one digit fewer after the point (Fortran decides on the rounded value). */
        int k = a == 0.0 ? 1 : (int)floor(log10(a)) + 1; /* zero: Fortran's F8.4 */
        if (k < 0) k = 0;
        char text[32];
        snprintf(text, sizeof text, "%.*f", 5 - k > 0 ? 5 - k : 0, v);
        if (a != 0.0 && fabs(strtod(text, NULL)) >= pow(10.0, k) && k < 5)
            snprintf(text, sizeof text, "%.*f", 5 - k - 1 > 0 ? 5 - k - 1 : 0, v);
        if (a != 0.0 && fabs(strtod(text, NULL)) >= 1e5) goto exponent;
        if (!strchr(text, '.')) strcat(text, "."); /* F8.0 still writes the point */
        snprintf(out, 13, "%8s    ", text);
        return;
    }
exponent:;
    /* 0.ddddd E+ee: the mantissa in [0.1, 1) */
    int e = (int)floor(log10(a)) + 1;
    double m = a / pow(10.0, e);
    long digits = lround(m * 1e5);
    if (digits >= 100000) digits /= 10, ++e;
    if (digits < 10000) digits *= 10, --e;
    char text[48];
    snprintf(text, sizeof text, "%s0.%05ldE%c%02d", v < 0 ? "-" : " ", digits, e < 0 ? '-' : '+',
             abs(e) % 100);
    memcpy(out, text, 12); /* the form above is exactly 12 characters */
    out[12] = '\0';
}

int surface_charges_write_delphi(const char *path, const surface_charges *c, int format,
                                 io_error *err) {
    if (!c || (c->count > 0 && (!c->site || !c->charge || !c->energy)))
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no surface charges to write");
    if (format == SCRG_DELPHI_PDB && c->count > 0 && (!c->owner || !c->atoms))
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                       "the surface charges' atoms are needed for the PDB form");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    if (format == SCRG_DELPHI_PDB) {
        fprintf(fp, "DELPHI FORMAT PDB\nFORMAT NUMBER=2\n");
        fprintf(fp, "       bgp# atom SC   res#      pos                    scrg          surf "
                    "energy\n");
    }
    for (size_t k = 0; k < c->count; ++k) {
        const double *x = c->site + 3 * k;
        /* Fortran's i5: a number too wide for its field is written as asterisks */
        char number[16];
        if (k + 1 <= 99999)
            snprintf(number, sizeof number, "%5zu", k + 1);
        else
            snprintf(number, sizeof number, "*****");
        if (format != SCRG_DELPHI_PDB) {
            fprintf(fp, "%s%8.3f%8.3f%8.3f%8.3f\n", number, x[0], x[1], x[2], c->charge[k]);
            continue;
        }
        const int owner = c->owner[k];
        const atom *a =
            owner >= 0 && (size_t)owner < c->atoms->count ? &c->atoms->atoms[owner] : NULL;
        char atom_number[16] = "     ", residue[16] = "    ";
        if (a && owner + 1 <= 99999) snprintf(atom_number, sizeof atom_number, "%5d", owner + 1);
        if (a && a->residue_number > -1000 && a->residue_number < 10000)
            snprintf(residue, sizeof residue, "%4d", a->residue_number);
        char q[13], e[13];
        io_fortran_g12_5(c->charge[k], q);
        io_fortran_g12_5(c->energy[k], e);
        fprintf(fp, "ATOM  %s%s SC   %s    %8.3f%8.3f%8.3f %s %s\n", number, atom_number, residue,
                x[0], x[1], x[2], q, e);
    }
    return atomic_file_commit(&af, err);
}
