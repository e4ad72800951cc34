/* Charges at grid points, sorted by point (see grid_charges.h). */
#include "grid_charges.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int dg_sort_grid_charges(dg_grid_charge *list, long n, long limit) {
    enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS, MAX_PARTS = 256 };
    int bits = 1;
    while (bits < 63 && (limit - 1) >> bits)
        ++bits;
    int parts = omp_get_max_threads();
    if (n < 65536) parts = 1;
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    dg_grid_charge *other = malloc((size_t)(n + 1) * sizeof *other);
    long *count = malloc((size_t)parts * BUCKETS * sizeof *count);
    if (!other || !count) {
        free(other), free(count);
        return -1;
    }
    dg_grid_charge *from = list, *to = other;
    for (int shift = 0; shift < bits; shift += DIGIT_BITS) {
#pragma omp parallel num_threads(parts)
        {
            const int t = omp_get_thread_num(), team = omp_get_num_threads();
            const long begin = n * t / team, end = n * (t + 1) / team;
            long *mine = count + (size_t)t * BUCKETS;
            memset(mine, 0, BUCKETS * sizeof *mine);
            for (long i = begin; i < end; ++i)
                mine[(from[i].index >> shift) & (BUCKETS - 1)]++;
#pragma omp barrier
#pragma omp single
            {
                long start = 0;
                for (int b = 0; b < BUCKETS; ++b)
                    for (int u = 0; u < team; ++u) {
                        const long here = count[(size_t)u * BUCKETS + b];
                        count[(size_t)u * BUCKETS + b] = start, start += here;
                    }
            }
            for (long i = begin; i < end; ++i)
                to[mine[(from[i].index >> shift) & (BUCKETS - 1)]++] = from[i];
        }
        dg_grid_charge *swap = from;
        from = to, to = swap;
    }
    if (from != list) memcpy(list, from, (size_t)n * sizeof *list);
    free(other), free(count);
    return 0;
}
