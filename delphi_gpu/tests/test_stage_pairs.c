/* The pair-sum stage operation on the CPU backend against a plain serial reference: full and
 * upper-triangle sums, left-out close pairs, thread counts, and the validation of inputs; and
 * bit for bit against the in-order loop the CUDA kernel runs (the host sums are vectorised
 * across targets, in tiles and source chunks: sizes around those are tried); the field sums
 * likewise against their in-order loop (the CUDA kernel's), and two charges' field analytically. */
#include "stages.h"
#include "test_util.h"

static double uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

/* out[k] = sum_i q_i / r_ki, written as plainly as possible. */
static void reference(const dg_pair_request *r, double *out, long *skipped) {
    *skipped = 0;
    for (long k = 0; k < r->target_count; ++k) {
        out[k] = 0.0;
        for (long i = 0; i < r->source_count; ++i) {
            if (r->upper_triangle && i <= k) continue;
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a)
                d2 += pow(r->targets[3 * k + a] - r->sources[3 * i + a], 2);
            if (sqrt(d2) < r->min_distance) {
                ++*skipped;
                continue;
            }
            out[k] += r->charges[i] / sqrt(d2);
        }
    }
}

static void compare(const char *what, const dg_pair_request *r, int threads) {
    double *want = malloc((size_t)r->target_count * sizeof *want);
    double *got = malloc((size_t)r->target_count * sizeof *got);
    long want_skipped = 0, got_skipped = -1;
    reference(r, want, &want_skipped);
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    o.num_threads = threads;
    char msg[256];
    const int st = dg_stage_pair_potentials(&o, r, got, &got_skipped, msg, sizeof msg);
    CHECK(st == DG_OK, "%s: %s", what, msg);
    CHECK(got_skipped == want_skipped, "%s: %ld pairs left out, want %ld", what, got_skipped,
          want_skipped);
    double worst = 0.0;
    for (long k = 0; k < r->target_count; ++k)
        worst = fmax(worst, fabs(got[k] - want[k]) / fmax(1e-300, fabs(want[k]) + 1e-3));
    CHECK(worst <= 1e-13, "%s (%d threads): relative difference %.3g", what, threads, worst);
    free(want), free(got);
}

/* The CUDA kernel's expression in its order (this file is built without FMA contraction). */
static void in_order(const dg_pair_request *r, double *out, long *skipped) {
    *skipped = 0;
    for (long k = 0; k < r->target_count; ++k) {
        const double *t = r->targets + 3 * k;
        double sum = 0.0;
        for (long i = r->upper_triangle ? k + 1 : 0; i < r->source_count; ++i) {
            const double *p = r->sources + 3 * i;
            const double dx = t[0] - p[0], dy = t[1] - p[1], dz = t[2] - p[2];
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            if (d < r->min_distance) {
                ++*skipped;
                continue;
            }
            sum += r->charges[i] / d;
        }
        out[k] = sum;
    }
}

/* Bitwise agreement with in_order for targets x sources around the lanes (8), the tile (64)
 * and the source chunk (1024), with close pairs in the first and last lanes of a tile. */
/* The fields as the CUDA kernel computes them, in its order: a left-out pair adds +0.0. */
static void fields_in_order(const dg_pair_request *r, double *out, long *skipped) {
    *skipped = 0;
    for (long k = 0; k < r->target_count; ++k) {
        const double *t = r->targets + 3 * k;
        double f[3] = {0.0, 0.0, 0.0};
        for (long i = 0; i < r->source_count; ++i) {
            const double *p = r->sources + 3 * i;
            const double dx = t[0] - p[0], dy = t[1] - p[1], dz = t[2] - p[2];
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            const double w = r->charges[i] / (d * d * d);
            const int near = d < r->min_distance;
            f[0] += near ? 0.0 : w * dx, f[1] += near ? 0.0 : w * dy, f[2] += near ? 0.0 : w * dz;
            *skipped += near;
        }
        memcpy(out + 3 * k, f, sizeof f);
    }
}

