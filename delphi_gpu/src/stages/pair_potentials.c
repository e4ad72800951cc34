/* Coulomb sums (potentials and fields) at target points (see stages.h): the host implementations
 * and the dispatch to the solve's backend. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../solver_internal.h"
#include "../stages.h"

/* The host sums run a block of PAIR_LANES targets at a time through the sources: lane l holds
 * target k0 + l and adds its terms in source index order, so vector lanes (SIMD across targets)
 * give every sum the order and the IEEE sqrt and division of the plain loop, bit for bit.  The
 * sources are copied once into separate x, y, z, q arrays; a task takes PAIR_TILE targets and
 * walks the sources in chunks of PAIR_CHUNK, so a chunk stays in the core's cache while every
 * block of the tile passes over it.  This file is built with -fno-math-errno and
 * -fno-trapping-math (sqrt and the division then vectorise; neither changes a result) and with
 * -ffp-contract=off (no fused multiply-add: the distance is rounded as the CUDA kernel rounds
 * it). */
enum { PAIR_LANES = 8, PAIR_TILE = 64, PAIR_CHUNK = 1024 };

typedef struct pair_sources {
    double *x, *y, *z, *q;
} pair_sources;

/* x86-64 builds with GCC carry an AVX2 variant of the lane loops next to the baseline one,
 * chosen at load time (the results are the same: only the vector width differs).  Not under
 * ThreadSanitizer, whose instrumented library crashes resolving the clones' ifunc at load. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    !defined(__SANITIZE_THREAD__)
#define DG_PAIR_CLONES __attribute__((target_clones("avx2", "default"), noinline))
#else
#define DG_PAIR_CLONES
#endif

/* sum[l] += q_i / r over sources i in [from, to) for the targets (tx, ty, tz)[l]; pairs with
 * r < min_distance add nothing and are counted in left[l]. */
DG_PAIR_CLONES static void lanes_full(const double *tx, const double *ty, const double *tz,
                                      const pair_sources *s, long from, long to,
                                      double min_distance, double *restrict sum,
                                      long *restrict left) {
    double acc[PAIR_LANES], close[PAIR_LANES]; /* close: a count, exact in double */
    for (int l = 0; l < PAIR_LANES; ++l)
        acc[l] = sum[l], close[l] = 0.0;
    for (long i = from; i < to; ++i) {
        const double x = s->x[i], y = s->y[i], z = s->z[i], q = s->q[i];
#pragma omp simd
        for (int l = 0; l < PAIR_LANES; ++l) {
            const double dx = tx[l] - x, dy = ty[l] - y, dz = tz[l] - z;
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            const double term = q / d;
            const int near = d < min_distance;
            acc[l] += near ? 0.0 : term;
            close[l] += near ? 1.0 : 0.0;
        }
    }
    for (int l = 0; l < PAIR_LANES; ++l)
        sum[l] = acc[l], left[l] += (long)close[l];
}

/* The same where lane l takes only the sources i > k0 + l (the upper triangle's first sources:
 * a left-out lane adds +0.0, which leaves its sum unchanged, and counts nothing). */
DG_PAIR_CLONES static void lanes_triangle(const double *tx, const double *ty, const double *tz,
                                          const pair_sources *s, long from, long to, long k0,
                                          double min_distance, double *restrict sum,
                                          long *restrict left) {
    double acc[PAIR_LANES], close[PAIR_LANES]; /* close: a count, exact in double */
    for (int l = 0; l < PAIR_LANES; ++l)
        acc[l] = sum[l], close[l] = 0.0;
    for (long i = from; i < to; ++i) {
        const double x = s->x[i], y = s->y[i], z = s->z[i], q = s->q[i];
#pragma omp simd
        for (int l = 0; l < PAIR_LANES; ++l) {
            const double dx = tx[l] - x, dy = ty[l] - y, dz = tz[l] - z;
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            const double term = q / d;
            const int taken = i > k0 + l;
            const int near = d < min_distance;
            acc[l] += taken && !near ? term : 0.0;
            close[l] += taken && near ? 1.0 : 0.0;
        }
    }
    for (int l = 0; l < PAIR_LANES; ++l)
        sum[l] = acc[l], left[l] += (long)close[l];
}

