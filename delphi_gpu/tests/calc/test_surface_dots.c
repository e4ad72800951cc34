/* The surface model's accessible arc dots against the definition, bit for bit: every circle
 * where two SAS spheres meet, sampled at n equal angles, each dot kept when no other neighbour
 * of the first atom covers it (surface_accessible_near, which tests every neighbour).  The
 * builder leaves out spheres and whole circles or runs of dots by bounds; this checks that it
 * keeps exactly the same dots, in the same order: dense and sparse random clusters, the dense
 * one far from the origin (large coordinates), a cubic lattice (symmetric tangencies), spheres
 * that pass exactly through a dot or hold a whole circle on their surface, and dot counts that
 * are not a multiple of the builder's runs.  With the argument "cuda" (label gpu, exit 77 without
 * a device) the dots found by the CUDA backend are compared with the host's instead.  The cell
 * lists of the dots, the atoms and the exposed atoms hold each point in its cell, in point order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "physics_constants.h"
#include "stages.h"
#include "surface.h"
#include "test_support.h"

static double uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

/* The dots by the definition, in the builder's order (atom i, its neighbours j > i in list
 * order, angles in order): [3 count] in *out. */
static int reference_dots(const surface_model *sm, int n, double **out) {
    double *cs = malloc(2 * (size_t)n * sizeof *cs);
    for (int t = 0; t < n; ++t) {
        const double angle = 2.0 * M_PI * t / n;
        cs[2 * t] = cos(angle), cs[2 * t + 1] = sin(angle);
    }
    int count = 0, capacity = 1024;
    double *dots = malloc(3 * (size_t)capacity * sizeof *dots);
    for (int i = 0; i < sm->count; ++i)
        for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1]; ++k) {
            const int j = sm->neighbors[k];
            double m[3], rho, e1[3], e2[3];
            if (j < i || !surface_circle(sm, i, j, m, &rho, e1, e2)) continue;
            for (int t = 0; t < n; ++t) {
                double p[3];
                surface_circle_point(m, rho, e1, e2, cs[2 * t], cs[2 * t + 1], p);
                if (!surface_accessible_near(sm, i, j, p)) continue;
                if (count == capacity) {
                    capacity *= 2;
                    dots = realloc(dots, 3 * (size_t)capacity * sizeof *dots);
                }
                memcpy(dots + 3 * count++, p, sizeof p);
            }
        }
    free(cs);
    *out = dots;
    return count;
}

/* A cell list holds exactly the points (of the mask) each in its cell, in point order within a
 * cell, as a serial counting sort leaves them.  Returns the number of misplaced items. */
static long check_cells(const cell_list *cl, const double *xyz, int count,
                        const unsigned char *mask) {
    long wrong = 0, listed = 0, expected = 0;
    const size_t cells = (size_t)cl->dim[0] * cl->dim[1] * cl->dim[2];
    for (int i = 0; i < count; ++i)
        expected += !mask || mask[i];
    for (size_t c = 0; c < cells; ++c)
        for (int k = cl->start[c]; k < cl->start[c + 1]; ++k) {
            const int i = cl->items[k];
            int lo[3], hi[3];
            ++listed;
            if (i < 0 || i >= count || (mask && !mask[i]) ||
                !cell_list_range(cl, xyz + 3 * (size_t)i, 0.0, lo, hi) ||
                (size_t)cell_list_index(cl, lo[0], lo[1], lo[2]) != c ||
                (k > cl->start[c] && cl->items[k - 1] >= i))
                ++wrong;
        }
    return wrong + (listed != expected) + (cl->start[0] != 0);
}

/* With "cuda": the solver whose backend finds the dots (compared with the host's). */
static dg_solver device = NULL;

/* Builds the model with n dots per circle and compares its dots with the definition's (or,
 * with a device, the device's dots and exposed atoms with the host's).  Returns the number of
 * dots. */
