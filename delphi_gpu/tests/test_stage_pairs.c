/* The pair-sum stage operation on the CPU backend against a plain serial reference: full and
 * upper-triangle sums, left-out close pairs, thread counts, and the validation of inputs. */
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

int main(void) {
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
