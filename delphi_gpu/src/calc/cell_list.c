/* Cell list: counting sort of the points by cell (CSR layout). */
#include "cell_list.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int clamp_int(double v, int hi) {
    return v < 0 ? 0 : v > hi ? hi : (int)v;
}

static int cell_of(const cell_list *cl, const double *p) {
    int c[3];
    for (int a = 0; a < 3; ++a)
        c[a] = clamp_int(floor((p[a] - cl->origin[a]) / cl->cell), cl->dim[a] - 1);
    return cell_list_index(cl, c[0], c[1], c[2]);
}

/* a[k] += a[0] + ... + a[k-1] for k < n, in blocks on all threads (int sums: exact). */
static void prefix_sums(int *a, size_t n) {
    enum { max_blocks = 256 };
    int block_sum[max_blocks + 1];
    size_t blocks = n / 65536 + 1;
    if (blocks > max_blocks) blocks = max_blocks;
    const size_t size = (n + blocks - 1) / blocks;
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; ++b) {
        int sum = 0;
        for (size_t k = b * size; k < n && k < (b + 1) * size; ++k)
            sum += a[k];
        block_sum[b] = sum;
    }
    int offset = 0;
    for (size_t b = 0; b < blocks; ++b) {
        const int sum = block_sum[b];
        block_sum[b] = offset;
        offset += sum;
    }
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; ++b) {
        int sum = block_sum[b];
        for (size_t k = b * size; k < n && k < (b + 1) * size; ++k)
            sum += a[k], a[k] = sum;
    }
}

int cell_list_build(cell_list *cl, const double *xyz, int count, double cell) {
    return cell_list_build_subset(cl, xyz, count, cell, NULL);
}

int cell_list_build_subset(cell_list *cl, const double *xyz, int count, double cell,
                           const unsigned char *mask) {
    memset(cl, 0, sizeof *cl);
    cl->cell = cell;
    double hi[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a)
        cl->origin[a] = INFINITY, hi[a] = -INFINITY;
    for (int i = 0; i < count; ++i)
        for (int a = 0; a < 3 && (!mask || mask[i]); ++a) {
            if (xyz[3 * i + a] < cl->origin[a]) cl->origin[a] = xyz[3 * i + a];
            if (xyz[3 * i + a] > hi[a]) hi[a] = xyz[3 * i + a];
        }
    for (int a = 0; a < 3; ++a)
        if (!isfinite(cl->origin[a])) cl->origin[a] = hi[a] = 0.0; /* no points */
    /* Points spread far apart would ask for more cells than points warrant (and overflow the
       int dimensions): larger cells keep the list small; queries use cl->cell, so they stay
       exact, only slower. */
    const double max_cells = fmax(64.0 * count, 1048576.0);
    for (;;) {
        double product = 1.0;
        for (int a = 0; a < 3; ++a)
            product *= floor((hi[a] - cl->origin[a]) / cl->cell) + 1.0;
        if (product <= max_cells) break;
        cl->cell *= 1.01 * cbrt(product / max_cells);
    }
    size_t cells = 1;
    for (int a = 0; a < 3; ++a) {
        cl->dim[a] = (int)floor((hi[a] - cl->origin[a]) / cl->cell) + 1;
        cells *= (size_t)cl->dim[a];
    }
    cl->start = malloc((cells + 1) * sizeof *cl->start);
    cl->items = malloc(((size_t)count + 1) * sizeof *cl->items);
    int *cell_id = malloc(((size_t)count + 1) * sizeof *cell_id);
    int *fill = malloc((cells + 1) * sizeof *fill);
    if (!cl->start || !cl->items || !cell_id || !fill) {
        free(cell_id), free(fill);
        cell_list_free(cl);
        return -1;
    }
    /* A counting sort on all threads (millions of arc dots over as many cells): each point's
       cell, the counts (atomic: they commute), their prefix sums, each point into its cell's
       next free slot (atomic), then each cell's items in point order, as a serial counting sort
       leaves them. */
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c <= cells; ++c)
        cl->start[c] = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
        cell_id[i] = !mask || mask[i] ? cell_of(cl, xyz + 3 * i) : -1;
        if (cell_id[i] >= 0) {
#pragma omp atomic
            cl->start[cell_id[i] + 1]++;
        }
    }
    prefix_sums(cl->start, cells + 1);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < cells; ++c)
        fill[c] = cl->start[c];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
        if (cell_id[i] < 0) continue;
        int slot;
#pragma omp atomic capture
        slot = fill[cell_id[i]]++;
        cl->items[slot] = i;
    }
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < cells; ++c)
        for (int k = cl->start[c] + 1; k < cl->start[c + 1]; ++k) { /* insertion sort */
            const int item = cl->items[k];
            int at = k - 1;
            while (at >= cl->start[c] && cl->items[at] > item)
                cl->items[at + 1] = cl->items[at], --at;
            cl->items[at + 1] = item;
        }
    free(cell_id), free(fill);
    return 0;
}

void cell_list_free(cell_list *cl) {
    free(cl->start);
    free(cl->items);
    memset(cl, 0, sizeof *cl);
}

int cell_list_range(const cell_list *cl, const double x[3], double r, int lo[3], int hi[3]) {
    for (int a = 0; a < 3; ++a) {
        double l = floor((x[a] - r - cl->origin[a]) / cl->cell);
        double h = floor((x[a] + r - cl->origin[a]) / cl->cell);
        if (h < 0 || l > cl->dim[a] - 1) return 0;
        lo[a] = l < 0 ? 0 : (int)l;
        hi[a] = h > cl->dim[a] - 1 ? cl->dim[a] - 1 : (int)h;
    }
    return 1;
}
