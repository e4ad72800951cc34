/* kit_bench: times the DelPhi kit's itit call (dg_delphi_itit_f, or _d with --double) on a
 * synthetic problem of igrid^3 points, and the parts of the call.  Not a test.  One process =
 * one cold start, as in a DelPhi run; --calls K calls itit K times in it (DelPhi's focusing
 * and two-run calls), the arrays set up anew before each call (outside the timing).
 *
 *   kit_bench --igrid N [--medium born|sphere] [--salt 0|1] [--charges Q] [--double 0|1]
 *             [--backend auto|cpu|cuda] [--threads T] [--early SECONDS] [--warm 0|1]
 *             [--calls K]
 *
 * --medium born (default): a uniform dielectric, one unit source at the centre (a Born ion).
 * --medium sphere: a protein stand-in, a sphere of radius 0.3 (igrid - 1) with eps 2 inside and
 *   80 outside: its dielectric-boundary points (DelPhi's idpos/db lists, db in DelPhi's no-salt
 *   form eps_f / sum - 1/6) and Q charged points inside it (default 4000).
 * --salt 1: DelPhi's salt form (rionst = 0.15): sf1/sf2 hold 1/6 inside the sphere and at
 *   boundary points and a salt factor outside.  Without salt sf1/sf2 are passed all the same
 *   (DelPhi always passes them; the kit scales them by omega).
 * Faces hold 10/r from the centre, the interior starts at zero; DelPhi's automatic mode with
 * maxc = 1e-4 and the uniform operator's Gauss-Seidel radius as spec.
 * --early S begins the kit's warm-up (dg_delphi_begin_warm_up: CUDA's start-up, the SOR
 * kernels loaded, a float solver kept), or with --warm 0 only CUDA's start-up
 * (dg_begin_cuda_start), and then sleeps S seconds, standing in for DelPhi's own set-up before
 * its first itit call (the kit's library does the former when it is loaded with
 * DELPHI_GPU_EARLY_START=1).
 *
 * Prints one line per call:
 *   kit_bench igrid=N medium=M salt=S real=R backend=B call=K iterations=I call_s=... loop_s=...
 *   beyond_loop_s=... check=... handle=... prepare=... upload=... check_phi=... load=...
 *   spectral=... store=... finish=... release=... scaling=... scaling_late=... reused=0|1
 * where beyond_loop_s is the call's wall time minus its iteration loop (the kit's own cost) and
 * the parts are those of dg_delphi_timing (delphi_compat_internal.h), in seconds. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delphi_compat_internal.h"
#include "delphi_gpu/delphi_compat.h"
#include "delphi_gpu/delphi_gpu.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse_backend(const char *text) {
    if (strcmp(text, "cpu") == 0) return DG_BACKEND_CPU;
    if (strcmp(text, "cuda") == 0) return DG_BACKEND_CUDA;
    if (strcmp(text, "auto") == 0) return DG_BACKEND_AUTO;
    fprintf(stderr, "kit_bench: --backend %s is not auto, cpu or cuda\n", text);
    exit(2);
}

/* The problem in DelPhi's form, in double (converted to the REAL kind per call). */
typedef struct problem {
    int n;
    size_t points, half;
    double spec;
    int nb, nb_odd, nq, nq_odd;
    int *idpos, *iqpos;
    double *db, *qval, *sf[2], *phimap;
} problem;

/* 0-based full index of the centre and the sphere's test at doubled coordinates (midpoints). */
static int inside(const problem *p, double radius, int x2, int y2, int z2) {
    const double c2 = (double)(p->n - 1), dx = x2 - c2, dy = y2 - c2, dz = z2 - c2;
    return dx * dx + dy * dy + dz * dz < 4.0 * radius * radius;
}

/* DelPhi's 1-based half-index of the 0-based full index w (odd DelPhi points: w even). */
static int half_index(size_t w) {
    return (int)(w / 2 + 1);
}

