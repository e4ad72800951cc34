/* Memory estimate of a run and the check against MemAvailable, made before allocating. */
#include <stdio.h>
#include <string.h>

#include "grid.h"

double memory_estimate_bytes(const memory_plan *p) {
    const double points = (double)p->n * p->n * p->n;
    const double real = p->double_precision ? 8.0 : 4.0;
    double per_point = 0.0;
    per_point += real * (p->two_run ? 2.0 : 1.0); /* potential map(s) */
    per_point += 3.0;                             /* medium numbers on the three face sets */
    per_point += p->with_salt ? 1.0 : 0.0;        /* ion-accessibility map */
    per_point += real + 1.0;                      /* the library's two half grids and flags */
    per_point += p->mixed ? 8.0 : 0.0;    /* mixed: float correction and rhs beside the double */
    per_point += real * 0.5;              /* its convergence snapshot (even points) */
    per_point += p->map_copy ? 8.0 : 0.0; /* double copy of a float map for output */
    /* The CPU backend's multigrid (docs/MULTIGRID.md, "Memory": 45 B per point in double and
       mixed, 29 in float, and a 4 B index map while it builds the levels) and Newton workspace
       (its step, snapshot and two coefficients in float, start value in the working precision,
       residual and inverse diagonal in double, a 4 B boundary map: 44 B, 40 in float). */
    if (p->host_multigrid) per_point += (p->double_precision ? 45.0 : 29.0) + 4.0;
    if (p->host_newton) per_point += p->double_precision ? 44.0 : 40.0;
    double bytes = points * per_point;
    bytes += (double)p->focus_points * 8.0; /* focusing source map */
    bytes += 64.0 * 1024 * 1024;            /* lists, surface points, program */
    return bytes;
}

double memory_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1.0;
    char line[256];
    double kib = -1.0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "MemAvailable:", 13) == 0) {
            if (sscanf(line + 13, "%lf", &kib) != 1) kib = -1.0;
            break;
        }
    fclose(f);
    return kib < 0 ? -1.0 : kib * 1024.0;
}

int memory_check(const memory_plan *plan, char *msg, size_t msg_size) {
    const double need = memory_estimate_bytes(plan);
    const double have = memory_available_bytes();
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (have >= 0.0 && need > 0.9 * have) {
        snprintf(msg, msg_size,
                 "a %d^3 grid needs about %.2f GiB of memory but only %.2f GiB is available: "
                 "use a smaller gsize or scale",
                 plan->n, need / gib, have / gib);
        return -1;
    }
    return 0;
}
