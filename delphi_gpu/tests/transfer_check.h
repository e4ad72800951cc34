/* Checks of the full-grid transfers of one backend (CPU unit test and CUDA test share them):
 * load_phi_faces (a phi whose interior is +0.0) leaves the backend in exactly the state load_phi
 * does, the solver takes that path only for a +0.0 interior, and load/store round trips keep
 * every value.  Uses the internal seam (backend.h, solver_internal.h). */
#ifndef DG_TRANSFER_CHECK_H
#define DG_TRANSFER_CHECK_H

#include "backend.h"
#include "solver_internal.h"
#include "test_util.h"
#include "transfer_host.h"

/* The face layout enumerates every face point once, in ascending full index. */
static inline void transfer_check_layout(int nx, int ny, int nz) {
    const size_t faces = dg_face_count(nx, ny, nz);
    size_t expected = 0, previous = 0;
    int ascending = 1, all_faces = 1;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                expected += x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
    CHECK(faces == expected, "%zu face points, %zu expected", faces, expected);
    for (size_t i = 0; i < faces; ++i) {
        const size_t w = dg_face_full_index(nx, ny, nz, i);
        const int x = (int)(w % nx), y = (int)(w / nx % ny), z = (int)(w / ((size_t)nx * ny));
        ascending &= i == 0 || w > previous;
        all_faces &= x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
        previous = w;
    }
    CHECK(ascending && all_faces, "layout of %dx%dx%d", nx, ny, nz);
}

/* The host copies of the CUDA transfers: face packing in chunks, interior rows of a slab of
   planes, the threaded copy and the widening of a float answer, on a grid large enough for
   several threads. */
static inline void transfer_check_host_copies(int n, int threads) {
    const size_t points = (size_t)n * n * n, plane = (size_t)n * n;
    double *grid = malloc(points * sizeof *grid), *out = malloc(points * sizeof *out);
    float *grid_f = malloc(points * sizeof *grid_f), *packed_f = malloc(points * sizeof *packed_f);
    double *packed = malloc(points * sizeof *packed);
    for (size_t w = 0; w < points; ++w)
        grid[w] = 0.5 + (double)w, grid_f[w] = (float)(1.5 + (double)w);
    const size_t faces = dg_face_count(n, n, n), chunk = faces / 3 + 1;
    long wrong = 0;
    for (size_t first = 0; first < faces; first += chunk) {
        const size_t count = first + chunk <= faces ? chunk : faces - first;
        dg_face_pack(packed, grid, sizeof(double), n, n, n, first, count, threads);
        dg_face_pack(packed_f, grid_f, sizeof(float), n, n, n, first, count, threads);
        for (size_t j = 0; j < count; ++j) {
            const size_t w = dg_face_full_index(n, n, n, first + j);
            wrong += packed[j] != grid[w] || packed_f[j] != grid_f[w];
        }
    }
    CHECK(wrong == 0, "%ld packed face values wrong", wrong);
    /* Planes 2 .. 2+planes-1 from a slab holding them (values = their full index + 0.5). */
    const size_t z0 = 2, planes = (size_t)n - 4;
    for (size_t w = 0; w < points; ++w)
        out[w] = -1.0;
    dg_store_interior_rows(out, grid + z0 * plane, sizeof(double), n, n, z0, planes, threads);
    wrong = 0;
    for (size_t w = 0; w < points; ++w) {
        const size_t x = w % n, y = w / n % n, z = w / plane;
        const int inside = x >= 1 && x + 1 < (size_t)n && y >= 1 && y + 1 < (size_t)n && z >= z0 &&
                           z < z0 + planes;
        wrong += out[w] != (inside ? grid[w] : -1.0);
    }
    CHECK(wrong == 0, "%ld points wrong after dg_store_interior_rows", wrong);
    const size_t bytes = points * sizeof(double) - 13; /* not a whole number of lines */
    memset(out, 0, points * sizeof *out);
    dg_copy_threads(out, grid, bytes, threads);
    CHECK(memcmp(out, grid, bytes) == 0 && ((unsigned char *)out)[bytes] == 0);
    memset((unsigned char *)grid + bytes, 0xab, 13); /* must stay */
    dg_zero_threads(grid, bytes, threads);
    wrong = 0;
    for (size_t i = 0; i < bytes; ++i)
        wrong += ((unsigned char *)grid)[i] != 0;
    CHECK(wrong == 0 && ((unsigned char *)grid)[bytes] != 0, "dg_zero_threads: %ld bytes", wrong);
    /* A float answer widened into a double grid in uneven pieces (as the slabs deliver it):
       interior points converted, faces untouched. */
    for (size_t w = 0; w < points; ++w)
        out[w] = -1.0;
    const size_t piece = points / 5 + 7;
    for (size_t first = 0; first < points; first += piece)
        dg_widen_interior(out, grid_f + first, n, n, n, first,
                          first + piece <= points ? piece : points - first, threads);
    wrong = 0;
    for (size_t w = 0; w < points; ++w) {
        const size_t x = w % n, y = w / n % n, z = w / plane;
        const int inside = x >= 1 && x + 1 < (size_t)n && y >= 1 && y + 1 < (size_t)n && z >= 1 &&
                           z + 1 < (size_t)n;
        wrong += out[w] != (inside ? (double)grid_f[w] : -1.0);
    }
    CHECK(wrong == 0, "%ld points wrong after dg_widen_interior", wrong);
    free(grid), free(out), free(grid_f), free(packed_f), free(packed);
}

