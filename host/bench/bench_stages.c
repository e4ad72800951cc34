/* dg_bench_stages: inputs and timings for the stage operations (not a test).
 *
 *   dg_bench_stages lattice IN.pqr ATOMS OUT.pqr
 *       copies of a molecule on a cubic lattice (4 A apart) until >= ATOMS atoms, as PQR
 *   dg_bench_stages pairs IN.pqr TARGETS BACKEND...
 *       the pair sums of the energies stage on each backend (cpu, cuda): the Coulombic upper
 *       triangle over the charged atoms and TARGETS surface-like points x the charged atoms;
 *       seconds per backend and the largest relative difference to the first backend
 *   dg_bench_stages geometry IN.pqr SCALE PERFIL [REPEATS]
 *       the host (CPU backend) geometry stages at DelPhi's grid for SCALE and PERFIL: surface
 *       model, medium maps (the calculation's host builder and the stage operation), surface
 *       sites of the points next to the dielectric boundary; wall and process CPU seconds
 *       (the best of REPEATS, default 1) and checksums of the results (unchanged by a faster
 *       implementation) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calc/grid.h"
#include "calc/medium.h"
#include "calc/surface.h"
#include "delphi_gpu/delphi_gpu_calc.h"
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

typedef struct stopwatch {
    double wall, cpu;
} stopwatch;

static stopwatch stopwatch_now(void) {
    const stopwatch s = {omp_get_wtime(), (double)clock() / CLOCKS_PER_SEC};
    return s;
}

/* Keep the best (least wall) of the repeats. */
static void stopwatch_keep(stopwatch *best, stopwatch start) {
    const stopwatch now = stopwatch_now();
    const stopwatch d = {now.wall - start.wall, now.cpu - start.cpu};
    if (best->wall <= 0.0 || d.wall < best->wall) *best = d;
}