static void bitwise(void) {
    const long sizes[][2] = {{1, 1}, {7, 9}, {63, 1025}, {65, 1023}, {130, 2500}, {1100, 1100}};
    unsigned seed = 4242u;
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
        const long targets = sizes[c][0], sources = sizes[c][1];
        double *xyz = malloc((size_t)(3 * sources) * sizeof *xyz);
        double *q = malloc((size_t)sources * sizeof *q);
        double *t = malloc((size_t)(3 * targets) * sizeof *t);
        for (long i = 0; i < sources; ++i) {
            for (int a = 0; a < 3; ++a)
                xyz[3 * i + a] = 40.0 * uniform(&seed);
            q[i] = uniform(&seed) - 0.5;
        }
        for (long k = 0; k < targets; ++k)
            for (int a = 0; a < 3; ++a)
                t[3 * k + a] = 44.0 * uniform(&seed) - 2.0;
        for (long k = 0; k < targets; k += 63) /* targets on sources */
            for (int a = 0; a < 3; ++a)
                t[3 * k + a] = xyz[3 * ((5 * k) % sources) + a];
        if (sources > 70) /* a coincident pair of sources across a lane boundary */
            for (int a = 0; a < 3; ++a)
                xyz[3 * 64 + a] = xyz[3 * 7 + a];
        const dg_pair_request field = {t, targets, xyz, q, sources, 0, 1e-9};
        const dg_pair_request self = {xyz, sources, xyz, q, sources, 1, 1e-6};
        const dg_pair_request *cases[2] = {&field, &self};
        for (int which = 0; which < 2; ++which) {
            const dg_pair_request *r = cases[which];
            double *want = malloc((size_t)r->target_count * sizeof *want);
            double *got = malloc((size_t)r->target_count * sizeof *got);
            long want_skipped = 0;
            in_order(r, want, &want_skipped);
            for (int threads = 1; threads <= 2; ++threads) {
                long got_skipped = -1;
                dg_pair_potentials_host(r, got, &got_skipped, threads);
                long differ = 0;
                for (long k = 0; k < r->target_count; ++k)
                    differ += memcmp(&got[k], &want[k], sizeof got[k]) != 0;
                CHECK(differ == 0 && got_skipped == want_skipped,
                      "%s %ld x %ld (%d threads): %ld sums not bitwise equal, %ld vs %ld left out",
                      which ? "upper triangle" : "targets x sources", r->target_count,
                      r->source_count, threads, differ, got_skipped, want_skipped);
            }
            free(want), free(got);
        }
        /* The fields at the targets, by the vector lanes and by the solver-less stage call. */
        double *want = malloc((size_t)(3 * targets) * sizeof *want);
        double *got = malloc((size_t)(3 * targets) * sizeof *got);
        long want_skipped = 0;
        fields_in_order(&field, want, &want_skipped);
        for (int threads = 1; threads <= 2; ++threads) {
            long got_skipped = -1;
            dg_pair_fields_host(&field, got, &got_skipped, threads);
            long differ = 0;
            for (long k = 0; k < 3 * targets; ++k)
                differ += memcmp(&got[k], &want[k], sizeof got[k]) != 0;
            CHECK(differ == 0 && got_skipped == want_skipped,
                  "fields %ld x %ld (%d threads): %ld components not bitwise equal, %ld vs %ld "
                  "left out",
                  targets, sources, threads, differ, got_skipped, want_skipped);
        }
        char msg[256];
        long got_skipped = -1;
        CHECK(dg_stage_pair_fields_on(NULL, &field, got, &got_skipped, msg, sizeof msg) == DG_OK &&
                  memcmp(got, want, (size_t)(3 * targets) * sizeof *got) == 0,
              "fields through dg_stage_pair_fields_on: %s", msg);
        free(want), free(got);
        free(xyz), free(q), free(t);
    }
}

