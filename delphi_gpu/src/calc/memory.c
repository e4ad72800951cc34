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
    per_point += real * 0.5;                      /* its convergence snapshot (even points) */
    per_point += p->map_copy ? 8.0 : 0.0;         /* double copy of a float map for output */
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
