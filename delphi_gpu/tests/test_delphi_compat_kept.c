/* The DelPhi-convention entry points keep one solver between calls (delphi_compat.c) and set
 * DelPhi's medium up on all threads (medium_sparse_template.h, the parallel path):
 *  - a sequence of itit/nitit calls (focusing-like: two grid sizes, salt and no salt, float and
 *    double, 1 and 3 threads, and a second sphere on the same grid whose lists share no point
 *    with the first: the solver's kept per-point marks must come back all clear) gives, call by
 *    call, bit for bit the potential, iteration count, and the db/sf/qval left behind of the
 *    same call made with a fresh solver;
 *  - the kept solver serves a call with the same backend, precision and threads (reused = 1)
 *    and is replaced otherwise;
 *  - the medium's errors name the same entry with 1 and 3 threads (the parallel path hands any
 *    problem to the serial one, which names it): a repeated boundary point, a non-finite weight,
 *    three distinct salt factors.
 *  - db and qval are left multiplied by omega exactly (element by element in the REAL kind), and
 *    without salt sf1 and sf2 given as untouched zero pages (as DelPhi leaves them) stay zero;
 * Problem: a dielectric sphere (eps 2 in 80) with charges inside, salt outside (sf arrays).
 * The CPU backend; DG_TEST_BACKEND=cuda runs the calls on the GPU (scripts/device/kit.sh). */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include <sys/mman.h>

#include "delphi_compat_internal.h"
#include "delphi_gpu/delphi_compat.h"
#include "test_util.h"

typedef struct problem {
    int n, nb, nb_odd, nq, nq_odd;
    int *idpos, *iqpos;
    double *db, *qval, *sf[2], *phi, spec;
    unsigned char *idebmap;
} problem;

static int inside(int n, double radius, int x2, int y2, int z2) {
    const double c2 = n - 1, dx = x2 - c2, dy = y2 - c2, dz = z2 - c2;
    return dx * dx + dy * dy + dz * dz < 4.0 * radius * radius;
}

/* radius_share: the sphere's radius in units of n - 1; a sphere other than the usual 0.3 also
   takes other charged points, so that its boundary and charge lists share no point with it */
static void build(problem *p, int n, int salt, double radius_share) {
    memset(p, 0, sizeof *p);
    p->n = n;
    const long points = (long)n * n * n, half = (points + 1) / 2;
    p->idpos = malloc(points * sizeof *p->idpos);
    p->iqpos = malloc(points * sizeof *p->iqpos);
    p->db = malloc(6 * points * sizeof *p->db);
    p->qval = malloc(points * sizeof *p->qval);
    p->sf[0] = malloc(half * sizeof(double));
    p->sf[1] = malloc(half * sizeof(double));
    p->phi = calloc(points, sizeof *p->phi);
    p->idebmap = calloc(points, 1);
    unsigned char *kind = calloc(points, 1);
    const double radius = radius_share * (n - 1), pi = 3.14159265358979323846;
    p->spec = pow(cos(pi / (n - 1)), 2.0);
    for (int pass = 0; pass < 2; ++pass)
        for (int z = 1; z < n - 1; ++z)
            for (int y = 1; y < n - 1; ++y)
                for (int x = 1 + ((1 + y + z + pass) & 1); x < n - 1; x += 2) {
                    const long w = idx3(n, n, x, y, z);
                    const int mid[6][3] = {{2 * x - 1, 2 * y, 2 * z}, {2 * x + 1, 2 * y, 2 * z},
                                           {2 * x, 2 * y - 1, 2 * z}, {2 * x, 2 * y + 1, 2 * z},
                                           {2 * x, 2 * y, 2 * z - 1}, {2 * x, 2 * y, 2 * z + 1}};
                    double eps[6], sum = 0.0;
                    int in = 0;
                    for (int f = 0; f < 6; ++f) {
                        const int a = inside(n, radius, mid[f][0], mid[f][1], mid[f][2]);
                        in += a, eps[f] = a ? 2.0 : 80.0, sum += eps[f];
                    }
                    kind[w] = in == 6 ? 1 : in == 0 ? 0 : 2;
                    const int shift = radius_share == 0.3 ? 0 : 3;
                    if (kind[w] == 1 && (x + 2 * y + 3 * z + shift) % 7 == 0) { /* a charge */
                        p->iqpos[p->nq] = (int)(w / 2 + 1);
                        p->qval[p->nq] = (x + y) % 2 ? 0.4 : -0.3;
                        p->nq_odd += pass == 0, p->nq++;
                    }
                    if (kind[w] != 2) continue;
                    p->idpos[p->nb] = (int)(w / 2 + 1);
                    for (int f = 0; f < 6; ++f)
                        p->db[6 * p->nb + f] = eps[f] / sum - 1.0 / 6.0;
                    p->nb_odd += pass == 0, p->nb++;
                }
    p->sf[1][half - 1] = 1.0 / 6.0; /* DelPhi's sf2 has (n+1)/2 entries, the last unused */
    for (long w = 0; w < points; ++w) {
        p->sf[w & 1][w / 2] = salt && kind[w] == 0 ? 1.0 / 6.05 : 1.0 / 6.0;
        p->idebmap[w] = kind[w] == 0;
    }
    for (int z = 0; z < n; ++z) /* faces: 2/r from the centre; the interior starts at zero */
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int c = (n - 1) / 2;
                const double r = sqrt((double)(x - c) * (x - c) + (double)(y - c) * (y - c) +
                                      (double)(z - c) * (z - c));
                if (x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1)
                    p->phi[idx3(n, n, x, y, z)] = 2.0 / r;
            }
    free(kind);
}

