/* dg_bench_stages: inputs and timings for the stage operations (not a test).
 *
 *   dg_bench_stages lattice IN.pqr ATOMS OUT.pqr
 *       copies of a molecule on a cubic lattice (4 A apart) until >= ATOMS atoms, as PQR
 *   dg_bench_stages pairs IN.pqr TARGETS BACKEND...
 *       the pair sums of the energies stage on each backend (cpu, cuda): the Coulombic upper
 *       triangle over the charged atoms and TARGETS surface-like points x the charged atoms;
 *       seconds per backend and the largest relative difference to the first backend */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_molecule.h"
#include "stages.h"

static int read_pqr(const char *path, molecule *mol) {
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    io_error_clear(&err);
    if (molecule_read_pqr(path, mol, &notes, &err) == 0) return 0;
    fprintf(stderr, "%s: %s\n", path, err.message);
    return -1;
}

static int lattice(const char *in, long want, const char *out) {
    molecule mol;
    if (read_pqr(in, &mol) != 0) return 1;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < mol.count; ++i) {
        const double p[3] = {mol.atoms[i].x, mol.atoms[i].y, mol.atoms[i].z};
        for (int a = 0; a < 3; ++a)
            lo[a] = fmin(lo[a], p[a]), hi[a] = fmax(hi[a], p[a]);
    }
    const long copies = (want + (long)mol.count - 1) / (long)mol.count;
    int side = 1;
    while ((long)side * side * side < copies)
        ++side;
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", out);
        molecule_free(&mol);
        return 1;
    }
    long serial = 0;
    for (long c = 0; c < copies; ++c) {
        const long cell[3] = {c % side, (c / side) % side, c / ((long)side * side)};
        double shift[3];
        for (int a = 0; a < 3; ++a)
            shift[a] = cell[a] * (hi[a] - lo[a] + 4.0) - lo[a];
        for (size_t i = 0; i < mol.count; ++i) {
            const atom *t = &mol.atoms[i];
            fprintf(f, "ATOM %7ld %-4s %-4s %6ld %9.3f %9.3f %9.3f %8.4f %7.4f\n",
                    ++serial % 100000, t->name, t->residue, c + 1, t->x + shift[0], t->y + shift[1],
                    t->z + shift[2], t->charge, t->radius);
        }
    }
    fclose(f);
    printf("lattice: %ld copies of %zu atoms (%d per axis) = %ld atoms -> %s\n", copies, mol.count,
           side, serial, out);
    molecule_free(&mol);
    return 0;
}

static int backend_of(const char *name) {
    return strcmp(name, "cuda") == 0 ? DG_BACKEND_CUDA : DG_BACKEND_CPU;
}

static int pairs(const char *in, long targets, int backends, char **names) {
    molecule mol;
    if (read_pqr(in, &mol) != 0) return 1;
    long charged = 0;
    double *xyz = malloc((mol.count + 1) * 3 * sizeof *xyz), *q = malloc((mol.count + 1) * 8);
    double *sites = malloc(((size_t)targets + 1) * 3 * sizeof *sites);
    double *first = malloc(((size_t)targets + mol.count + 1) * sizeof *first);
    double *out = malloc(((size_t)targets + mol.count + 1) * sizeof *out);
    for (size_t i = 0; i < mol.count; ++i)
        if (mol.atoms[i].charge != 0.0) {
            xyz[3 * charged] = mol.atoms[i].x, xyz[3 * charged + 1] = mol.atoms[i].y;
            xyz[3 * charged + 2] = mol.atoms[i].z, q[charged++] = mol.atoms[i].charge;
        }
    for (long k = 0; k < targets; ++k) { /* 1.5 A off an atom, along a fixed direction */
        const atom *a = &mol.atoms[(size_t)k % mol.count];
        const double t = 2.399963 * (double)k, z = 1.0 - 2.0 * ((double)(k % 97) + 0.5) / 97.0;
        const double r = sqrt(1.0 - z * z);
        sites[3 * k] = a->x + 1.5 * r * cos(t), sites[3 * k + 1] = a->y + 1.5 * r * sin(t);
        sites[3 * k + 2] = a->z + 1.5 * z;
    }
    const dg_pair_request request[2] = {{xyz, charged, xyz, q, charged, 1, 1e-6},
                                        {sites, targets, xyz, q, charged, 0, 1e-9}};
    const char *label[2] = {"coulombic (upper triangle)", "boundary points x atoms"};
    int failed = 0;
    for (int r = 0; r < 2; ++r)
        for (int b = 0; b < backends; ++b) {
            dg_options o;
            dg_default_options(&o);
            o.backend = backend_of(names[b]);
            char msg[512];
            long skipped = 0;
            double *dest = b == 0 ? first : out;
            /* a warm-up call (device context, first-touch) is not timed */
            int st = dg_stage_pair_potentials(&o, &request[r], dest, &skipped, msg, sizeof msg);
            const double t0 = omp_get_wtime();
            if (st == DG_OK)
                st = dg_stage_pair_potentials(&o, &request[r], dest, &skipped, msg, sizeof msg);
            const double seconds = omp_get_wtime() - t0;
            if (st != DG_OK) {
                printf("%-28s %-5s FAILED: %s\n", label[r], names[b], msg);
                failed = 1;
                continue;
            }
            double worst = 0.0, total = 0.0;
            for (long k = 0; k < request[r].target_count; ++k) {
                total += (r == 0 ? q[k] : 1.0) * dest[k];
                if (b > 0) worst = fmax(worst, fabs(out[k] - first[k]) / (fabs(first[k]) + 1e-3));
            }
            printf("%-28s %-5s %9ld x %8ld  %9.4f s  %8.3g pairs/s  total %.15g  rel.diff %.3g\n",
                   label[r], names[b], request[r].target_count, charged, seconds,
                   (r == 0 ? 0.5 : 1.0) * (double)request[r].target_count * (double)charged /
                       seconds,
                   total, worst);
        }
    free(xyz), free(q), free(sites), free(first), free(out);
    molecule_free(&mol);
    return failed;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "lattice") == 0)
        return lattice(argv[2], atol(argv[3]), argv[4]);
    if (argc >= 5 && strcmp(argv[1], "pairs") == 0)
        return pairs(argv[2], atol(argv[3]), argc - 4, argv + 4);
    fprintf(stderr,
            "usage: %s lattice IN.pqr ATOMS OUT.pqr\n"
            "       %s pairs IN.pqr TARGETS BACKEND... (cpu, cuda)\n",
            argv[0], argv[0]);
    return 2;
}
