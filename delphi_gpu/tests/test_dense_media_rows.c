/* The dense derivation from medium-number maps (bytes compared first, permittivities only where
 * the media differ) gives, bit for bit, the sparse form that the permittivity maps of the same
 * medium give, and both match the definition of a boundary point: six face permittivities not
 * all equal, or mobile ions at a permittivity other than the solvent's.  Four media, two pairs
 * of which share a permittivity (a face between them is no boundary); salt; a grid that is not
 * a cube; 1, 3 and 4 threads. */
#include <omp.h>

#include "solver_internal.h"
#include "test_util.h"

enum { NX = 37, NY = 29, NZ = 33 };

static double epsilon[4]; /* the media's permittivities, set by each case */

/* The medium of a position (grid units): solvent (0) outside, a solute sphere split into
   media 1 and 2 (the same permittivity) by the plane x = 18, and a pocket of medium 3 (the
   solvent's permittivity, another number) inside it. */
static unsigned char medium_at(double x, double y, double z) {
    const double dx = x - 18.2, dy = y - 14.1, dz = z - 16.3;
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 > 11.3 * 11.3) return 0;
    const double px = x - 14.0, py = y - 12.0, pz = z - 17.0;
    if (px * px + py * py + pz * pz < 3.1 * 3.1) return 3;
    return x < 18.0 ? 1 : 2;
}

typedef struct sparse_form {
    dg_sparse_counts counts;
    int *bindex, *cindex;
    double *bweight, *csource, *salt_odd, *salt_even;
    long *boundary;
    size_t boundary_count;
} sparse_form;

static void sparse_free(sparse_form *f) {
    free(f->bindex), free(f->cindex), free(f->bweight), free(f->csource);
    free(f->salt_odd), free(f->salt_even), free(f->boundary);
}

static int derive(const dg_dense_medium_d *d, int threads, sparse_form *f) {
    memset(f, 0, sizeof *f);
    omp_set_num_threads(threads);
    char msg[512];
    if (dg_sparse_counts_d(d, &f->counts, msg, sizeof msg) != DG_OK) {
        fprintf(stderr, "dg_sparse_counts_d: %s\n", msg);
        return -1;
    }
    const size_t nb = (size_t)f->counts.boundary_count + 1, nq = (size_t)f->counts.charge_count + 1;
    const size_t half = ((size_t)NX * NY * NZ + 1) / 2;
    f->bindex = malloc(nb * sizeof *f->bindex), f->cindex = malloc(nq * sizeof *f->cindex);
    f->bweight = malloc(6 * nb * sizeof *f->bweight), f->csource = malloc(nq * sizeof *f->csource);
    /* zeroed: the even colour has one slot fewer than the arrays hold */
    f->salt_odd = calloc(half, sizeof *f->salt_odd);
    f->salt_even = calloc(half, sizeof *f->salt_even);
    dg_sparse_medium_d sparse;
    if (dg_sparse_from_dense_d(d, f->bindex, f->bweight, f->cindex, f->csource, f->salt_odd,
                               f->salt_even, &sparse, msg, sizeof msg) != DG_OK) {
        fprintf(stderr, "dg_sparse_from_dense_d: %s\n", msg);
        return -1;
    }
    dg_options o;
    dg_default_options(&o);
    o.backend = DG_BACKEND_CPU, o.num_threads = threads;
    dg_solver s = NULL;
    dg_sparse_counts counts;
    int st = dg_create(&s, &o);
    if (st == DG_OK)
        st = dg_set_dense_medium_boundary_d(s, d, &counts, &f->boundary, &f->boundary_count);
    if (st != DG_OK) fprintf(stderr, "dielectric boundary list: %s\n", dg_last_error(s));
    dg_destroy(s);
    return st == DG_OK ? 0 : -1;
}

static int same_forms(const sparse_form *a, const sparse_form *b) {
    const size_t nb = (size_t)a->counts.boundary_count, nq = (size_t)a->counts.charge_count;
    const size_t half = ((size_t)NX * NY * NZ + 1) / 2;
    return memcmp(&a->counts, &b->counts, sizeof a->counts) == 0 &&
           memcmp(a->bindex, b->bindex, nb * sizeof *a->bindex) == 0 &&
           memcmp(a->bweight, b->bweight, 6 * nb * sizeof *a->bweight) == 0 &&
           memcmp(a->cindex, b->cindex, nq * sizeof *a->cindex) == 0 &&
           memcmp(a->csource, b->csource, nq * sizeof *a->csource) == 0 &&
           memcmp(a->salt_odd, b->salt_odd, half * sizeof *a->salt_odd) == 0 &&
           memcmp(a->salt_even, b->salt_even, half * sizeof *a->salt_even) == 0 &&
           a->boundary_count == b->boundary_count &&
           memcmp(a->boundary, b->boundary, a->boundary_count * sizeof *a->boundary) == 0;
}