static int compare(const char *name, const calc_molecule *mol, int n) {
    surface_model sm;
    char msg[512];
    CHECK(surface_model_build(&sm, mol, DG_SURFACE_MOLECULAR, 1.4, n, msg, sizeof msg) == 0);
    double *want = NULL;
    int count = 0, same = 0;
    if (device) {
        surface_model on;
        const int st =
            surface_model_build_on(&on, mol, DG_SURFACE_MOLECULAR, 1.4, n, device, msg, sizeof msg);
        if (st != DG_OK) fprintf(stderr, "surface_model_build_on: %s\n", msg);
        CHECK(st == DG_OK);
        count = sm.dot_count;
        same = st == DG_OK && on.dot_count == count &&
               memcmp(on.dots, sm.dots, 3 * (size_t)count * sizeof *sm.dots) == 0 &&
               memcmp(on.exposed, sm.exposed, (size_t)sm.count) == 0;
        CHECK(same);
        if (st == DG_OK) CHECK(check_cells(&on.dot_cells, on.dots, on.dot_count, NULL) == 0);
        surface_model_free(&on);
    } else {
        count = reference_dots(&sm, n, &want);
        CHECK(sm.dot_count == count);
        same =
            sm.dot_count == count && memcmp(sm.dots, want, 3 * (size_t)count * sizeof *want) == 0;
        CHECK(same);
        CHECK(check_cells(&sm.dot_cells, sm.dots, sm.dot_count, NULL) == 0);
        CHECK(check_cells(&sm.atoms, sm.xyz, sm.count, NULL) == 0);
        CHECK(check_cells(&sm.exposed_atoms, sm.xyz, sm.count, sm.exposed) == 0);
    }
    printf("%-34s %3d dots per circle: %7d accessible dots, %s\n", name, n, count,
           same ? "the same" : "DIFFERENT");
    free(want);
    surface_model_free(&sm);
    return count;
}

/* The stage's checks and the CPU backend, which has no arc-dot operation. */
static void check_stage_errors(void) {
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    dg_solver cpu = NULL;
    CHECK(dg_create(&cpu, &o) == DG_OK);
    const double xyz[6] = {0, 0, 0, 2.5, 0, 0}, sas[2] = {3, 3}, angles[2] = {1, 0};
    const int start[3] = {0, 1, 2}, list[2] = {1, 0};
    dg_arc_dots_request r = {2, xyz, sas, start, list, 1, angles};
    int counts[2];
    double *dots = NULL;
    long total = -1;
    char msg[256];
    CHECK(dg_stage_arc_dots_on(cpu, &r, counts, &dots, &total, msg, sizeof msg) ==
          DG_ERR_UNSUPPORTED);
    CHECK(strstr(msg, "cpu backend") != NULL && dots == NULL && total == 0);
    r.circle_dots = 0;
    CHECK(dg_stage_arc_dots_on(cpu, &r, counts, &dots, &total, msg, sizeof msg) ==
          DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "circle_dots") != NULL);
    r.circle_dots = 1, r.neighbors = NULL;
    CHECK(dg_stage_arc_dots_on(cpu, &r, counts, &dots, &total, msg, sizeof msg) ==
          DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_stage_arc_dots_on(cpu, &r, NULL, &dots, &total, msg, sizeof msg) ==
          DG_ERR_INVALID_ARGUMENT);
    dg_destroy(cpu);
}

static calc_molecule cluster(int atoms, double box, const double shift[3], unsigned seed) {
    double *xyz = malloc(3 * (size_t)atoms * sizeof *xyz);
    double *q = malloc((size_t)atoms * sizeof *q), *r = malloc((size_t)atoms * sizeof *r);
    for (int i = 0; i < atoms; ++i) {
        for (int a = 0; a < 3; ++a)
            xyz[3 * i + a] = box * (uniform(&seed) - 0.5) + shift[a];
        q[i] = 0.0;
        r[i] = 1.2 + 0.8 * uniform(&seed);
    }
    calc_molecule mol = test_molecule((size_t)atoms, xyz, q, r);
    free(xyz), free(q), free(r);
    return mol;
}