/* Targets k0 .. k0 + count - 1 (count <= PAIR_TILE) into out; returns the pairs left out. */
static long pair_tile(const dg_pair_request *r, const pair_sources *s, long k0, long count,
                      double *out) {
    double tx[PAIR_TILE], ty[PAIR_TILE], tz[PAIR_TILE], sum[PAIR_TILE];
    long left[PAIR_TILE];
    for (long l = 0; l < PAIR_TILE; ++l) {
        /* lanes past the last target repeat it; their results are dropped */
        const double *t = r->targets + 3 * (k0 + (l < count ? l : count - 1));
        tx[l] = t[0], ty[l] = t[1], tz[l] = t[2], sum[l] = 0.0, left[l] = 0;
    }
    const long first = r->upper_triangle ? k0 + 1 : 0;
    for (long c0 = first; c0 < r->source_count; c0 += PAIR_CHUNK) {
        const long c1 = c0 + PAIR_CHUNK < r->source_count ? c0 + PAIR_CHUNK : r->source_count;
        for (long b = 0; b < count; b += PAIR_LANES) {
            long from = c0;
            if (r->upper_triangle) {
                /* block b's lanes need i > k0 + b + l: below k0 + b + PAIR_LANES per lane */
                const long kb = k0 + b, full = kb + PAIR_LANES;
                if (from < kb + 1) from = kb + 1;
                const long split = full < c1 ? full : c1;
                if (from < split) {
                    lanes_triangle(tx + b, ty + b, tz + b, s, from, split, kb, r->min_distance,
                                   sum + b, left + b);
                    from = split;
                }
            }
            if (from < c1)
                lanes_full(tx + b, ty + b, tz + b, s, from, c1, r->min_distance, sum + b, left + b);
        }
    }
    long left_out = 0;
    for (long l = 0; l < count; ++l)
        out[k0 + l] = sum[l], left_out += left[l];
    return left_out;
}

/* The plain loop: a fallback when the source copy cannot be allocated. */
static long pair_plain(const dg_pair_request *r, long k, double *out) {
    const double *t = r->targets + 3 * k;
    double sum = 0.0;
    long left_out = 0;
    for (long i = r->upper_triangle ? k + 1 : 0; i < r->source_count; ++i) {
        const double *p = r->sources + 3 * i;
        const double dx = t[0] - p[0], dy = t[1] - p[1], dz = t[2] - p[2];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d < r->min_distance) {
            ++left_out;
            continue;
        }
        sum += r->charges[i] / d;
    }
    out[k] = sum;
    return left_out;
}

/* Either sum over the targets in tiles of PAIR_TILE on the threads (the sources copied once into
 * x, y, z, q arrays), or target by target with the plain loop when that copy cannot be made.
 * The upper triangle's tiles shrink along the targets: dynamic, one tile per task. */
typedef long (*pair_tile_fn)(const dg_pair_request *r, const pair_sources *s, long k0, long count,
                             double *out);
typedef long (*pair_plain_fn)(const dg_pair_request *r, long k, double *out);

static void pair_sums_host(const dg_pair_request *r, double *out, long *skipped, int num_threads,
                           pair_tile_fn tile, pair_plain_fn plain) {
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    long left_out = 0;
    const double work = (double)r->target_count * (double)r->source_count;
    const size_t n = (size_t)r->source_count + 1;
    double *block = malloc(4 * n * sizeof *block);
    if (!block) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) reduction(+ : left_out) \
    if (work > 100000.0)
        for (long k = 0; k < r->target_count; ++k)
            left_out += plain(r, k, out);
        if (skipped) *skipped = left_out;
        return;
    }
    const pair_sources s = {block, block + n, block + 2 * n, block + 3 * n};
    for (long i = 0; i < r->source_count; ++i)
        s.x[i] = r->sources[3 * i], s.y[i] = r->sources[3 * i + 1], s.z[i] = r->sources[3 * i + 2],
        s.q[i] = r->charges[i];
    const long tiles = (r->target_count + PAIR_TILE - 1) / PAIR_TILE;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : left_out) \
    if (work > 100000.0)
    for (long t = 0; t < tiles; ++t) {
        const long k0 = t * PAIR_TILE;
        const long count =
            r->target_count - k0 < PAIR_TILE ? r->target_count - k0 : (long)PAIR_TILE;
        left_out += tile(r, &s, k0, count, out);
    }
    free(block);
    if (skipped) *skipped = left_out;
}