static int build(problem *p, int n, int sphere, int salt, int charges) {
    memset(p, 0, sizeof *p);
    p->n = n;
    p->points = (size_t)n * n * n;
    p->half = (p->points + 1) / 2;
    const double pi = 3.14159265358979323846;
    p->spec = pow(cos(pi / (n - 1)), 2.0); /* Gauss-Seidel radius, uniform operator */
    p->phimap = calloc(p->points, sizeof *p->phimap);
    p->sf[0] = malloc(p->half * sizeof(double));
    p->sf[1] = malloc(p->half * sizeof(double));
    unsigned char *kind = calloc(p->points, 1); /* 1 inside, 2 boundary */
    if (!p->phimap || !p->sf[0] || !p->sf[1] || !kind) return 1;
    const int c = (n - 1) / 2;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                size_t i = ((size_t)z * n + y) * n + x;
                int face = x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
                double r = sqrt((double)(x - c) * (x - c) + (double)(y - c) * (y - c) +
                                (double)(z - c) * (z - c));
                p->phimap[i] = face ? 10.0 / r : 0.0;
            }
    const double radius = 0.3 * (n - 1);
    const double eps_in = 2.0, eps_out = 80.0, salt_factor = 1.0 / (6.0 + 0.05);
    int capacity = 1024;
    p->idpos = malloc((size_t)capacity * sizeof *p->idpos);
    p->db = malloc((size_t)capacity * 6 * sizeof *p->db);
    if (!p->idpos || !p->db) return 1;
    for (int pass = 0; pass < 2; ++pass) /* DelPhi's order: odd points (w even) first */
        for (int z = 1; sphere && z < n - 1; ++z)
            for (int y = 1; y < n - 1; ++y)
                for (int x = 1 + ((1 + y + z + pass) & 1); x < n - 1; x += 2) {
                    const size_t w = ((size_t)z * n + y) * n + x;
                    const int mid[6][3] = {{2 * x - 1, 2 * y, 2 * z}, {2 * x + 1, 2 * y, 2 * z},
                                           {2 * x, 2 * y - 1, 2 * z}, {2 * x, 2 * y + 1, 2 * z},
                                           {2 * x, 2 * y, 2 * z - 1}, {2 * x, 2 * y, 2 * z + 1}};
                    double eps[6], sum = 0.0;
                    int in = 0;
                    for (int f = 0; f < 6; ++f) {
                        int a = inside(p, radius, mid[f][0], mid[f][1], mid[f][2]);
                        in += a;
                        eps[f] = a ? eps_in : eps_out;
                        sum += eps[f];
                    }
                    kind[w] = in == 6 ? 1 : in == 0 ? 0 : 2;
                    if (kind[w] != 2) continue;
                    if (p->nb == capacity) {
                        capacity *= 2;
                        p->idpos = realloc(p->idpos, (size_t)capacity * sizeof *p->idpos);
                        p->db = realloc(p->db, (size_t)capacity * 6 * sizeof *p->db);
                        if (!p->idpos || !p->db) return 1;
                    }
                    p->idpos[p->nb] = half_index(w);
                    for (int f = 0; f < 6; ++f)
                        p->db[6 * p->nb + f] = eps[f] / sum - 1.0 / 6.0;
                    p->nb++;
                    if (pass == 0) p->nb_odd = p->nb;
                }
    for (size_t w = 0; w < p->points; ++w) /* sf1 at even 0-based w, sf2 at odd */
        p->sf[w & 1][w / 2] = salt && sphere && kind[w] == 0 ? salt_factor : 1.0 / 6.0;
    if (salt && !sphere)
        for (size_t h = 0; h < p->half; ++h)
            p->sf[0][h] = p->sf[1][h] = salt_factor;
    /* Charges: the centre (Born), or points spread inside the sphere (fixed sequence). */
    if (!sphere) charges = 1;
    p->iqpos = malloc((size_t)charges * sizeof *p->iqpos);
    p->qval = malloc((size_t)charges * sizeof *p->qval);
    size_t *chosen = malloc((size_t)charges * sizeof *chosen);
    if (!p->iqpos || !p->qval || !chosen) return 1;
    size_t available = 0; /* interior points inside the sphere: at most half of them charged */
    for (size_t w = 0; w < p->points; ++w)
        available += kind[w] == 1;
    if (sphere && (size_t)charges > available / 2) charges = (int)(available / 2);
    unsigned long long state = 12345;
    int found = 0;
    if (!sphere) chosen[found++] = ((size_t)c * n + c) * n + c;
    while (found < charges) {
        int xyz[3];
        for (int a = 0; a < 3; ++a) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            xyz[a] = 1 + (int)((state >> 33) % (unsigned long long)(n - 2));
        }
        const size_t w = ((size_t)xyz[2] * n + xyz[1]) * n + xyz[0];
        if (kind[w] != 1) continue;
        kind[w] = 3; /* not chosen twice */
        chosen[found++] = w;
    }
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < charges; ++k)
            if ((int)(chosen[k] & 1) == pass) {
                p->iqpos[p->nq] = half_index(chosen[k]);
                p->qval[p->nq] = sphere ? (k % 2 ? 0.4 : -0.3) : 10.0;
                p->nq++;
                if (pass == 0) p->nq_odd = p->nq;
            }
    free(chosen);
    free(kind);
    return 0;
}