int main(void) {
    bitwise();
    enum { atoms = 700, points = 900 };
    double *xyz = malloc(3 * atoms * sizeof *xyz), *q = malloc(atoms * sizeof *q);
    double *sites = malloc(3 * points * sizeof *sites);
    unsigned seed = 12345u;
    for (int i = 0; i < atoms; ++i) {
        for (int a = 0; a < 3; ++a)
            xyz[3 * i + a] = 30.0 * uniform(&seed);
        q[i] = uniform(&seed) - 0.5;
    }
    for (int k = 0; k < points; ++k)
        for (int a = 0; a < 3; ++a)
            sites[3 * k + a] = 34.0 * uniform(&seed) - 2.0;
    /* Coincident pairs: atom 5 on atom 3, site 7 on atom 11. */
    for (int a = 0; a < 3; ++a)
        xyz[15 + a] = xyz[9 + a], sites[21 + a] = xyz[33 + a];
    const dg_pair_request self = {xyz, atoms, xyz, q, atoms, 1, 1e-6};
    const dg_pair_request field = {sites, points, xyz, q, atoms, 0, 1e-9};
    for (int threads = 1; threads <= 3; threads += 2) {
        compare("upper triangle", &self, threads);
        compare("boundary x atoms", &field, threads);
    }
    /* One pair of the triangle and one site on an atom are left out. */
    double *out = malloc(points * sizeof *out);
    long skipped = -1;
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU;
    char msg[256];
    CHECK(dg_stage_pair_potentials(&o, &self, out, &skipped, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(skipped == 1, "%ld coincident pairs, want 1", skipped);
    CHECK(dg_stage_pair_potentials(&o, &field, out, &skipped, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(skipped == 1, "%ld sites on atoms, want 1", skipped);
    /* Two unit charges 2 A apart: 1/2 at each other. */
    const double two[6] = {0, 0, 0, 2, 0, 0}, unit[2] = {1, 1};
    const dg_pair_request pair = {two, 2, two, unit, 2, 0, 1e-6};
    CHECK(dg_stage_pair_potentials(&o, &pair, out, &skipped, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(out[0] == 0.5 && out[1] == 0.5 && skipped == 2, "%g %g %ld", out[0], out[1], skipped);

    /* Their fields: 1/4 along the line, away from the other charge; and no upper triangle. */
    double f[6];
    CHECK(dg_stage_pair_fields_on(NULL, &pair, f, &skipped, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(f[0] == -0.25 && f[3] == 0.25 && f[1] == 0.0 && f[5] == 0.0 && skipped == 2,
          "fields %g %g %ld", f[0], f[3], skipped);
    CHECK(dg_stage_pair_fields_on(NULL, &self, out, NULL, msg, sizeof msg) ==
                  DG_ERR_INVALID_ARGUMENT &&
              strstr(msg, "upper_triangle"),
          "%s", msg);

    /* Validation names the problem. */
    dg_pair_request bad = field;
    bad.min_distance = -1.0;
    CHECK(dg_stage_pair_potentials(&o, &bad, out, NULL, msg, sizeof msg) ==
                  DG_ERR_INVALID_ARGUMENT &&
              strstr(msg, "min_distance"),
          "%s", msg);
    bad = self, bad.target_count = 3;
    CHECK(dg_stage_pair_potentials(&o, &bad, out, NULL, msg, sizeof msg) == DG_ERR_COUNT_MISMATCH,
          "%s", msg);
    bad = field, bad.charges = NULL;
    CHECK(dg_stage_pair_potentials(&o, &bad, out, NULL, msg, sizeof msg) == DG_ERR_INVALID_ARGUMENT,
          "%s", msg);
    q[4] = NAN;
    CHECK(dg_stage_pair_potentials(&o, &field, out, NULL, msg, sizeof msg) ==
                  DG_ERR_NONFINITE_INPUT &&
              strstr(msg, "source 4"),
          "%s", msg);
    free(xyz), free(q), free(sites), free(out);
    return test_finish("test_stage_pairs");
}