static unsigned long long fnv1a(const unsigned char *p, size_t n, unsigned long long h) {
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int geometry(const char *in, double scale, double perfil, int repeats) {
    molecule mol;
    if (read_pqr(in, &mol) != 0) return 1;
    calc_molecule cm = {malloc((mol.count + 1) * sizeof(calc_atom)), mol.count};
    for (size_t i = 0; i < mol.count; ++i)
        cm.atoms[i] = (calc_atom){mol.atoms[i].x, mol.atoms[i].y, mol.atoms[i].z,
                                  mol.atoms[i].charge, mol.atoms[i].radius};
    dg_calc_params p;
    dg_calc_default_params(&p);
    p.scale = scale, p.perfil = perfil;
    grid_spec g;
    char msg[1024];
    if (grid_choose(&p, &cm, &g, msg, sizeof msg) != 0) {
        fprintf(stderr, "grid: %s\n", msg);
        return 1;
    }
    const size_t points = grid_points(&g);
    printf("geometry: %zu atoms, grid %d^3 (scale %g, perfil %g), %d threads\n", cm.count, g.n,
           g.scale, g.perfil, omp_get_max_threads());
    stopwatch t_surface = {0, 0}, t_medium = {0, 0}, t_stage = {0, 0}, t_sites = {0, 0};
    surface_model sm;
    medium_maps m;
    memset(&sm, 0, sizeof sm), memset(&m, 0, sizeof m);
    unsigned char *face[3] = {malloc(points), malloc(points), malloc(points)};
    unsigned long long h_medium = 0, h_stage = 0, h_sites = 0;
    long boundary = 0, missed = 0;
    double *xyz = NULL, *sites = NULL;
    for (int rep = 0; rep < repeats; ++rep) {
        surface_model_free(&sm);
        stopwatch t0 = stopwatch_now();
        if (surface_model_build(&sm, &cm, p.surface, p.probe_radius, SURFACE_CIRCLE_DOTS, msg,
                                sizeof msg) != 0) {
            fprintf(stderr, "surface: %s\n", msg);
            return 1;
        }
        stopwatch_keep(&t_surface, t0);
        medium_free(&m);
        t0 = stopwatch_now();
        if (medium_build(&sm, &g, 0, 0.0, &m, msg, sizeof msg) != 0) {
            fprintf(stderr, "medium: %s\n", msg);
            return 1;
        }
        stopwatch_keep(&t_medium, t0);
        dg_surface_request r;
        medium_surface_request(&sm, &g, 0, 0.0, &r);
        dg_medium_counts counts;
        t0 = stopwatch_now();
        dg_medium_maps_host(&r, face, NULL, &counts, 0);
        stopwatch_keep(&t_stage, t0);
        h_medium = h_stage = 1469598103934665603ull;
        for (int a = 0; a < 3; ++a)
            h_medium = fnv1a(m.face[a], points, h_medium),
            h_stage = fnv1a(face[a], points, h_stage);
        /* Points next to the dielectric boundary: solute x-face with a solvent neighbour. */
        if (!xyz) {
            const long n = g.n;
            for (int pass = 0; pass < 2; ++pass) {
                boundary = 0;
                for (long w = n * n; w < (long)points - n * n; ++w) {
                    if (!m.face[0][w] ||
                        (m.face[0][w - 1] && m.face[0][w + 1] && m.face[1][w] && m.face[1][w - n]))
                        continue;
                    if (pass)
                        for (int a = 0; a < 3; ++a)
                            xyz[3 * boundary + a] = grid_position(&g, a,
                                                                  (double)(a == 0   ? w % n
                                                                           : a == 1 ? (w / n) % n
                                                                                    : w / (n * n)));
                    ++boundary;
                }
                if (!pass) {
                    xyz = malloc(((size_t)boundary + 1) * 3 * sizeof *xyz);
                    sites = malloc(((size_t)boundary + 1) * 3 * sizeof *sites);
                }
            }
        }
        medium_surface_request(&sm, &g, 0, 0.0, &r);
        t0 = stopwatch_now();
        dg_surface_sites_host(&r, xyz, boundary, 3.0 / g.scale, sites, NULL, &missed, 0);
        stopwatch_keep(&t_sites, t0);
        h_sites = fnv1a((const unsigned char *)sites, (size_t)boundary * 3 * sizeof *sites,
                        1469598103934665603ull);
    }
    printf("surface model     %8.3f s wall %8.3f s cpu  (%d atoms, %d arc dots)\n", t_surface.wall,
           t_surface.cpu, sm.count, sm.dot_count);
    printf("medium (host)     %8.3f s wall %8.3f s cpu  (%zu shell points) maps %016llx\n",
           t_medium.wall, t_medium.cpu, m.shell_points, h_medium);
    printf("medium (stage op) %8.3f s wall %8.3f s cpu  maps %016llx%s\n", t_stage.wall,
           t_stage.cpu, h_stage, h_stage == h_medium ? "" : "  DIFFER FROM THE HOST BUILDER");
    printf("surface sites     %8.3f s wall %8.3f s cpu  (%ld points, %ld unprojected) %016llx\n",
           t_sites.wall, t_sites.cpu, boundary, missed, h_sites);
    for (int a = 0; a < 3; ++a)
        free(face[a]);
    free(xyz), free(sites), free(cm.atoms);
    medium_free(&m);
    surface_model_free(&sm);
    molecule_free(&mol);
    return h_stage == h_medium ? 0 : 1;
}

int main(int argc, char **argv) {
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "geometry") == 0)
        return geometry(argv[2], atof(argv[3]), atof(argv[4]), argc == 6 ? atoi(argv[5]) : 1);
    if (argc == 5 && strcmp(argv[1], "lattice") == 0)
        return lattice(argv[2], atol(argv[3]), argv[4]);
    if (argc >= 5 && strcmp(argv[1], "pairs") == 0)
        return pairs(argv[2], atol(argv[3]), argc - 4, argv + 4);
    fprintf(stderr,
            "usage: %s lattice IN.pqr ATOMS OUT.pqr\n"
            "       %s pairs IN.pqr TARGETS BACKEND... (cpu, cuda)\n"
            "       %s geometry IN.pqr SCALE PERFIL [REPEATS]\n",
            argv[0], argv[0], argv[0]);
    return 2;
}
