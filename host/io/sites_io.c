/* Site potentials output (frc-like). */
#include <math.h>
#include <stdio.h>

#include "io_sites.h"

int sites_write(const char *path, const molecule *sites, const site_values *v, const char *title,
                io_error *err) {
    if (!sites || !v || !v->potential)
        return io_fail(err, IO_ERR_INPUT, path, 0, NULL, "no sites or no potentials to write");
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    fprintf(fp, "# site potentials written by delphi-gpu\n");
    if (title && title[0]) fprintf(fp, "# %s\n", title);
    fprintf(fp,
            "# record serial atom residue chain resnum x(A) y(A) z(A) charge(e) "
            "potential(kT/e)%s%s%s%s%s%s%s%s%s\n",
            v->reaction ? " reaction(kT/e)" : "", v->coulombic ? " coulombic(kT/e)" : "",
            v->atomic ? " atomic(kT/e)" : "", v->field ? " Ex Ey Ez (kT/e/A)" : "",
            v->salt ? " salt(M)" : "", v->debye ? " debye_fraction" : "",
            v->reaction_force ? " RFx RFy RFz (kT/A)" : "",
            v->coulombic_force ? " CFx CFy CFz (kT/A)" : "",
            v->total_force ? " TFx TFy TFz (kT/A)" : "");
    double energy = 0.0, reaction = 0.0, coulombic = 0.0;
    size_t outside = 0;
    for (size_t i = 0; i < sites->count; i++) {
        const atom *a = &sites->atoms[i];
        fprintf(fp, "%-6s %6d %-5s %-4s %c %5d %10.4f %10.4f %10.4f %9.5f %15.7e",
                a->record[0] ? a->record : "ATOM", a->serial, a->name[0] ? a->name : "-",
                a->residue[0] ? a->residue : "-", a->chain != ' ' && a->chain ? a->chain : '-',
                a->residue_number, a->x, a->y, a->z, a->charge, v->potential[i]);
        if (v->reaction) fprintf(fp, " %15.7e", v->reaction[i]);
        if (v->coulombic) fprintf(fp, " %15.7e", v->coulombic[i]);
        if (v->atomic) fprintf(fp, " %15.7e", v->atomic[i]);
        if (v->field)
            fprintf(fp, " %15.7e %15.7e %15.7e", v->field[3 * i], v->field[3 * i + 1],
                    v->field[3 * i + 2]);
        if (v->salt) fprintf(fp, " %15.7e", v->salt[i]);
        if (v->debye) fprintf(fp, " %9.6f", v->debye[i]);
        if (v->reaction_force)
            fprintf(fp, " %15.7e %15.7e %15.7e", v->reaction_force[3 * i],
                    v->reaction_force[3 * i + 1], v->reaction_force[3 * i + 2]);
        if (v->coulombic_force)
            fprintf(fp, " %15.7e %15.7e %15.7e", v->coulombic_force[3 * i],
                    v->coulombic_force[3 * i + 1], v->coulombic_force[3 * i + 2]);
        if (v->total_force)
            fprintf(fp, " %15.7e %15.7e %15.7e", v->total_force[3 * i], v->total_force[3 * i + 1],
                    v->total_force[3 * i + 2]);
        fputc('\n', fp);
        if (isfinite(v->potential[i]))
            energy += 0.5 * a->charge * v->potential[i];
        else
            ++outside; /* outside the grid: left out of the sum */
        if (v->reaction) reaction += 0.5 * a->charge * v->reaction[i];
        if (v->coulombic) coulombic += 0.5 * a->charge * v->coulombic[i];
    }
    if (v->reaction)
        fprintf(fp,
                "# sum of charge*reaction/2 = %.8e kT (with the molecule's atoms as sites: the "
                "corrected reaction-field energy)\n",
                reaction);
    if (v->coulombic)
        fprintf(fp,
                "# sum of charge*coulombic/2 = %.8e kT (with the molecule's atoms as sites: the "
                "Coulombic energy)\n",
                coulombic);
    fprintf(fp, "# sites %zu, sum of charge*potential/2 = %.8e kT", sites->count, energy);
    if (outside) fprintf(fp, " (%zu sites outside the grid left out)", outside);
    fputc('\n', fp);
    return atomic_file_commit(&af, err);
}