void dg_pair_potentials_host(const dg_pair_request *r, double *out, long *skipped,
                             int num_threads) {
    pair_sums_host(r, out, skipped, num_threads, pair_tile, pair_plain);
}

/* The fields' lanes: fx[l] += w dx etc. over sources i in [from, to), w = q_i / (r r r); a pair
 * with r < min_distance adds +0.0 (as the CUDA kernel adds it: the same bits, zeros' signs
 * included) and is counted in left[l]. */
DG_PAIR_CLONES static void lanes_field(const double *tx, const double *ty, const double *tz,
                                       const pair_sources *s, long from, long to,
                                       double min_distance, double *restrict f,
                                       long *restrict left) {
    double ax[PAIR_LANES], ay[PAIR_LANES], az[PAIR_LANES], close[PAIR_LANES];
    for (int l = 0; l < PAIR_LANES; ++l)
        ax[l] = f[3 * l], ay[l] = f[3 * l + 1], az[l] = f[3 * l + 2], close[l] = 0.0;
    for (long i = from; i < to; ++i) {
        const double x = s->x[i], y = s->y[i], z = s->z[i], q = s->q[i];
#pragma omp simd
        for (int l = 0; l < PAIR_LANES; ++l) {
            const double dx = tx[l] - x, dy = ty[l] - y, dz = tz[l] - z;
            const double d = sqrt(dx * dx + dy * dy + dz * dz);
            const double w = q / (d * d * d);
            const int near = d < min_distance;
            ax[l] += near ? 0.0 : w * dx;
            ay[l] += near ? 0.0 : w * dy;
            az[l] += near ? 0.0 : w * dz;
            close[l] += near ? 1.0 : 0.0;
        }
    }
    for (int l = 0; l < PAIR_LANES; ++l)
        f[3 * l] = ax[l], f[3 * l + 1] = ay[l], f[3 * l + 2] = az[l], left[l] += (long)close[l];
}

/* The fields at targets k0 .. k0 + count - 1 (count <= PAIR_TILE); returns the pairs left out. */
static long field_tile(const dg_pair_request *r, const pair_sources *s, long k0, long count,
                       double *out) {
    double tx[PAIR_TILE], ty[PAIR_TILE], tz[PAIR_TILE], f[3 * PAIR_TILE];
    long left[PAIR_TILE];
    for (long l = 0; l < PAIR_TILE; ++l) {
        const double *t = r->targets + 3 * (k0 + (l < count ? l : count - 1));
        tx[l] = t[0], ty[l] = t[1], tz[l] = t[2], left[l] = 0;
        f[3 * l] = f[3 * l + 1] = f[3 * l + 2] = 0.0;
    }
    for (long c0 = 0; c0 < r->source_count; c0 += PAIR_CHUNK) {
        const long c1 = c0 + PAIR_CHUNK < r->source_count ? c0 + PAIR_CHUNK : r->source_count;
        for (long b = 0; b < count; b += PAIR_LANES)
            lanes_field(tx + b, ty + b, tz + b, s, c0, c1, r->min_distance, f + 3 * b, left + b);
    }
    long left_out = 0;
    for (long l = 0; l < count; ++l) {
        for (int a = 0; a < 3; ++a)
            out[3 * (k0 + l) + a] = f[3 * l + a];
        left_out += left[l];
    }
    return left_out;
}

/* The plain loop of the fields: a fallback when the source copy cannot be allocated. */
static long field_plain(const dg_pair_request *r, long k, double *out) {
    const double *t = r->targets + 3 * k;
    double fx = 0.0, fy = 0.0, fz = 0.0;
    long left_out = 0;
    for (long i = 0; i < r->source_count; ++i) {
        const double *p = r->sources + 3 * i;
        const double dx = t[0] - p[0], dy = t[1] - p[1], dz = t[2] - p[2];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        const double w = r->charges[i] / (d * d * d);
        const int near = d < r->min_distance;
        fx += near ? 0.0 : w * dx, fy += near ? 0.0 : w * dy, fz += near ? 0.0 : w * dz;
        left_out += near;
    }
    out[3 * k] = fx, out[3 * k + 1] = fy, out[3 * k + 2] = fz;
    return left_out;
}

void dg_pair_fields_host(const dg_pair_request *r, double *out, long *skipped, int num_threads) {
    pair_sums_host(r, out, skipped, num_threads, field_tile, field_plain);
}