static void release(problem *p) {
    free(p->idpos), free(p->iqpos), free(p->db), free(p->qval), free(p->sf[0]), free(p->sf[1]);
    free(p->phi), free(p->idebmap);
}

/* What one call leaves behind, in double. */
typedef struct outcome {
    int status, iterations, reused;
    long
        scaled_wrong; /* elements of db, qval (and untouched sf) not as omega scaling leaves them */
    double *phi, *db, *qval, *sf[2];
} outcome;

typedef struct call {
    int n, salt, nonlinear, is_double, threads;
    double radius; /* the sphere's radius / (n - 1); 0: 0.3 */
} call;

static double radius_of(const call *k) {
    return k->radius > 0.0 ? k->radius : 0.3;
}

/* Copy a double array into the REAL kind (or back into double). */
static void *to_real(const double *a, long count, int is_double) {
    void *out = malloc((count + 1) * (is_double ? sizeof(double) : sizeof(float)));
    for (long i = 0; i < count; ++i)
        if (is_double)
            ((double *)out)[i] = a[i];
        else
            ((float *)out)[i] = (float)a[i];
    return out;
}

static double *to_double(const void *a, long count, int is_double) {
    double *out = malloc((count + 1) * sizeof *out);
    for (long i = 0; i < count; ++i)
        out[i] = is_double ? ((const double *)a)[i] : (double)((const float *)a)[i];
    return out;
}