/* A sphere of low permittivity with charges inside, salt outside. */
static inline void transfer_problem(dense_problem *d, int n) {
    const double c = (n - 1) / 2.0;
    dense_problem_init(d, n, n, n, 1.0, 80.0);
    dense_problem_sphere(d, c, c, c, n / 4.0, 2.0);
    dense_problem_salt(d, c, c, c, n / 4.0 + 1.0, 0.15);
    d->charge[idx3(n, n, (int)c, (int)c, (int)c)] = 1.0;
    d->charge[idx3(n, n, (int)c + 1, (int)c - 1, (int)c)] = -0.5;
}

/* Boundary values on the faces (not symmetric, so misplaced values show), 0 inside. */
static inline void transfer_faces(double *phi, int n) {
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int face =
                    x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
                phi[idx3(n, n, x, y, z)] = face ? 0.5 + 0.01 * x - 0.02 * y + 0.003 * z * y : 0.0;
            }
}

/* The backend's state after a load, seen through a few iterations (a lagged nonlinear source
   in between) and a store over a copy of the input. */
static inline void transfer_run(const dg_backend_ops *ops, void *state, const void *phi,
                                int is_double, int faces_only, void *out, size_t bytes,
                                dg_change *change) {
    dg_error err = {0};
    int st = faces_only ? ops->load_phi_faces(state, phi, is_double, &err)
                        : ops->load_phi(state, phi, is_double, &err);
    if (st == DG_OK) st = ops->set_omega(state, 1.7, &err);
    if (st == DG_OK) st = ops->iterate(state, 5, 1, 3, change, &err);
    if (st == DG_OK) st = ops->update_nonlinear_source(state, 0.05, &err);
    if (st == DG_OK) st = ops->iterate(state, 4, 1, 3, change, &err);
    memcpy(out, phi, bytes);
    if (st == DG_OK) st = ops->store_phi(state, out, is_double, &err);
    CHECK(st == DG_OK, "%s backend: %s", ops->name, err.message);
}

/* load_phi_faces and load_phi give bitwise the same iterates; a load after a run with a
   nonlinear source starts from a zero source again. */