/* The arrays one itit call takes (and changes), in the REAL kind. */
typedef struct arrays {
    void *db, *qval, *sf1, *sf2, *phimap;
} arrays;

#define FILL(type, dst, src, count)                                                                \
    do {                                                                                           \
        type *d_ = (type *)(dst);                                                                  \
        for (size_t i_ = 0; i_ < (size_t)(count); ++i_)                                            \
            d_[i_] = (type)(src)[i_];                                                              \
    } while (0)

static void fill(const problem *p, int is_double, arrays *a) {
    if (is_double) {
        FILL(double, a->db, p->db, 6 * (size_t)p->nb);
        FILL(double, a->qval, p->qval, p->nq);
        FILL(double, a->sf1, p->sf[0], p->half);
        FILL(double, a->sf2, p->sf[1], p->half);
        FILL(double, a->phimap, p->phimap, p->points);
    } else {
        FILL(float, a->db, p->db, 6 * (size_t)p->nb);
        FILL(float, a->qval, p->qval, p->nq);
        FILL(float, a->sf1, p->sf[0], p->half);
        FILL(float, a->sf2, p->sf[1], p->half);
        FILL(float, a->phimap, p->phimap, p->points);
    }
}

int main(int argc, char **argv) {
    int n = 17, backend = DG_BACKEND_AUTO, calls = 2, sphere = 0, salt = 0, charges = 4000;
    int is_double = 0, threads = 0, warm = 1;
    double early = -1.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--igrid") == 0)
            n = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--backend") == 0)
            backend = parse_backend(argv[i + 1]);
        else if (strcmp(argv[i], "--early") == 0)
            early = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--calls") == 0)
            calls = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--medium") == 0)
            sphere = strcmp(argv[i + 1], "sphere") == 0;
        else if (strcmp(argv[i], "--salt") == 0)
            salt = atoi(argv[i + 1]) != 0;
        else if (strcmp(argv[i], "--charges") == 0)
            charges = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--double") == 0)
            is_double = atoi(argv[i + 1]) != 0;
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--warm") == 0)
            warm = atoi(argv[i + 1]) != 0;
        else {
            fprintf(stderr, "kit_bench: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 5 || n % 2 == 0 || calls < 1 || charges < 1) {
        fprintf(stderr, "kit_bench: --igrid must be odd and >= 5, --calls and --charges >= 1\n");
        return 2;
    }
    if (early >= 0.0) {
        int st = warm ? dg_delphi_begin_warm_up(0) : dg_begin_cuda_start(0);
        if (st != DG_OK)
            fprintf(stderr, "kit_bench: %s: %s\n",
                    warm ? "dg_delphi_begin_warm_up" : "dg_begin_cuda_start", dg_status_string(st));
        struct timespec pause = {(time_t)early, (long)((early - floor(early)) * 1e9)};
        nanosleep(&pause, NULL);
    }
    problem p;
    if (build(&p, n, sphere, salt, charges) != 0) {
        fprintf(stderr, "kit_bench: out of memory\n");
        return 1;
    }
    const size_t es = is_double ? sizeof(double) : sizeof(float);
    arrays a = {malloc(6 * ((size_t)p.nb + 1) * es), malloc((size_t)p.nq * es), malloc(p.half * es),
                malloc(p.half * es), malloc(p.points * es)};
    if (!a.db || !a.qval || !a.sf1 || !a.sf2 || !a.phimap) {
        fprintf(stderr, "kit_bench: out of memory\n");
        return 1;
    }

    for (int call = 1; call <= calls; ++call) {
        fill(&p, is_double, &a); /* itit leaves db, sf1, sf2 and qval multiplied by omega */
        dg_delphi_control ctl;
        dg_delphi_default_control(&ctl);
        ctl.igrid = n;
        ctl.nlit = (int)(7.8 / log(1.0 + sqrt(1.0 - p.spec)));
        ctl.automatic = 1;
        ctl.maxc = 1e-4;
        ctl.backend = backend;
        ctl.num_threads = threads;
        ctl.ionic_strength = salt ? 0.15 : 0.0;
        dg_delphi_report rep;
        const double t0 = now();
        int st = is_double ? dg_delphi_itit_d(p.idpos, a.db, a.sf1, a.sf2, p.iqpos, a.qval,
                                              p.nb_odd, p.nb, p.nq_odd, p.nq, p.spec, p.nb,
                                              a.phimap, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              NULL, NULL, NULL, NULL, 0, NULL, &ctl, &rep)
                           : dg_delphi_itit_f(p.idpos, a.db, a.sf1, a.sf2, p.iqpos, a.qval,
                                              p.nb_odd, p.nb, p.nq_odd, p.nq, (float)p.spec, p.nb,
                                              a.phimap, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              NULL, NULL, NULL, NULL, 0, NULL, &ctl, &rep);
        const double t1 = now();
        if (st != DG_OK) {
            fprintf(stderr, "kit_bench: %s\n", rep.message);
            return 1;
        }
        dg_delphi_timing t;
        dg_delphi_last_timing(&t);
        const dg_result *r = &rep.result;
        printf("kit_bench igrid=%d medium=%s salt=%d real=%s backend=%s call=%d iterations=%d "
               "call_s=%.4f loop_s=%.4f beyond_loop_s=%.4f check=%.4f handle=%.4f prepare=%.4f "
               "upload=%.4f check_phi=%.4f load=%.4f spectral=%.4f store=%.4f finish=%.4f "
               "release=%.4f scaling=%.4f scaling_late=%.4f reused=%d%s%s\n",
               n, sphere ? "sphere" : "born", salt, is_double ? "double" : "float",
               r->backend == DG_BACKEND_CUDA ? "cuda" : "cpu", call, r->iterations, t1 - t0, t.loop,
               (t1 - t0) - t.loop, t.check, t.handle, t.prepare, t.upload, t.check_phi, t.load,
               t.spectral, t.store, t.finish, t.release, t.scaling, t.scaling_late, t.reused,
               rep.notice[0] ? " notice: " : "", rep.notice);
    }
    dg_delphi_wait_warm_up(); /* as the kit's library does when the program ends */
    dg_wait_cuda_start();
    return 0;
}