int main(int argc, char **argv) {
    int backend;
    const int skip = test_backend_from_args(argc, argv, "test_surface_dots", &backend);
    if (skip) return skip;
    if (backend == DG_BACKEND_CUDA) {
        dg_options o;
        dg_default_options(&o);
        o.backend = DG_BACKEND_CUDA;
        CHECK(dg_create(&device, &o) == DG_OK);
    } else {
        check_stage_errors();
    }
    const double origin[3] = {0, 0, 0}, far[3] = {812.25, -640.5, 377.125};
    calc_molecule dense = cluster(220, 14.0, origin, 11u);
    CHECK(compare("dense cluster", &dense, SURFACE_CIRCLE_DOTS) > 1000);
    compare("dense cluster", &dense, 8);
    compare("dense cluster", &dense, 17);
    compare("dense cluster", &dense, 384);
    test_molecule_free(&dense);
    calc_molecule moved = cluster(220, 14.0, far, 11u);
    CHECK(compare("dense cluster far from the origin", &moved, SURFACE_CIRCLE_DOTS) > 1000);
    test_molecule_free(&moved);
    calc_molecule sparse = cluster(300, 30.0, origin, 29u);
    CHECK(compare("sparse cluster", &sparse, SURFACE_CIRCLE_DOTS) > 1000);
    test_molecule_free(&sparse);

    /* A cubic lattice of equal spheres: many circles meet third spheres symmetrically. */
    enum { side = 5 };
    double lattice_xyz[3 * side * side * side], lattice_q[side * side * side],
        lattice_r[side * side * side];
    for (int i = 0; i < side * side * side; ++i) {
        lattice_xyz[3 * i] = 3.0 * (i % side);
        lattice_xyz[3 * i + 1] = 3.0 * (i / side % side);
        lattice_xyz[3 * i + 2] = 3.0 * (i / (side * side));
        lattice_q[i] = 0.0, lattice_r[i] = 1.6;
    }
    calc_molecule lattice =
        test_molecule((size_t)(side * side * side), lattice_xyz, lattice_q, lattice_r);
    CHECK(compare("cubic lattice", &lattice, SURFACE_CIRCLE_DOTS) > 100);
    compare("cubic lattice", &lattice, 17);
    test_molecule_free(&lattice);

    /* Two atoms and their circle; then a third sphere through dot 5 of it exactly (as its
       radius rounds), and a fourth centred on the circle's axis with the whole circle on its
       surface: dots on the boundary of the test. */
    const double pair_xyz[6] = {0.1, -0.2, 0.3, 2.6, 0.4, -0.5}, pair_q[2] = {0, 0},
                 pair_r[2] = {1.5, 1.7};
    calc_molecule pair = test_molecule(2, pair_xyz, pair_q, pair_r);
    surface_model sm;
    char msg[512];
    CHECK(surface_model_build(&sm, &pair, DG_SURFACE_MOLECULAR, 1.4, SURFACE_CIRCLE_DOTS, msg,
                              sizeof msg) == 0);
    double m[3], rho, e1[3], e2[3], dot5[3];
    CHECK(surface_circle(&sm, 0, 1, m, &rho, e1, e2) == 1);
    const double angle = 2.0 * M_PI * 5 / SURFACE_CIRCLE_DOTS;
    surface_circle_point(m, rho, e1, e2, cos(angle), sin(angle), dot5);
    surface_model_free(&sm);
    test_molecule_free(&pair);
    const double axis[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                            e1[0] * e2[1] - e1[1] * e2[0]};
    double xyz[12] = {0.1, -0.2, 0.3, 2.6, 0.4, -0.5}, q[4] = {0, 0, 0, 0}, r[4] = {1.5, 1.7, 0, 0};
    const double offset[3] = {0.9, 2.1, -1.3};
    double through = 0.0;
    for (int a = 0; a < 3; ++a) {
        xyz[6 + a] = dot5[a] + offset[a];
        through += offset[a] * offset[a];
        xyz[9 + a] = m[a] + 0.8 * axis[a];
    }
    r[2] = sqrt(through) - 1.4;
    r[3] = sqrt(0.64 + rho * rho) - 1.4;
    calc_molecule edges = test_molecule(4, xyz, q, r);
    compare("spheres through the dots", &edges, SURFACE_CIRCLE_DOTS);
    compare("spheres through the dots", &edges, 17);
    edges.count = 3; /* without the sphere that holds the circle */
    CHECK(compare("a sphere through one dot", &edges, SURFACE_CIRCLE_DOTS) > 100);
    edges.count = 4;
    test_molecule_free(&edges);
    dg_destroy(device);
    CHECK_DONE();
}