static inline void transfer_check_faces(int backend, int precision, int is_double, int n) {
    dense_problem d;
    transfer_problem(&d, n);
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.precision = precision;
    /* One block shape for all runs: an autotune during the first run would change the
       reduction order of the measured sum of squares (not the iterates) between runs. */
    o.autotune = 0;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    dg_solver_backend(s, &ops, &state);
    const long points = (long)n * n * n;
    const size_t es = is_double ? sizeof(double) : sizeof(float);
    double *faces = malloc(points * sizeof *faces);
    transfer_faces(faces, n);
    void *phi = malloc(points * es),
         *out[3] = {malloc(points * es), malloc(points * es), malloc(points * es)};
    for (long w = 0; w < points; ++w)
        if (is_double)
            ((double *)phi)[w] = faces[w];
        else
            ((float *)phi)[w] = (float)faces[w];
    dg_change change[3];
    memset(change, 0, sizeof change);
    transfer_run(ops, state, phi, is_double, 0, out[0], points * es, &change[0]);
    transfer_run(ops, state, phi, is_double, 1, out[1], points * es, &change[1]);
    transfer_run(ops, state, phi, is_double, 0, out[2], points * es, &change[2]);
    for (int k = 1; k < 3; ++k) {
        CHECK(memcmp(out[0], out[k], points * es) == 0,
              "%s precision %d, phi in %s, n %d: run %d differs from the full load", ops->name,
              precision, is_double ? "double" : "float", n, k);
        CHECK(change[k].max_abs == change[0].max_abs && change[k].sum_sq == change[0].sum_sq);
    }
    CHECK(memcmp(out[0], phi, points * es) != 0, "the iterations changed nothing");

    /* Round trips: a faces-only load stores 0 inside; a full load stores its values back. */
    dg_error err = {0};
    unsigned char *junk = malloc(points * es);
    memset(junk, 0x41, points * es);
    memcpy(out[0], junk, points * es);
    CHECK(ops->load_phi_faces(state, phi, is_double, &err) == DG_OK, "%s", err.message);
    CHECK(ops->store_phi(state, out[0], is_double, &err) == DG_OK, "%s", err.message);
    long wrong = 0;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                const int face =
                    x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
                const double v = is_double ? ((double *)out[0])[w] : ((float *)out[0])[w];
                if (face)
                    wrong += memcmp((char *)out[0] + w * es, junk + w * es, es) != 0;
                else
                    wrong += v != 0.0 || signbit(v);
            }
    CHECK(wrong == 0, "%ld points wrong after a faces-only load and store", wrong);
    if (precision != DG_PRECISION_FLOAT || !is_double) { /* values the backend holds exactly */
        for (long w = 0; w < points; ++w) {
            const double v = faces[w] + 0.001 * (w % 977) - 0.3;
            if (is_double)
                ((double *)phi)[w] =
                    precision == DG_PRECISION_DOUBLE || precision == DG_PRECISION_MIXED
                        ? v
                        : (double)(float)v;
            else
                ((float *)phi)[w] = (float)v;
        }
        CHECK(ops->load_phi(state, phi, is_double, &err) == DG_OK, "%s", err.message);
        memcpy(out[0], junk, points * es);
        CHECK(ops->store_phi(state, out[0], is_double, &err) == DG_OK, "%s", err.message);
        wrong = 0;
        for (int z = 1; z < n - 1; ++z)
            for (int y = 1; y < n - 1; ++y)
                for (int x = 1; x < n - 1; ++x) {
                    const long w = idx3(n, n, x, y, z);
                    wrong += memcmp((char *)out[0] + w * es, (char *)phi + w * es, es) != 0;
                }
        CHECK(wrong == 0, "%s precision %d: %ld interior points changed by a load and store",
              ops->name, precision, wrong);
    }
    free(junk), free(faces), free(phi);
    for (int k = 0; k < 3; ++k)
        free(out[k]);
    dg_destroy(s);
    dense_problem_free(&d);
}

/* Through dg_solve: the faces-only load only for an interior of +0.0 (-0.0 and any other value
   take the full load, and a non-zero interior value changes the result). */
static inline void transfer_check_solver(int backend, int n) {
    dense_problem d;
    transfer_problem(&d, n);
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.precision = DG_PRECISION_DOUBLE, o.iterations = 12;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    const long points = (long)n * n * n, inside = idx3(n, n, n / 3, n / 2, n / 2 + 1);
    double *a = malloc(points * sizeof *a), *b = malloc(points * sizeof *b);
    dg_solver_timing t;
    transfer_faces(a, n);
    CHECK_OK(dg_solve_d(s, a, NULL), s);
    dg_solver_get_timing(s, &t);
    CHECK(t.faces_only == 1, "a fresh phi was loaded whole");
    transfer_faces(b, n);
    b[inside] = 3.0;
    CHECK_OK(dg_solve_d(s, b, NULL), s);
    dg_solver_get_timing(s, &t);
    CHECK(t.faces_only == 0, "an interior value 3 was not loaded");
    CHECK(memcmp(a, b, points * sizeof *a) != 0, "the interior value 3 changed nothing");
    transfer_faces(b, n);
    b[inside] = -0.0;
    CHECK_OK(dg_solve_d(s, b, NULL), s);
    dg_solver_get_timing(s, &t);
    CHECK(t.faces_only == 0, "an interior -0.0 took the faces-only load");
    free(a), free(b);
    dg_destroy(s);
    dense_problem_free(&d);
}

#endif /* DG_TRANSFER_CHECK_H */
