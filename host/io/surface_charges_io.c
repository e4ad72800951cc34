/* The induced surface charges output (out(scrg)). */
#include <stdio.h>

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
