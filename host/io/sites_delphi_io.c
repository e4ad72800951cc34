/* Site potentials in DelPhi's frc layout (io_sites.h says what the file holds). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io_sites.h"

#define LINE_WIDTH 80

/* Each column: its width in the header (which decides what fits), its data width, the limit
 * the header position must not exceed for it to be written (0: always written), its label in
 * the header line and where the label starts in the column, and its word in "Data Output"
 * (DelPhi's three-column groups write theirs over one another: the last one stays). */
static const struct column_spec {
    int header_width, data_width, limit;
    const char *label;
    int label_offset;
    const char *datum;
    int datum_advances;
} columns_spec[FRC_COL_COUNT] = {
    [FRC_COL_ATOM] = {20, 20, 0, "ATOM DESCRIPTOR", 0, "ATOM ", 1},
    [FRC_COL_COORDINATES] = {30, 30, 0, "ATOM COORDINATES (X,Y,Z)", 4, "COORDINATES ", 1},
    [FRC_COL_CHARGE] = {10, 10, 0, "CHARGE", 3, "CHARGE ", 1},
    [FRC_COL_POTENTIAL] = {10, 10, 0, "GRID PT.", 2, "POTENTIALS ", 1},
    [FRC_COL_SALT] = {10, 10, 0, "SALT CON", 1, "SALT ", 1},
    [FRC_COL_REACTION] = {10, 10, 80, " REAC. PT.", 0, "REACTION ", 1},
    [FRC_COL_COULOMBIC] = {10, 10, 80, " COUL. POT", 0, "COULOMBIC ", 1},
    [FRC_COL_ATOMIC] = {10, 10, 80, "ATOM PT.", 2, "ATOMIC PT. ", 1},
    [FRC_COL_DEBYE] = {14, 10, 80, "DEBFRACTION", 3, "DEBFRACTION ", 1},
    [FRC_COL_FIELD] = {30, 30, 60, "GRID FIELDS: (Ex, Ey, Ez)", 4, "FIELDS", 0},
    [FRC_COL_REACTION_FORCE] = {30, 30, 60, "REAC. FORCE: (Rx, Ry, Rz)", 4, "RFORCE", 0},
    [FRC_COL_COULOMBIC_FORCE] = {30, 30, 60, "COUL. FORCE: (Cx, Cy, Cz)", 4, "CFORCE", 0},
    [FRC_COL_TOTAL_FORCE] = {30, 30, 60, "TOTAL FORCE: (Tx, Ty, Tz)", 4, "TFORCE", 0},
};

unsigned frc_delphi_columns(unsigned asked) {
    unsigned kept = 0;
    int j = 1; /* 1-based position in the header line, as DelPhi counts it */
    for (int c = 0; c < FRC_COL_COUNT; ++c) {
        if (!(asked & FRC_BIT(c))) continue;
        if (columns_spec[c].limit && j > columns_spec[c].limit) continue;
        kept |= FRC_BIT(c);
        j += columns_spec[c].header_width;
    }
    return kept;
}

void frc_column_names(unsigned columns, char *buf, size_t size) {
    static const char *names[FRC_COL_COUNT] = {
        "atom (a)",        "coordinates (x)", "charge (q)",          "potential (p)",
        "salt (i)",        "reaction (r)",    "Coulombic (c)",       "atomic (atpo)",
        "Debye (deb)",     "field (f)",       "reaction force (rf)", "Coulombic force (cf)",
        "total force (tf)"};
    size_t used = 0;
    if (size) buf[0] = '\0';
    for (int c = 0; c < FRC_COL_COUNT && used < size; ++c)
        if (columns & FRC_BIT(c)) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[c]);
            if (n < 0) break;
            used += (size_t)n;
        }
}

/* Copy text into line at the 1-based position pos, cut at the line's width. */
static void place(char *line, int pos, const char *text) {
    for (int k = 0; text[k] && pos + k <= LINE_WIDTH; ++k)
        line[pos - 1 + k] = text[k];
}

/* A value as Fortran's F10.4 writes it; one that does not fit in 10 characters (where Fortran
 * writes asterisks) in exponent form, still 10 characters with a leading blank.  A value the
 * grid does not give (a site outside it, a field's neighbour past a face: NaN) is written as
 * 0.0000, as stock DelPhi writes it, and counted in *zeroed. */