static int reject(char *message, size_t size, int status, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
    return status;
}

static int validate(const dg_pair_request *r, char *message, size_t size) {
    if (r->target_count < 0 || r->source_count < 0)
        return reject(message, size, DG_ERR_COUNT_MISMATCH, "target or source count is negative");
    if ((r->target_count > 0 && !r->targets) ||
        (r->source_count > 0 && (!r->sources || !r->charges)))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "targets, sources or charges is NULL");
    if (r->upper_triangle && r->target_count != r->source_count)
        return reject(message, size, DG_ERR_COUNT_MISMATCH,
                      "upper_triangle needs as many targets as sources");
    if (!(r->min_distance >= 0.0) || !isfinite(r->min_distance))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT,
                      "min_distance must be finite and >= 0");
    for (long i = 0; i < r->source_count; ++i)
        if (!isfinite(r->charges[i]) || !isfinite(r->sources[3 * i]) ||
            !isfinite(r->sources[3 * i + 1]) || !isfinite(r->sources[3 * i + 2])) {
            if (message && size)
                snprintf(message, size, "source %ld: position or charge is NaN or Inf", i);
            return DG_ERR_NONFINITE_INPUT;
        }
    for (long k = 0; k < r->target_count; ++k)
        if (!isfinite(r->targets[3 * k]) || !isfinite(r->targets[3 * k + 1]) ||
            !isfinite(r->targets[3 * k + 2])) {
            if (message && size) snprintf(message, size, "target %ld: position is NaN or Inf", k);
            return DG_ERR_NONFINITE_INPUT;
        }
    return DG_OK;
}

/* Run the request on a created solver's backend. */
static int run_on(dg_solver s, const dg_pair_request *request, double *out, long *skipped,
                  char *message, size_t size) {
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(s, &ops, &state);
    if (!ops) return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    dg_error err = {0};
    long left_out = 0;
    const int st = ops->pair_potentials(state, request, out, &left_out, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    if (skipped) *skipped = left_out;
    return st;
}

static int check(const dg_pair_request *request, double *out, char *message, size_t size) {
    if (!request || (request->target_count > 0 && !out))
        return reject(message, size, DG_ERR_INVALID_ARGUMENT, "request or out is NULL");
    return validate(request, message, size);
}

int dg_stage_pair_potentials(const dg_options *options, const dg_pair_request *request, double *out,
                             long *skipped, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    int st = check(request, out, message, size);
    if (st != DG_OK) return st;
    dg_solver s = NULL;
    st = dg_create(&s, options);
    if (st == DG_OK)
        st = run_on(s, request, out, skipped, message, size);
    else
        snprintf(message, size, "%s", dg_last_error(s));
    dg_destroy(s);
    return st;
}

int dg_stage_pair_fields_on(dg_solver solver, const dg_pair_request *request, double *out,
                            long *skipped, char *message, size_t size) {
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    int st = check(request, out, message, size);
    if (st == DG_OK && request->upper_triangle)
        st = reject(message, size, DG_ERR_INVALID_ARGUMENT, "fields take no upper_triangle");
    if (st != DG_OK) return st;
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    if (solver) dg_solver_backend(solver, &ops, &state);
    if (solver && !ops)
        return reject(message, size, DG_ERR_STATE, "the solver was not created successfully");
    if (!ops || !ops->pair_fields) {
        dg_pair_fields_host(request, out, skipped, 0);
        return DG_OK;
    }
    dg_error err = {0};
    long left_out = 0;
    st = ops->pair_fields(state, request, out, &left_out, &err);
    if (st != DG_OK) snprintf(message, size, "%s backend: %s", ops->name, err.message);
    if (skipped) *skipped = left_out;
    return st;
}

int dg_stage_pair_potentials_on(dg_solver solver, const dg_pair_request *request, double *out,
                                long *skipped, char *message, size_t size) {
    if (!solver) {
        dg_options o;
        dg_default_options(&o);
        o.backend = DG_BACKEND_CPU;
        return dg_stage_pair_potentials(&o, request, out, skipped, message, size);
    }
    char local[256];
    if (!message || !size) message = local, size = sizeof local;
    message[0] = '\0';
    const int st = check(request, out, message, size);
    return st != DG_OK ? st : run_on(solver, request, out, skipped, message, size);
}