/* One case of the media's permittivities (the solvent's is 80). */
static void check_media(const double eps_of_media[4]) {
    memcpy(epsilon, eps_of_media, sizeof epsilon);
    const size_t points = (size_t)NX * NY * NZ;
    unsigned char *face[3], *ions = malloc(points);
    double *eps[3];
    for (int a = 0; a < 3; ++a)
        face[a] = malloc(points), eps[a] = malloc(points * sizeof *eps[a]);
    for (int z = 0; z < NZ; ++z)
        for (int y = 0; y < NY; ++y)
            for (int x = 0; x < NX; ++x) {
                const long w = idx3(NX, NY, x, y, z);
                face[0][w] = medium_at(x + 0.5, y, z);
                face[1][w] = medium_at(x, y + 0.5, z);
                face[2][w] = medium_at(x, y, z + 0.5);
                for (int a = 0; a < 3; ++a)
                    eps[a][w] = epsilon[face[a][w]];
                /* Mobile ions outside a sphere that reaches into the solute on one side, and
                   on a few points of the medium-3 pocket (the solvent's permittivity). */
                const double dx = x - 20.0, dy = y - 14.0, dz = z - 16.0;
                ions[w] = dx * dx + dy * dy + dz * dz > 10.0 * 10.0 ||
                          (medium_at(x, y, z) == 3 && (x + y + z) % 3 == 0);
            }
    /* Charges: a list long enough for the threaded radix sort, with repeats, on every kind of
       interior point (solute, boundary, salt). */
    enum { CHARGES = 100000 };
    long *cindex = malloc(CHARGES * sizeof *cindex);
    double *cvalue = malloc(CHARGES * sizeof *cvalue), *cmap = calloc(points, sizeof *cmap);
    unsigned state = 2463534242u;
    for (int i = 0; i < CHARGES; ++i) {
        int at[3];
        const int side[3] = {NX, NY, NZ};
        for (int a = 0; a < 3; ++a) {
            state ^= state << 13, state ^= state >> 17, state ^= state << 5;
            at[a] = 1 + (int)(state % (unsigned)(side[a] - 2));
        }
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        cindex[i] = idx3(NX, NY, at[0], at[1], at[2]);
        cvalue[i] = ((double)(state >> 8) / 16777216.0 - 0.5) * 0.61;
        cmap[cindex[i]] += cvalue[i]; /* repeats summed in list order */
    }
    const dg_salt salt = {0.15, 1, 1};
    dg_dense_medium_d by_media = {0}, by_eps;
    by_media.nx = NX, by_media.ny = NY, by_media.nz = NZ;
    by_media.scale = 2.0;
    by_media.medium_x = face[0], by_media.medium_y = face[1], by_media.medium_z = face[2];
    by_media.medium_epsilon = epsilon, by_media.medium_count = 4;
    by_media.charge_list_index = cindex, by_media.charge_list_value = cvalue;
    by_media.charge_list_count = CHARGES;
    by_media.ion_accessible = ions, by_media.salts = &salt, by_media.salt_count = 1;
    by_media.epsilon_solvent = 80.0;
    by_eps = by_media;
    by_eps.medium_x = by_eps.medium_y = by_eps.medium_z = NULL;
    by_eps.medium_epsilon = NULL, by_eps.medium_count = 0;
    by_eps.eps_x = eps[0], by_eps.eps_y = eps[1], by_eps.eps_z = eps[2];

    /* The definition, point by point: the boundary points in DelPhi's list order. */
    long *expected = malloc(points * sizeof *expected);
    size_t expected_count = 0, jumps_between_equal = 0, salt_boundary = 0;
    for (int colour = 0; colour < 2; ++colour)
        for (long w = colour; w < (long)points; w += 2) {
            const int x = (int)(w % NX), y = (int)(w / NX % NY), z = (int)(w / ((long)NX * NY));
            if (x == 0 || y == 0 || z == 0 || x == NX - 1 || y == NY - 1 || z == NZ - 1) continue;
            const long below[3] = {w - 1, w - NX, w - (long)NX * NY};
            const double e0 = eps[0][below[0]];
            int jump = 0, media_differ = 0;
            for (int a = 0; a < 3; ++a) {
                jump |= eps[a][below[a]] != e0 || eps[a][w] != e0;
                media_differ |=
                    face[a][below[a]] != face[0][below[0]] || face[a][w] != face[0][below[0]];
            }
            jumps_between_equal += media_differ && !jump;
            const int by_salt = ions[w] && fabs(e0 - 80.0) > 1e-6 * 80.0;
            salt_boundary += by_salt && !jump;
            if (jump || by_salt) expected[expected_count++] = w;
        }
    CHECK(jumps_between_equal > 50, "%zu points between media of one permittivity",
          jumps_between_equal);
    CHECK(salt_boundary > 20, "%zu boundary points by salt alone", salt_boundary);

    sparse_form reference;
    CHECK(derive(&by_eps, 1, &reference) == 0, "the permittivity maps' form");
    CHECK((size_t)reference.counts.boundary_count == expected_count,
          "%d boundary points, %zu "
          "by the definition",
          reference.counts.boundary_count, expected_count);
    int wrong = 0;
    for (size_t k = 0;
         k < expected_count && (size_t)reference.counts.boundary_count == expected_count; ++k)
        wrong += reference.bindex[k] != (int)(expected[k] / 2) + 1;
    CHECK(wrong == 0, "%d boundary entries out of place", wrong);
    const int threads[3] = {1, 3, 4};
    for (int t = 0; t < 3; ++t) {
        sparse_form media, permittivities;
        CHECK(derive(&by_media, threads[t], &media) == 0, "media, %d threads", threads[t]);
        CHECK(derive(&by_eps, threads[t], &permittivities) == 0, "permittivities, %d threads",
              threads[t]);
        CHECK(same_forms(&media, &reference), "media, %d threads: not the reference form",
              threads[t]);
        CHECK(same_forms(&permittivities, &reference),
              "permittivities, %d threads: not the reference form", threads[t]);
        sparse_free(&media), sparse_free(&permittivities);
    }
    /* The same charges as a full-grid map (their sums): the same sparse form. */
    dg_dense_medium_d by_map = by_media;
    by_map.charge_list_index = NULL, by_map.charge_list_value = NULL;
    by_map.charge_list_count = 0, by_map.charge = cmap;
    sparse_form from_map;
    CHECK(derive(&by_map, 4, &from_map) == 0, "the charge map's form");
    CHECK(same_forms(&from_map, &reference), "the charge map's form is not the list's");
    CHECK(reference.counts.charges_not_interior > 1000 &&
              reference.counts.charge_count > reference.counts.charges_not_interior,
          "%d charged points, %d of them not interior", reference.counts.charge_count,
          reference.counts.charges_not_interior);
    /* The charged points by the definition: distinct points of non-zero sum; those whose six
       faces differ or with a face at the solvent's permittivity are not interior (DelPhi's
       count). */
    unsigned char *on_boundary = calloc(points, 1);
    for (size_t k = 0; k < expected_count; ++k)
        on_boundary[expected[k]] = 1;
    int charged = 0, not_interior = 0;
    for (size_t w = 0; w < points; ++w) {
        if (cmap[w] == 0.0) continue;
        const long below[3] = {(long)w - 1, (long)w - NX, (long)w - (long)NX * NY};
        int differ = 0, solvent = 0;
        for (int a = 0; a < 3; ++a) {
            differ |= eps[a][below[a]] != eps[0][below[0]] || eps[a][w] != eps[0][below[0]];
            solvent |= eps[a][below[a]] == 80.0 || eps[a][w] == 80.0;
        }
        ++charged, not_interior += differ || solvent;
    }
    free(on_boundary);
    CHECK(reference.counts.charge_count == charged &&
              reference.counts.charges_not_interior == not_interior,
          "%d charged points (%d by the definition), %d not interior (%d)",
          reference.counts.charge_count, charged, reference.counts.charges_not_interior,
          not_interior);
    sparse_free(&from_map), sparse_free(&reference);
    /* A bad entry is named by the lowest grid index among the bad ones (the sorted list's
       first): a charge on a face point before a NaN, and a NaN before a face point. */
    dg_sparse_counts counts;
    char msg[512];
    const long face_point = idx3(NX, NY, 0, 7, 9), nan_point = idx3(NX, NY, 5, 7, 9);
    const long last = CHARGES - 1, before_last = CHARGES - 2;
    const long saved[2] = {cindex[before_last], cindex[last]};
    const double saved_value[2] = {cvalue[before_last], cvalue[last]};
    cindex[before_last] = nan_point, cvalue[before_last] = NAN;
    cindex[last] = face_point, cvalue[last] = 0.25;
    omp_set_num_threads(4);
    int st = dg_sparse_counts_d(&by_media, &counts, msg, sizeof msg);
    CHECK(st == DG_ERR_INDEX_OUT_OF_RANGE && strstr(msg, "face point (0,7,9)"), "status %d: %s", st,
          msg);
    cindex[before_last] = idx3(NX, NY, 5, 7, NZ - 1);
    cindex[last] = idx3(NX, NY, 5, 7, 9), cvalue[last] = NAN;
    cvalue[before_last] = 0.25; /* a face point on the last plane, after the NaN */
    st = dg_sparse_counts_d(&by_media, &counts, msg, sizeof msg);
    CHECK(st == DG_ERR_NONFINITE_INPUT && strstr(msg, "(5,7,9)"), "status %d: %s", st, msg);
    cindex[before_last] = saved[0], cindex[last] = saved[1];
    cvalue[before_last] = saved_value[0], cvalue[last] = saved_value[1];
    free(expected), free(ions), free(cindex), free(cvalue), free(cmap);
    for (int a = 0; a < 3; ++a)
        free(face[a]), free(eps[a]);
}