static void put_value_counted(FILE *fp, double v, size_t *zeroed) {
    if (!isfinite(v)) {
        v = 0.0;
        if (zeroed) ++*zeroed;
    }
    char text[64];
    int n = snprintf(text, sizeof text, "%10.4f", v);
    if (n > 10) snprintf(text, sizeof text, " %9.2e", v);
    fputs(text, fp);
}

/* The atom descriptor: name in 1-4, residue 6-8, chain 10, residue number 12-15 (left-aligned,
 * as DelPhi writes them), in a 20-character field. */
static void put_descriptor(FILE *fp, const atom *a) {
    char d[21];
    memset(d, ' ', 20);
    d[20] = '\0';
    /* upper case, as DelPhi writes the names it read */
    for (int k = 0; k < 4 && a->name[k]; ++k)
        d[k] = (char)toupper((unsigned char)a->name[k]);
    for (int k = 0; k < 3 && a->residue[k]; ++k)
        d[5 + k] = (char)toupper((unsigned char)a->residue[k]);
    if (a->chain && a->chain != ' ') d[9] = (char)toupper((unsigned char)a->chain);
    char number[16] = "";
    if (a->residue_number || a->name[0] || a->residue[0])
        snprintf(number, sizeof number, "%d", a->residue_number);
    for (int k = 0; k < 4 && number[k]; ++k)
        d[11 + k] = number[k];
    fputs(d, fp);
}

static void put_value(FILE *fp, double v) {
    put_value_counted(fp, v, NULL);
}

static void put_triple(FILE *fp, const double *v, size_t i, size_t *zeroed) {
    put_value_counted(fp, v[3 * i], zeroed);
    put_value_counted(fp, v[3 * i + 1], zeroed);
    put_value_counted(fp, v[3 * i + 2], zeroed);
}

/* A line padded with blanks to 80 characters, as DelPhi writes its header. */
static void put_padded(FILE *fp, const char *text) {
    fprintf(fp, "%-80s\n", text);
}

