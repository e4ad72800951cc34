/* The library's medium maps (stages.h) against the host medium builder, byte for byte: a random
 * cluster of atoms (re-entrant pockets between them), molecular and van der Waals surfaces, with
 * the ion map.  Argument "cpu" (unit) or "cuda" (gpu: exit 77 without a device). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "medium.h"
#include "stages.h"
#include "surface.h"
#include "test_support.h"

static double uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

static void compare(const calc_molecule *mol, int kind, int n, double scale, int backend) {
    surface_model sm;
    char msg[512];
    CHECK(surface_model_build(&sm, mol, kind, 1.4, SURFACE_CIRCLE_DOTS, msg, sizeof msg) == 0);
    grid_spec g;
    memset(&g, 0, sizeof g);
    g.n = n, g.scale = scale, g.center[0] = 0.3, g.center[1] = -0.2, g.center[2] = 0.1;
    medium_maps want;
    CHECK(medium_build(&sm, &g, 1, 2.0, &want, msg, sizeof msg) == 0);
    const size_t points = grid_points(&g);
    unsigned char *face[3], *ion = malloc(points);
    for (int a = 0; a < 3; ++a)
        face[a] = malloc(points);
    dg_surface_request r;
    medium_surface_request(&sm, &g, 1, 2.0, &r);
    dg_medium_counts counts;
    dg_options o;
    dg_default_options(&o);
    o.backend = backend;
    const int st = dg_stage_medium_maps(&o, &r, face, ion, &counts, msg, sizeof msg);
    if (st != DG_OK) fprintf(stderr, "dg_stage_medium_maps: %s\n", msg);
    CHECK(st == DG_OK);
    size_t differ = 0;
    for (int a = 0; a < 3; ++a) {
        differ += (size_t)(memcmp(face[a], want.face[a], points) != 0);
        CHECK(counts.solute_faces[a] == want.solute_faces[a]);
    }
    differ += (size_t)(memcmp(ion, want.ion_accessible, points) != 0);
    CHECK(differ == 0);
    CHECK(counts.shell_points == want.shell_points);
    CHECK(counts.reentrant_points == want.reentrant_points);
    CHECK(counts.ion_accessible_points == want.ion_accessible_points);
    printf("%s surface, %d^3: %zu solute x-faces, %zu shell, %zu re-entrant, %zu ion-accessible; "
           "%zu maps differ\n",
           kind == DG_SURFACE_MOLECULAR ? "molecular" : "vdW", n, want.solute_faces[0],
           want.shell_points, want.reentrant_points, want.ion_accessible_points, differ);
    /* the SES test was exercised */
    CHECK(kind != DG_SURFACE_MOLECULAR || want.reentrant_points > 0);

    /* Surface sites of the points where the x-face map changes, against surface_project. */
    size_t count = 0;
    double *at = malloc(3 * points * sizeof *at);
    for (long w = 0; w + 1 < (long)points; ++w)
        if (want.face[0][w] != want.face[0][w + 1] && w % n != n - 1) {
            const long idx[3] = {w % n, (w / n) % n, w / ((long)n * n)};
            for (int a = 0; a < 3; ++a)
                at[3 * count + a] = grid_position(&g, a, (double)idx[a]);
            ++count;
        }
    const double reach = 3.0 / scale;
    double *sites = malloc((3 * count + 3) * sizeof *sites);
    double *expected = malloc((3 * count + 3) * sizeof *expected);
    long missed_want = 0, missed = -1;
    for (size_t k = 0; k < count; ++k)
        missed_want += surface_project(&sm, at + 3 * k, reach, expected + 3 * k) != 0;
    dg_solver solver = NULL;
    CHECK(dg_create(&solver, &o) == DG_OK);
    int *owners = malloc((count + 1) * sizeof *owners),
        *owners_host = malloc((count + 1) * sizeof *owners_host);
    const int sites_st = dg_stage_surface_sites_on(solver, &r, at, (long)count, reach, sites,
                                                   owners, &missed, msg, sizeof msg);
    if (sites_st != DG_OK) fprintf(stderr, "dg_stage_surface_sites_on: %s\n", msg);
    CHECK(sites_st == DG_OK);
    CHECK(missed == missed_want);
    CHECK(count > 100 && memcmp(sites, expected, 3 * count * sizeof *sites) == 0);
    /* The owners: the host's (the surface model's atoms in the request's order), on any backend;
       an owner's surface is at most as far from the point as any other atom's. */
    long host_missed = -1, nearest = 0;
    dg_surface_sites_host(&r, at, (long)count, reach, expected, owners_host, &host_missed, 0);
    CHECK(host_missed == missed && memcmp(owners, owners_host, count * sizeof *owners) == 0);
    for (size_t k = 0; k < count; ++k) {
        const int j = owners[k];
        if (j < 0) continue;
        const double dj =
            sqrt(pow(at[3 * k] - sm.xyz[3 * j], 2) + pow(at[3 * k + 1] - sm.xyz[3 * j + 1], 2) +
                 pow(at[3 * k + 2] - sm.xyz[3 * j + 2], 2)) -
            sm.radius[j];
        int best = 1;
        for (int i = 0; i < sm.count && best; ++i)
            best =
                sqrt(pow(at[3 * k] - sm.xyz[3 * i], 2) + pow(at[3 * k + 1] - sm.xyz[3 * i + 1], 2) +
                     pow(at[3 * k + 2] - sm.xyz[3 * i + 2], 2)) -
                    sm.radius[i] >=
                dj - 1e-12;
        nearest += best;
    }
    CHECK(nearest == (long)count - missed);
    free(owners), free(owners_host);
    printf("  %zu surface sites, %ld unprojected\n", count, missed);
    dg_destroy(solver);
    free(at), free(sites), free(expected);
    for (int a = 0; a < 3; ++a)
        free(face[a]);
    free(ion);
    medium_free(&want);
    surface_model_free(&sm);
}

int main(int argc, char **argv) {
    int backend;
    const int skip = test_backend_from_args(argc, argv, "test_stage_medium", &backend);
    if (skip) return skip;
    enum { atoms = 160 };
    double xyz[3 * atoms], q[atoms], radius[atoms];
    unsigned seed = 4242u;
    for (int i = 0; i < atoms; ++i) {
        for (int a = 0; a < 3; ++a)
            xyz[3 * i + a] = 16.0 * uniform(&seed) - 8.0;
        q[i] = uniform(&seed) - 0.5;
        radius[i] = i % 7 == 0 ? 0.0 : 1.2 + 0.8 * uniform(&seed); /* some point charges */
    }
    calc_molecule mol = test_molecule(atoms, xyz, q, radius);
    compare(&mol, DG_SURFACE_MOLECULAR, 41, 1.5, backend);
    compare(&mol, DG_SURFACE_MOLECULAR, 64, 2.5, backend);
    compare(&mol, DG_SURFACE_VDW, 41, 1.5, backend);
    test_molecule_free(&mol);
    CHECK_DONE();
}