/* A charge wholly in the solvent (six faces of medium 0) at a permittivity float cannot hold
 * (78.54), beside a solute block: not interior (DelPhi's count), in float and double media
 * alike (float's compared its rounded permittivity exactly and missed it). */
static void solvent_charge_in_both_precisions(void) {
    enum { M = 9 };
    static unsigned char faces[M * M * M];
    for (int z = 1; z < 4; ++z)
        for (int y = 1; y < 4; ++y)
            for (int x = 1; x < 4; ++x)
                faces[idx3(M, M, x, y, z)] = 1;
    const double permittivity[2] = {78.54, 2.0};
    long at = idx3(M, M, 6, 6, 6);
    const float qf = 1.0f;
    const double qd = 1.0;
    dg_dense_medium_f f = {0};
    dg_dense_medium_d d = {0};
    f.nx = f.ny = f.nz = d.nx = d.ny = d.nz = M;
    f.scale = d.scale = 1.0;
    f.medium_x = f.medium_y = f.medium_z = d.medium_x = d.medium_y = d.medium_z = faces;
    f.medium_epsilon = d.medium_epsilon = permittivity;
    f.medium_count = d.medium_count = 2;
    f.charge_list_index = d.charge_list_index = &at;
    f.charge_list_value = &qf, d.charge_list_value = &qd;
    f.charge_list_count = d.charge_list_count = 1;
    f.epsilon_solvent = d.epsilon_solvent = 78.54;
    dg_sparse_counts in_float, in_double;
    char msg[256];
    CHECK(dg_sparse_counts_f(&f, &in_float, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(dg_sparse_counts_d(&d, &in_double, msg, sizeof msg) == DG_OK, "%s", msg);
    CHECK(in_float.charge_count == 1 && in_float.charges_not_interior == 1,
          "float medium: %d charged, %d not interior", in_float.charge_count,
          in_float.charges_not_interior);
    CHECK(in_double.charge_count == 1 && in_double.charges_not_interior == 1,
          "double medium: %d charged, %d not interior", in_double.charge_count,
          in_double.charges_not_interior);
}

int main(void) {
    solvent_charge_in_both_precisions();
    /* Media 0 and 3 both at the solvent's permittivity (the salt test by a table), only medium
       0 (by one byte comparison), none (every mobile-ion point is a boundary point). */
    const double cases[3][4] = {
        {80.0, 2.0, 2.0, 80.0}, {80.0, 2.0, 2.0, 40.0}, {10.0, 2.0, 2.0, 40.0}};
    for (int c = 0; c < 3; ++c)
        check_media(cases[c]);
    return test_finish("test_dense_media_rows");
}