int sites_write_delphi(const char *path, const molecule *sites, const site_values *v,
                       unsigned columns, int format, const frc_run_info *info, size_t *zeroed,
                       io_error *err) {
    if (zeroed) *zeroed = 0;
    if (!sites || !v || !info)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no sites or no values to write");
    const double *needed[FRC_COL_COUNT] = {[FRC_COL_POTENTIAL] = v->potential,
                                           [FRC_COL_SALT] = v->salt,
                                           [FRC_COL_REACTION] = v->reaction,
                                           [FRC_COL_COULOMBIC] = v->coulombic,
                                           [FRC_COL_ATOMIC] = v->atomic,
                                           [FRC_COL_DEBYE] = v->debye,
                                           [FRC_COL_FIELD] = v->field,
                                           [FRC_COL_REACTION_FORCE] = v->reaction_force,
                                           [FRC_COL_COULOMBIC_FORCE] = v->coulombic_force,
                                           [FRC_COL_TOTAL_FORCE] = v->total_force};
    for (int c = FRC_COL_POTENTIAL; c < FRC_COL_COUNT; ++c)
        if ((columns & FRC_BIT(c)) && !needed[c])
            return io_fail(err, IO_ERR_INPUT, path, 0, NULL,
                           "the values of an asked frc column (%d) were not computed", c);
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;

    char header[LINE_WIDTH + 1], datum[LINE_WIDTH + 1];
    memset(header, ' ', LINE_WIDTH);
    memset(datum, ' ', LINE_WIDTH);
    header[LINE_WIDTH] = datum[LINE_WIDTH] = '\0';
    int j = 1, k = 1;
    for (int c = 0; c < FRC_COL_COUNT; ++c) {
        if (!(columns & FRC_BIT(c))) continue;
        const struct column_spec *spec = &columns_spec[c];
        place(header, j + spec->label_offset, spec->label);
        place(datum, k, spec->datum);
        if (spec->datum_advances) k += (int)strlen(spec->datum);
        j += spec->header_width;
    }
    size_t end = LINE_WIDTH;
    while (end > 0 && datum[end - 1] == ' ')
        --end;
    datum[end] = '\0';

    char text[256];
    put_padded(fp, " DELPHI SITE POTENTIAL FILE");
    snprintf(text, sizeof text, " grid size,percent fill: %11d %15.7f", info->grid, info->perfil);
    put_padded(fp, text);
    snprintf(text, sizeof text, " outer diel. and first one assigned : %15.7f %15.7f", info->exdi,
             info->indi);
    put_padded(fp, text);
    snprintf(text, sizeof text, " ionic strength (M): %15.9f", info->ionic_strength);
    put_padded(fp, text);
    snprintf(text, sizeof text, " ion excl., probe radii: %15.7f %15.7f %15.7f", info->ionrad,
             info->prbrad, info->prbrad);
    put_padded(fp, text);
    snprintf(text, sizeof text, " linear, nolinear iterations: %11d %11d", info->linear_iterations,
             info->nonlinear_iterations);
    put_padded(fp, text);
    snprintf(text, sizeof text, " boundary condition: %11d", info->bndcon);
    put_padded(fp, text);
    snprintf(text, sizeof text, " Data Output: %s", datum);
    put_padded(fp, text);
    snprintf(text, sizeof text, " title: %.70s", info->title ? info->title : "");
    put_padded(fp, text);
    put_padded(fp, "    ");
    put_padded(fp, "    ");
    fprintf(fp, "%s\n", header);

    /* Every site line is padded with blanks to DelPhi's 80 characters after its columns. */
    int width = 0;
    for (int c = 0; c < FRC_COL_COUNT; ++c)
        if (columns & FRC_BIT(c)) width += columns_spec[c].data_width;
    const int pad = width < LINE_WIDTH ? LINE_WIDTH - width : 0;
    double energy = 0.0, reaction = 0.0, coulombic = 0.0;
    for (size_t i = 0; i < sites->count; ++i) {
        const atom *a = &sites->atoms[i];
        const double q = a->charge;
        if (columns & FRC_BIT(FRC_COL_ATOM)) put_descriptor(fp, a);
        if (columns & FRC_BIT(FRC_COL_COORDINATES))
            put_value(fp, a->x), put_value(fp, a->y), put_value(fp, a->z);
        if (columns & FRC_BIT(FRC_COL_CHARGE)) put_value(fp, q);
        /* the computed columns, in DelPhi's order: one value, or three (x, y, z) */
        for (int c = FRC_COL_POTENTIAL; c < FRC_COL_COUNT; ++c) {
            if (!(columns & FRC_BIT(c))) continue;
            if (columns_spec[c].data_width == 30)
                put_triple(fp, needed[c], i, zeroed);
            else
                put_value_counted(fp, needed[c][i], zeroed);
        }
        /* a site outside the grid (potential NaN) adds nothing, as in DelPhi */
        if ((columns & FRC_BIT(FRC_COL_POTENTIAL)) && isfinite(v->potential[i]))
            energy += q * v->potential[i];
        if (v->reaction) reaction += q * v->reaction[i];
        if (v->coulombic) coulombic += q * v->coulombic[i];
        fprintf(fp, "%*s\n", pad, "");
    }
    const int with_reaction = (columns & FRC_BIT(FRC_COL_REACTION)) != 0;
    if (format == FRC_DELPHI_RC || format == FRC_DELPHI_R) {
        fprintf(fp, " corrected reaction field energy= %17.8f  kt\n", 0.5 * reaction);
        if (format == FRC_DELPHI_RC)
            fprintf(fp, " total coulombic energy     = %17.8f  kt\n", 0.5 * coulombic);
    } else {
        fprintf(fp, " total energy = %17.8f  kt\n",
                (columns & FRC_BIT(FRC_COL_POTENTIAL)) ? 0.5 * energy : 0.0);
        if (with_reaction)
            fprintf(fp, " corrected reaction field energy= %17.8f  kt\n", 0.5 * reaction);
    }
    if (columns & FRC_BIT(FRC_COL_ATOMIC))
        fprintf(fp,
                " Atomic potential for charged atoms is averaged over a spherical surface of "
                "less than %10.4f A\n",
                info->atompotdist);
    return atomic_file_commit(&af, err);
}
