/* kit_bench: times the DelPhi kit's itit call (dg_delphi_itit_f, DelPhi's single-precision
 * data) on a synthetic Born-ion-like problem of igrid^3 points: a uniform dielectric, one unit
 * source at the centre, 1/r values on the faces, DelPhi's automatic mode with maxc = 1e-4.
 * Not a test.  One process = one cold start, as in a DelPhi run.
 *
 *   kit_bench --igrid N [--backend auto|cpu|cuda] [--early SECONDS] [--calls K]
 *
 * --early S begins CUDA's start-up (dg_begin_cuda_start) and then sleeps S seconds, standing
 * in for DelPhi's own set-up before its first itit call (the kit's library does the same when
 * it is loaded).  Prints one line per call:
 *   kit_bench igrid=N backend=B call=K iterations=I call_s=... loop_s=... beyond_loop_s=...
 * where beyond_loop_s is the call's wall time minus its iteration loop (the kit's own cost). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv) {
    int n = 17, backend = DG_BACKEND_AUTO, calls = 2;
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
        else {
            fprintf(stderr, "kit_bench: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 5 || n % 2 == 0 || calls < 1) {
        fprintf(stderr, "kit_bench: --igrid must be odd and >= 5, --calls >= 1\n");
        return 2;
    }
    if (early >= 0.0) {
        int st = dg_begin_cuda_start(0);
        if (st != DG_OK)
            fprintf(stderr, "kit_bench: dg_begin_cuda_start: %s\n", dg_status_string(st));
        struct timespec pause = {(time_t)early, (long)((early - floor(early)) * 1e9)};
        nanosleep(&pause, NULL);
    }
    const size_t points = (size_t)n * n * n, half = (points + 1) / 2;
    float *phimap = calloc(points, sizeof *phimap);
    float *work = calloc(3 * half + points, sizeof *work);
    if (!phimap || !work) return fprintf(stderr, "kit_bench: out of memory\n"), 1;
    const int c = (n - 1) / 2; /* 0-based centre */
    const double pi = 3.14159265358979323846;
    const double spec = pow(cos(pi / (n - 1)), 2.0); /* Gauss-Seidel radius, uniform operator */
    /* DelPhi's index of the centre: 1-based linear w, odd w in phimap1 at (w+1)/2, even w in
       phimap2 at w/2. */
    const long w = (long)c * n * n + (long)c * n + c + 1;
    int iqpos = (int)(w % 2 ? (w + 1) / 2 : w / 2);
    float qval = 10.0f;

    for (int call = 1; call <= calls; ++call) {
        for (int z = 0; z < n; ++z)
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x) {
                    size_t i = ((size_t)z * n + y) * n + x;
                    int face = x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
                    double r = sqrt((double)(x - c) * (x - c) + (double)(y - c) * (y - c) +
                                    (double)(z - c) * (z - c));
                    phimap[i] = face ? (float)(10.0 / r) : 0.0f;
                }
        qval = 10.0f; /* itit leaves it multiplied by omega */
        dg_delphi_control ctl;
        dg_delphi_default_control(&ctl);
        ctl.igrid = n;
        ctl.nlit = (int)(7.8 / log(1.0 + sqrt(1.0 - spec)));
        ctl.automatic = 1;
        ctl.maxc = 1e-4;
        ctl.backend = backend;
        dg_delphi_report rep;
        const double t0 = now();
        int st = dg_delphi_itit_f(NULL, NULL, NULL, NULL, &iqpos, &qval, 0, 0, w % 2 ? 1 : 0, 1,
                                  (float)spec, 0, phimap, work, work + half, work + 2 * half, NULL,
                                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, &ctl, &rep);
        const double t1 = now();
        if (st != DG_OK) {
            fprintf(stderr, "kit_bench: %s\n", rep.message);
            return 1;
        }
        const dg_result *r = &rep.result;
        printf("kit_bench igrid=%d backend=%s call=%d iterations=%d call_s=%.4f loop_s=%.4f "
               "beyond_loop_s=%.4f%s%s\n",
               n, r->backend == DG_BACKEND_CUDA ? "cuda" : "cpu", call, r->iterations, t1 - t0,
               r->solve_seconds, (t1 - t0) - r->solve_seconds, rep.notice[0] ? " notice: " : "",
               rep.notice);
    }
    free(phimap);
    free(work);
    dg_wait_cuda_start(); /* as the kit's library does when the program ends */
    return 0;
}
