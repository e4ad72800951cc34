/* The dense medium's fast paths against their plain definitions: a charge list with repeats
 * (sorted by a radix sort, repeats summed in list order) gives the same charge sources, bit for
 * bit, as the full-grid charge map holding those sums; the medium-number check accepts numbers
 * out of range only on faces no interior point reads and names the first bad interior face. */
#include "test_util.h"

#define N 33 /* 35 937 points: two passes of the radix sort */

typedef struct media {
    unsigned char *face[3];
    double epsilon[2];
    dg_dense_medium_d medium;
} media;

/* Medium numbers 0 (solvent) outside and 1 (solute) inside a sphere, no charges yet. */
static void media_init(media *m) {
    const size_t points = (size_t)N * N * N;
    memset(m, 0, sizeof *m);
    m->epsilon[0] = 80.0, m->epsilon[1] = 2.0;
    for (int a = 0; a < 3; ++a)
        m->face[a] = calloc(points, 1);
    for (int z = 0; z < N; ++z)
        for (int y = 0; y < N; ++y)
            for (int x = 0; x < N; ++x) {
                const double dx = x - 16.0, dy = y - 16.0, dz = z - 16.0;
                const unsigned char inside = dx * dx + dy * dy + dz * dz < 81.0;
                for (int a = 0; a < 3; ++a)
                    m->face[a][idx3(N, N, x, y, z)] = inside;
            }
    dg_dense_medium_d *d = &m->medium;
    d->nx = d->ny = d->nz = N;
    d->scale = 2.0;
    d->medium_x = m->face[0], d->medium_y = m->face[1], d->medium_z = m->face[2];
    d->medium_epsilon = m->epsilon;
    d->medium_count = 2;
    d->epsilon_solvent = 80.0;
}

static void media_free(media *m) {
    for (int a = 0; a < 3; ++a)
        free(m->face[a]);
}

/* The charge sources of the sparse form (colour 0 then 1). */
static int sources(const dg_dense_medium_d *d, double **out, int *count) {
    dg_sparse_counts counts;
    char msg[256];
    if (dg_sparse_counts_d(d, &counts, msg, sizeof msg) != DG_OK) {
        fprintf(stderr, "dg_sparse_counts_d: %s\n", msg);
        return -1;
    }
    const size_t nb = (size_t)counts.boundary_count + 1, nq = (size_t)counts.charge_count + 1;
    int *bi = malloc(nb * sizeof *bi), *qi = malloc(nq * sizeof *qi);
    double *bw = malloc(6 * nb * sizeof *bw);
    *out = malloc(nq * sizeof **out);
    dg_sparse_medium_d sparse;
    const int st =
        dg_sparse_from_dense_d(d, bi, bw, qi, *out, NULL, NULL, &sparse, msg, sizeof msg);
    if (st != DG_OK) fprintf(stderr, "dg_sparse_from_dense_d: %s\n", msg);
    *count = counts.charge_count;
    free(bi), free(qi), free(bw);
    return st == DG_OK ? 0 : -1;
}

static void check_charge_list(void) {
    media m;
    media_init(&m);
    const size_t points = (size_t)N * N * N;
    enum { ENTRIES = 6000 };
    long *index = malloc(ENTRIES * sizeof *index);
    double *value = malloc(ENTRIES * sizeof *value);
    double *map = calloc(points, sizeof *map);
    unsigned state = 12345u;
    for (int i = 0; i < ENTRIES; ++i) {
        /* interior points of a 12^3 block: many repeats, in no order */
        state = state * 1664525u + 1013904223u;
        const int x = 10 + (int)(state >> 8) % 12;
        state = state * 1664525u + 1013904223u;
        const int y = 10 + (int)(state >> 8) % 12;
        state = state * 1664525u + 1013904223u;
        const int z = 10 + (int)(state >> 8) % 12;
        state = state * 1664525u + 1013904223u;
        index[i] = idx3(N, N, x, y, z);
        value[i] = ((double)(state >> 8) / 16777216.0 - 0.5) * 0.37;
        map[index[i]] += value[i]; /* repeats summed in list order */
    }
    double *from_list = NULL, *from_map = NULL;
    int list_count = 0, map_count = 0;
    m.medium.charge_list_index = index, m.medium.charge_list_value = value;
    m.medium.charge_list_count = ENTRIES;
    const int a = sources(&m.medium, &from_list, &list_count);
    m.medium.charge_list_index = NULL, m.medium.charge_list_value = NULL;
    m.medium.charge_list_count = 0;
    m.medium.charge = map;
    const int b = sources(&m.medium, &from_map, &map_count);
    CHECK(a == 0 && b == 0, "sparse forms derived");
    CHECK(list_count == map_count && list_count > 1000,
          "%d charged points from the list, %d "
          "from the map",
          list_count, map_count);
    int differ = 0;
    for (int k = 0; a == 0 && b == 0 && k < list_count && k < map_count; ++k)
        differ += memcmp(&from_list[k], &from_map[k], sizeof(double)) != 0;
    CHECK(differ == 0, "%d charge sources differ bitwise between list and map", differ);
    free(from_list), free(from_map), free(index), free(value), free(map);
    media_free(&m);
}

static void check_media_numbers(void) {
    media m;
    media_init(&m);
    dg_sparse_counts counts;
    char msg[256];
    /* Entries no interior point reads: x faces at x = N-1, y faces on row y = N-1, z faces on
       plane z = N-1. */
    m.face[0][idx3(N, N, N - 1, 5, 5)] = 7;
    m.face[1][idx3(N, N, 5, N - 1, 5)] = 7;
    m.face[2][idx3(N, N, 5, 5, N - 1)] = 7;
    CHECK(dg_sparse_counts_d(&m.medium, &counts, msg, sizeof msg) == DG_OK,
          "numbers beyond the last faces are ignored: %s", msg);
    /* Read entries: the x face below x = 1 (at x = 0), the y face below row 1, the z face at
       the last interior plane. */
    const long read[3] = {idx3(N, N, 0, 7, 8), idx3(N, N, 9, 0, 8), idx3(N, N, 9, 7, N - 2)};
    const char *names[3] = {"medium_x", "medium_y", "medium_z"};
    for (int a = 0; a < 3; ++a) {
        m.face[a][read[a]] = 2;
        const int st = dg_sparse_counts_d(&m.medium, &counts, msg, sizeof msg);
        CHECK(st == DG_ERR_INDEX_OUT_OF_RANGE && strstr(msg, names[a]) && strstr(msg, ">= "),
              "a bad %s entry: status %d, message '%s'", names[a], st, msg);
        m.face[a][read[a]] = 1;
    }
    media_free(&m);
}

int main(void) {
    check_charge_list();
    check_media_numbers();
    return test_finish("test_dense_fast_paths");
}