static outcome run(const call *k) {
    problem p;
    build(&p, k->n, k->salt || k->nonlinear, radius_of(k));
    const long points = (long)k->n * k->n * k->n, half = (points + 1) / 2;
    const int d = k->is_double;
    void *db = to_real(p.db, 6L * p.nb, d), *qval = to_real(p.qval, p.nq, d);
    const size_t es = d ? sizeof(double) : sizeof(float);
    const int untouched = !k->salt && !k->nonlinear; /* sf as fresh zero pages */
    void *sf1 = untouched ? mmap(NULL, half * es, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                          : to_real(p.sf[0], half, d);
    void *sf2 = untouched ? mmap(NULL, half * es, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                          : to_real(p.sf[1], half, d);
    if (sf1 == MAP_FAILED || sf2 == MAP_FAILED) {
        fprintf(stderr, "mmap failed\n");
        exit(1);
    }
    void *phi = to_real(p.phi, points, d);
    dg_delphi_control c;
    dg_delphi_default_control(&c);
    const char *backend = getenv("DG_TEST_BACKEND");
    c.igrid = k->n, c.nlit = 400, c.automatic = 1, c.maxc = 1e-5, c.backend = DG_BACKEND_CPU;
    if (backend && strcmp(backend, "cuda") == 0) c.backend = DG_BACKEND_CUDA;
    c.num_threads = k->threads;
    c.ionic_strength = k->salt || k->nonlinear ? 0.15 : 0.0;
    c.epsout = 80.0, c.deblen = 7.9, c.scale = 2.0, c.chi[0] = -1.0, c.chi[1] = 0.0;
    c.chi[2] = -1.0 / 6.0, c.chi[3] = 0.0, c.nonit = 2;
    dg_delphi_report r;
    outcome o;
    memset(&o, 0, sizeof o);
    if (k->nonlinear && d)
        o.status =
            dg_delphi_nitit_d(p.idpos, db, sf1, sf2, p.iqpos, qval, p.nb_odd, p.nb, p.nq_odd, p.nq,
                              p.spec, p.nb, phi, NULL, NULL, NULL, p.idebmap, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 1.0, &c, &r);
    else if (k->nonlinear)
        o.status = dg_delphi_nitit_f(p.idpos, db, sf1, sf2, p.iqpos, qval, p.nb_odd, p.nb, p.nq_odd,
                                     p.nq, (float)p.spec, p.nb, phi, NULL, NULL, NULL, p.idebmap,
                                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, 0, 1.0f, &c, &r);
    else if (d)
        o.status = dg_delphi_itit_d(p.idpos, db, sf1, sf2, p.iqpos, qval, p.nb_odd, p.nb, p.nq_odd,
                                    p.nq, p.spec, p.nb, phi, NULL, NULL, NULL, NULL, NULL, NULL,
                                    NULL, NULL, NULL, NULL, NULL, 0, NULL, &c, &r);
    else
        o.status = dg_delphi_itit_f(p.idpos, db, sf1, sf2, p.iqpos, qval, p.nb_odd, p.nb, p.nq_odd,
                                    p.nq, (float)p.spec, p.nb, phi, NULL, NULL, NULL, NULL, NULL,
                                    NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, &c, &r);
    if (o.status != DG_OK) fprintf(stderr, "call: %s\n", r.message);
    dg_delphi_timing t;
    dg_delphi_last_timing(&t);
    o.reused = t.reused, o.iterations = r.result.iterations;
    o.phi = to_double(phi, points, d), o.db = to_double(db, 6L * p.nb, d);
    o.qval = to_double(qval, p.nq, d);
    o.sf[0] = to_double(sf1, half, d), o.sf[1] = to_double(sf2, half, d);
    for (long i = 0; i < 6L * p.nb + p.nq; ++i) {
        const double before = i < 6L * p.nb ? p.db[i] : p.qval[i - 6L * p.nb];
        const double after = i < 6L * p.nb ? o.db[i] : o.qval[i - 6L * p.nb];
        const double want = d ? before * r.omega : (double)((float)before * (float)r.omega);
        o.scaled_wrong += o.status == DG_OK && after != want;
    }
    for (long h = 0; untouched && h < half; ++h)
        o.scaled_wrong += o.sf[0][h] != 0.0 || o.sf[1][h] != 0.0;
    free(db), free(qval), free(phi);
    if (untouched)
        munmap(sf1, half * es), munmap(sf2, half * es);
    else
        free(sf1), free(sf2);
    release(&p);
    return o;
}

static int same(const double *a, const double *b, long count) {
    return memcmp(a, b, count * sizeof *a) == 0;
}

static void free_outcome(outcome *o) {
    free(o->phi), free(o->db), free(o->qval), free(o->sf[0]), free(o->sf[1]);
}

/* The medium's error messages with 1 and 3 threads. */
static void check_errors(void) {
    for (int threads = 1; threads <= 3; threads += 2) {
        problem p;
        build(&p, 17, 1, 0.3);
        dg_solver s = NULL;
        dg_options o;
        dg_default_options(&o);
        o.backend = DG_BACKEND_CPU, o.num_threads = threads;
        CHECK_OK(dg_create(&s, &o), s);
        dg_sparse_medium_d m;
        memset(&m, 0, sizeof m);
        m.nx = m.ny = m.nz = p.n;
        m.index_kind = DG_INDEX_DELPHI_HALF;
        m.boundary_count_odd = p.nb_odd, m.boundary_count = p.nb;
        m.boundary_index = p.idpos, m.boundary_weights = p.db;
        m.charge_count_odd = p.nq_odd, m.charge_count = p.nq;
        m.charge_index = p.iqpos, m.charge_source = p.qval;
        m.salt_model = DG_SALT_PER_POINT;
        m.salt_factor_odd = p.sf[0], m.salt_factor_even = p.sf[1];
        CHECK(dg_set_sparse_medium_d(s, &m) == DG_OK, "%d threads: %s", threads, dg_last_error(s));

        const int kept_index = p.idpos[p.nb - 1];
        p.idpos[p.nb - 1] = p.idpos[p.nb - 2]; /* a repeated boundary point */
        char expect[160];
        snprintf(expect, sizeof expect, "boundary_index[%d]: point %d is listed twice", p.nb - 1,
                 p.idpos[p.nb - 2]);
        CHECK(dg_set_sparse_medium_d(s, &m) == DG_ERR_COUNT_MISMATCH &&
                  strstr(dg_last_error(s), expect),
              "%d threads, repeated point: %s", threads, dg_last_error(s));
        p.idpos[p.nb - 1] = kept_index;

        p.db[6 * 3 + 2] = NAN;
        CHECK(dg_set_sparse_medium_d(s, &m) == DG_ERR_NONFINITE_INPUT &&
                  strstr(dg_last_error(s), "boundary_weights[20] (point 3, face 2)"),
              "%d threads, NaN weight: %s", threads, dg_last_error(s));
        p.db[6 * 3 + 2] = 0.0;

        /* Two more factors: one in the last interior plane of colour 0, one in an early plane of
           colour 1.  The serial scan (colour 0's planes, then colour 1's) meets the first of
           them third, after 1/6.05 (outside the sphere) and 1/6 (inside). */
        const int n = p.n;
        const long late = idx3(n, n, 3, 2, n - 2), early = idx3(n, n, 3, 2, 2);
        p.sf[late & 1][late / 2] = 0.5;
        p.sf[early & 1][early / 2] = 0.25;
        CHECK(dg_set_sparse_medium_d(s, &m) == DG_ERR_UNSUPPORTED &&
                  strstr(dg_last_error(s), "(0.165289, 0.166667, 0.5)"),
              "%d threads, three salt factors: %s", threads, dg_last_error(s));
        dg_destroy(s);
        release(&p);
    }
}

int main(void) {
    const call calls[] = {
        {25, 1, 0, 0, 1, 0.0},  /* itit, salt, float, 1 thread: a new solver */
        {25, 1, 0, 0, 1, 0.0},  /* the same again: the kept solver */
        {25, 1, 0, 0, 1, 0.25}, /* same grid, another sphere: the kept solver's marks from the
                                   last medium must all be cleared (salt flags) */
        {17, 0, 0, 0, 1, 0.0},  /* a smaller grid, no salt: the kept solver, a new medium */
        {25, 0, 1, 0, 1, 0.0},  /* nitit */
        {25, 1, 0, 1, 1, 0.0},  /* double: a new solver */
        {21, 1, 0, 1, 3, 0.0},  /* 3 threads: a new solver */
        {21, 0, 1, 1, 3, 0.0},  /* nitit, double, 3 threads: kept */
    };
    const int expect_reused[] = {0, 1, 1, 1, 1, 0, 0, 1};
    const int count = (int)(sizeof calls / sizeof calls[0]);
    for (int i = 0; i < count; ++i) {
        outcome kept = run(&calls[i]);
        dg_delphi_drop_kept_solver();
        outcome fresh = run(&calls[i]);
        const call *k = &calls[i];
        const long points = (long)k->n * k->n * k->n, half = (points + 1) / 2;
        problem p;
        build(&p, k->n, k->salt || k->nonlinear, radius_of(k));
        printf("call %d (igrid %d, %s, %s, %s, %d thread(s)): %d iterations, reused %d\n", i + 1,
               k->n, k->nonlinear ? "nitit" : "itit", k->salt || k->nonlinear ? "salt" : "no salt",
               k->is_double ? "double" : "float", k->threads, kept.iterations, kept.reused);
        CHECK(kept.status == DG_OK && fresh.status == DG_OK, "call %d: status %d, %d", i + 1,
              kept.status, fresh.status);
        CHECK(kept.reused == expect_reused[i], "call %d: reused %d, expected %d", i + 1,
              kept.reused, expect_reused[i]);
        CHECK(fresh.reused == 0, "call %d after dropping the kept solver: reused", i + 1);
        CHECK(kept.iterations == fresh.iterations && kept.iterations > 0,
              "call %d: %d iterations with the kept solver, %d with a fresh one", i + 1,
              kept.iterations, fresh.iterations);
        CHECK(same(kept.phi, fresh.phi, points), "call %d: phimap differs", i + 1);
        CHECK(kept.scaled_wrong == 0 && fresh.scaled_wrong == 0,
              "call %d: %ld and %ld elements not as the omega scaling leaves them", i + 1,
              kept.scaled_wrong, fresh.scaled_wrong);
        CHECK(same(kept.db, fresh.db, 6L * p.nb) && same(kept.qval, fresh.qval, p.nq) &&
                  same(kept.sf[0], fresh.sf[0], half) && same(kept.sf[1], fresh.sf[1], half),
              "call %d: db, qval or sf differ", i + 1);
        release(&p);
        free_outcome(&kept);
        free_outcome(&fresh);
        /* the next call finds the solver of the fresh call kept */
    }
    check_errors();
    dg_delphi_drop_kept_solver();
    return test_finish("test_delphi_compat_kept");
}
