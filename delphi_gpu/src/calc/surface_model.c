/* Building the surface model: atom spheres, SAS neighbour lists and accessible SAS dots. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics_constants.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "solver_internal.h"
#include "stages.h"
#include "stages/surface_points.h"
#include "surface.h"

void surface_model_free(surface_model *sm) {
    free(sm->atom_index);
    free(sm->xyz);
    free(sm->radius);
    free(sm->sas_radius);
    free(sm->neighbor_start);
    free(sm->neighbors);
    free(sm->dots);
    free(sm->exposed);
    cell_list_free(&sm->atoms);
    cell_list_free(&sm->exposed_atoms);
    cell_list_free(&sm->dot_cells);
    memset(sm, 0, sizeof *sm);
}

static double distance2(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Atoms j != i whose SAS spheres intersect atom i's: one search per atom (in parallel) into a
 * list of its own, then the lists in atom order (CSR).  Returns 0, -1 when out of memory, 1 when
 * an atom has more than SURFACE_MAX_NEIGHBORS neighbours (msg says which; counting stops there,
 * so many atoms at one point fail fast). */
static int build_neighbors(surface_model *sm, char *msg, size_t msg_size) {
    sm->neighbor_start = calloc((size_t)sm->count + 1, sizeof *sm->neighbor_start);
    int **own = calloc((size_t)sm->count + 1, sizeof *own);
    if (!sm->neighbor_start || !own) {
        free(own);
        return -1;
    }
    int crowded = -1, any_crowded = 0, failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        int *found_list = malloc(((size_t)SURFACE_MAX_NEIGHBORS + 1) * sizeof *found_list);
        failed = !found_list;
#pragma omp for schedule(dynamic, 64)
        for (int i = 0; i < sm->count; ++i) {
            int stop;
#pragma omp atomic read
            stop = any_crowded;
            if (stop || !found_list) continue; /* the build fails anyway: no more counting */
            const double *ci = sm->xyz + 3 * i;
            int lo[3], hi[3], found = 0;
            const double reach = sm->sas_radius[i] + sm->max_sas_radius;
            /* The cells of one row (cy, cz) from lo[0] to hi[0] hold consecutive items, taken
               as one run (the same items in the same order as cell by cell); rows whose cells
               all lie farther than reach in y and z together hold no neighbour and are skipped
               (with 1e-6 A to spare for the rounding of a point's cell). */
            const cell_list *cl = &sm->atoms;
            const double skip2 = (reach + 1e-6) * (reach + 1e-6);
            if (cell_list_range(cl, ci, reach, lo, hi))
                for (int cz = lo[2]; cz <= hi[2]; ++cz) {
                    const double gz = cell_list_gap(cl, 2, cz, ci[2]);
                    for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                        const double gy = cell_list_gap(cl, 1, cy, ci[1]);
                        if (!(gy * gy + gz * gz < skip2)) continue;
                        const int end = cl->start[cell_list_index(cl, hi[0], cy, cz) + 1];
                        for (int k = cl->start[cell_list_index(cl, lo[0], cy, cz)]; k < end; ++k) {
                            const int j = cl->items[k];
                            const double rr = sm->sas_radius[i] + sm->sas_radius[j];
                            if (j == i || distance2(ci, sm->xyz + 3 * j) >= rr * rr) continue;
                            if (found < SURFACE_MAX_NEIGHBORS) found_list[found] = j;
                            if (++found > SURFACE_MAX_NEIGHBORS) {
#pragma omp atomic write
                                any_crowded = 1;
                                goto counted;
                            }
                        }
                    }
                }
        counted:
            sm->neighbor_start[i + 1] = found;
            if (found > 0 && found <= SURFACE_MAX_NEIGHBORS) {
                own[i] = malloc((size_t)found * sizeof **own);
                if (own[i])
                    memcpy(own[i], found_list, (size_t)found * sizeof **own);
                else
                    failed = 1;
            }
        }
        free(found_list);
    }
    /* Prefix sums in 64 bits: the total must fit the int offsets. */
    long long total = 0;
    for (int i = 0; i < sm->count && crowded < 0 && !failed; ++i) {
        if (sm->neighbor_start[i + 1] > SURFACE_MAX_NEIGHBORS) crowded = i;
        total += sm->neighbor_start[i + 1];
        if (total >= INT_MAX) crowded = i;
        sm->neighbor_start[i + 1] = (int)total;
    }
    if (!failed && crowded < 0) {
        sm->neighbors = malloc(((size_t)total + 1) * sizeof(int));
        failed = !sm->neighbors;
    }
    if (!failed && crowded < 0) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < sm->count; ++i)
            if (own[i])
                memcpy(sm->neighbors + sm->neighbor_start[i], own[i],
                       (size_t)(sm->neighbor_start[i + 1] - sm->neighbor_start[i]) * sizeof(int));
    }
    for (int i = 0; i < sm->count; ++i)
        free(own[i]);
    free(own);
    if (failed) return -1;
    if (crowded >= 0) {
        const double *c = sm->xyz + 3 * crowded;
        snprintf(msg, msg_size,
                 "atom %d (at %.3f %.3f %.3f) has more than %d atoms within reach of its "
                 "surface (the limit; overlapping copies of atoms?)",
                 sm->atom_index[crowded] + 1, c[0], c[1], c[2], SURFACE_MAX_NEIGHBORS);
        return 1;
    }
    /* Deepest overlap first: the neighbour most likely to bury a point is tried first (an
       insertion sort on keys computed once per neighbour: a stable order). */
    int longest = 0;
    for (int i = 0; i < sm->count; ++i)
        if (sm->neighbor_start[i + 1] - sm->neighbor_start[i] > longest)
            longest = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
#pragma omp parallel reduction(| : failed)
    {
        double *keys = malloc(((size_t)longest + 1) * sizeof *keys);
        failed = !keys;
#pragma omp for schedule(dynamic, 64)
        for (int i = 0; i < sm->count; ++i) {
            if (!keys) continue;
            int *list = sm->neighbors + sm->neighbor_start[i];
            const int len = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
            for (int a = 0; a < len; ++a) {
                const int j = list[a];
                const double key =
                    sqrt(distance2(sm->xyz + 3 * i, sm->xyz + 3 * j)) - sm->sas_radius[j];
                int b = a - 1;
                while (b >= 0 && keys[b] > key)
                    list[b + 1] = list[b], keys[b + 1] = keys[b], --b;
                list[b + 1] = j, keys[b + 1] = key;
            }
        }
        free(keys);
    }
    if (failed) return -1;
    return 0;
}

/* p lies inside atom j's SAS sphere (the accessibility test's expression). */
static inline int sas_covers(const surface_model *sm, int j, const double p[3]) {
    return dg_sp_sas_covers(sm->xyz + 3 * j, sm->sas_radius[j], p);
}

/* The first neighbour of i other than skip whose SAS sphere covers p, or -1 (p accessible). */
static int covering_neighbor(const surface_model *sm, int i, int skip, const double p[3]) {
    for (int k = sm->neighbor_start[i]; k < sm->neighbor_start[i + 1]; ++k) {
        const int j = sm->neighbors[k];
        if (j != skip && sas_covers(sm, j, p)) return j;
    }
    return -1;
}

/* surface_accessible_near with a hint: the neighbour that covered the previous point of a
 * sequence (nearby points are mostly covered by the same atom) is tried first and updated.  The
 * answer is the same: the hint is a neighbour of i other than skip (-1: none yet). */
static int accessible_hinted(const surface_model *sm, int i, int skip, const double p[3],
                             int *hint) {
    if (*hint >= 0 && sas_covers(sm, *hint, p)) return 0;
    const int j = covering_neighbor(sm, i, skip, p);
    if (j < 0) return 1;
    *hint = j;
    return 0;
}

int surface_accessible_near(const surface_model *sm, int i, int skip, const double p[3]) {
    return covering_neighbor(sm, i, skip, p) < 0;
}

int surface_circle(const surface_model *sm, int i, int j, double m[3], double *rho, double e1[3],
                   double e2[3]) {
    return dg_sp_circle(sm->xyz, sm->sas_radius, i, j, m, rho, e1, e2);
}

void surface_circle_point(const double m[3], double rho, const double e1[3], const double e2[3],
                          double c, double s, double p[3]) {
    dg_sp_circle_point(m, rho, e1, e2, c, s, p);
}

/* cos and sin of 2 pi t / n for t < n (n >= 1), each computed once: [2 n] doubles, or NULL
 * when out of memory. */
static double *circle_angles(int n) {
    double *cs = malloc(((size_t)n + 1) * 2 * sizeof *cs);
    if (!cs) return NULL;
    for (int t = 0; t < n; ++t) {
        const double angle = 2.0 * M_PI * t / n;
        cs[2 * t] = cos(angle), cs[2 * t + 1] = sin(angle);
    }
    return cs;
}

/* How the SAS sphere of an atom k meets a circle (centre m, radius rho, orthonormal e1, e2
 * spanning its plane).  A point at angle a on the circle is p = m + rho (cos a e1 + sin a e2),
 * and with d = c_k - m, A = d.e1, B = d.e2 (d - A e1 - B e2 lies along the circle's axis):
 *     |p - c_k|^2 - r_k^2 = gap - 2 rho S(a),   gap = |d|^2 + rho^2 - r_k^2,
 *     S(a) = A cos a + B sin a,   S'(a) = B cos a - A sin a,   |S''| <= sqrt(A^2 + B^2),
 * so the sphere covers the point exactly when gap < 2 rho S(a). */
typedef struct circle_cut {
    int atom;
    double a, b, gap, bend; /* A, B, gap and |A| + |B| (>= |S''|) */
} circle_cut;

/* ball: the sphere's centre and radius (ball[3]). */
static circle_cut circle_cut_of(int atom, const double ball[4], const double m[3], double rho,
                                const double e1[3], const double e2[3]) {
    const double d[3] = {ball[0] - m[0], ball[1] - m[1], ball[2] - m[2]};
    circle_cut cut;
    cut.atom = atom;
    cut.a = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
    cut.b = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2];
    cut.gap = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + rho * rho - ball[3] * ball[3];
    cut.bend = fabs(cut.a) + fabs(cut.b);
    return cut;
}

/* Whether the sphere of `cut` covers no point (-1), every point (1) or some (0) of the circle's
 * arc of angles centre +- half, where cos and sin of the centre are cc and sc (half >= pi: the
 * whole circle).  Over the arc S lies within S(centre) +- (|S'(centre)| half + bend half^2 / 2),
 * and within +- sqrt(A^2 + B^2) on the whole circle.  The point-by-point test (sas_covers: r^2
 * times 1 - 1e-12) rounds its p and distance, and this bound its own terms, each by far less
 * than `slack` (some 1e-15 of the coordinates' size times the distances, against 1e-9): only a
 * sphere that clears the arc by more than slack counts as reaching none of it, only one that
 * covers it by more than slack as covering all.  So the points that the test finds covered by
 * no sphere of "some" are exactly those it finds covered by none at all. */
static int circle_cut_reach(const circle_cut *cut, double rho, double cc, double sc, double half,
                            double slack) {
    if (half >= M_PI) { /* gap -+ 2 rho sqrt(A^2 + B^2), compared as squares */
        const double swing2 = 4.0 * rho * rho * (cut->a * cut->a + cut->b * cut->b);
        const double clear = cut->gap - slack, under = cut->gap + slack;
        if (clear > 0.0 && clear * clear >= swing2) return -1;
        if (under < 0.0 && under * under > swing2) return 1;
        return 0;
    }
    const double s = cut->a * cc + cut->b * sc, ds = cut->b * cc - cut->a * sc;
    const double spread = fabs(ds) * half + 0.5 * cut->bend * half * half;
    /* the bounds of gap - 2 rho S over the arc */
    const double low = cut->gap - 2.0 * rho * (s + spread);
    const double high = cut->gap - 2.0 * rho * (s - spread);
    if (low >= slack) return -1;
    if (high < -slack) return 1;
    return 0;
}

#define DOT_RUN 16 /* dots per run: the arcs that circle_cut_reach classifies */

/* One thread's state while it finds the dots of atom i's circles. */
typedef struct dot_work {
    int n, runs;          /* dots per circle, runs per circle */
    const double *cs;     /* [2 n] cos and sin of each dot's angle */
    const double *run_cs; /* [3 runs] cos and sin of each run's centre, its half width */
    const int *around;    /* i's neighbours (its list in the CSR) */
    int len;
    double *balls;    /* [4 len] their centres and SAS radii, side by side */
    circle_cut *cuts; /* [len] the spheres that cut the current circle */
    int *tests;       /* [len] the atoms that reach the current run */
    int cover;        /* the entry of around[] that covered i's last covered circle, or -1 */
    double *list;     /* the accessible dots found so far, [3 kept] */
    int kept, capacity;
} dot_work;

/* Appends p to w's list; -1 when out of memory. */
static int keep_dot(dot_work *w, const double p[3]) {
    if (w->kept == w->capacity) {
        const int capacity = w->capacity ? 2 * w->capacity : 64;
        double *grown = realloc(w->list, (size_t)capacity * 3 * sizeof *grown);
        if (!grown) return -1;
        w->list = grown, w->capacity = capacity;
    }
    memcpy(w->list + 3 * w->kept++, p, 3 * sizeof *p);
    return 0;
}

/* The accessible dots of the circle of atom i and its neighbour around[k] (k < len), appended
 * to w's list in angle order; 0, or -1 when out of memory. */
static int circle_dots(const surface_model *sm, int i, int k, dot_work *w) {
    const int j = w->around[k];
    double m[3], rho, e1[3], e2[3];
    if (!surface_circle(sm, i, j, m, &rho, e1, e2)) return 0;
    const double size = fabs(m[0]) + fabs(m[1]) + fabs(m[2]) + rho + 1.0;
    const double slack = 1e-9 * size * (sm->max_sas_radius + 1.0);
    /* the spheres that cut the circle; none if one covers it */
    if (w->cover >= 0 && w->cover != k) {
        const circle_cut cut =
            circle_cut_of(w->around[w->cover], w->balls + 4 * w->cover, m, rho, e1, e2);
        if (circle_cut_reach(&cut, rho, 1.0, 0.0, M_PI, slack) > 0) return 0;
    }
    int cutting = 0;
    for (int q = 0; q < w->len; ++q) {
        if (q == k) continue;
        const circle_cut cut = circle_cut_of(w->around[q], w->balls + 4 * q, m, rho, e1, e2);
        const int reach = circle_cut_reach(&cut, rho, 1.0, 0.0, M_PI, slack);
        if (reach > 0) {
            w->cover = q;
            return 0;
        }
        if (reach == 0) w->cuts[cutting++] = cut;
    }
    int run_cover = -1; /* the entry of cuts[] that covered the last run */
    for (int r = 0; r < w->runs; ++r) {
        const double *arc = w->run_cs + 3 * r;
        if (run_cover >= 0 &&
            circle_cut_reach(w->cuts + run_cover, rho, arc[0], arc[1], arc[2], slack) > 0)
            continue;
        int count = 0, whole = 0;
        for (int q = 0; q < cutting && !whole; ++q) {
            const int reach = circle_cut_reach(w->cuts + q, rho, arc[0], arc[1], arc[2], slack);
            if (reach > 0) whole = 1, run_cover = q;
            if (reach == 0) w->tests[count++] = w->cuts[q].atom;
        }
        if (whole) continue;
        const int end = (r + 1) * DOT_RUN < w->n ? (r + 1) * DOT_RUN : w->n;
        int hint = -1; /* the atom that covered the run's last covered dot */
        for (int t = r * DOT_RUN; t < end; ++t) {
            double p[3];
            dg_sp_circle_point(m, rho, e1, e2, w->cs[2 * t], w->cs[2 * t + 1], p);
            if (hint >= 0 && sas_covers(sm, hint, p)) continue;
            int covered = 0;
            for (int q = 0; q < count && !covered; ++q)
                if (sas_covers(sm, w->tests[q], p)) covered = 1, hint = w->tests[q];
            if (!covered && keep_dot(w, p) != 0) return -1;
        }
    }
    return 0;
}

/* Accessible dots on the SAS intersection circles (arcs and, at their ends, the vertices):
 * per atom i (in parallel) over its pairs i < j into a list of its own, then the lists in atom
 * order (one pass of the accessibility tests).  Every circle gets circle_dots equally spaced
 * angles, whatever its radius (as DelPhi samples its circles: see surface.h).  A dot is
 * accessible when no neighbour of i other than j covers it (sas_covers); circle_dots leaves
 * out the spheres that miss a circle, or a run of DOT_RUN dots of it, and does not sample a
 * circle or run that one sphere covers whole (circle_cut_reach): the same dots as testing every
 * neighbour at every angle. */
static int build_dots(surface_model *sm, int circle_dots_wanted) {
    const int n = circle_dots_wanted > 8 ? circle_dots_wanted : 8;
    const int runs = (n + DOT_RUN - 1) / DOT_RUN;
    double *cs = circle_angles(n);
    double *run_cs = malloc(((size_t)runs + 1) * 3 * sizeof *run_cs);
    int *first = calloc((size_t)sm->count + 1, sizeof *first);
    double **own = calloc((size_t)sm->count + 1, sizeof *own);
    int failed = !first || !own || !cs || !run_cs;
    int longest = 0;
    for (int i = 0; i < sm->count; ++i)
        if (sm->neighbor_start[i + 1] - sm->neighbor_start[i] > longest)
            longest = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
    for (int r = 0; !failed && r < runs; ++r) {
        const int t0 = r * DOT_RUN, t1 = t0 + DOT_RUN - 1 < n - 1 ? t0 + DOT_RUN - 1 : n - 1;
        const double centre = M_PI * (t0 + t1) / n;
        run_cs[3 * r] = cos(centre), run_cs[3 * r + 1] = sin(centre);
        run_cs[3 * r + 2] = M_PI * (t1 - t0) / n * (1.0 + 1e-9);
    }
    if (!failed) {
#pragma omp parallel reduction(| : failed)
        {
            dot_work w;
            memset(&w, 0, sizeof w);
            w.n = n, w.runs = runs, w.cs = cs, w.run_cs = run_cs;
            w.balls = malloc(((size_t)longest + 1) * 4 * sizeof *w.balls);
            w.cuts = malloc(((size_t)longest + 1) * sizeof *w.cuts);
            w.tests = malloc(((size_t)longest + 1) * sizeof *w.tests);
            failed = !w.balls || !w.cuts || !w.tests;
#pragma omp for schedule(dynamic, 16)
            for (int i = 0; i < sm->count; ++i) {
                w.around = sm->neighbors + sm->neighbor_start[i];
                w.len = sm->neighbor_start[i + 1] - sm->neighbor_start[i];
                w.cover = -1, w.list = NULL, w.kept = w.capacity = 0;
                for (int q = 0; q < w.len && !failed; ++q) {
                    memcpy(w.balls + 4 * q, sm->xyz + 3 * w.around[q], 3 * sizeof *w.balls);
                    w.balls[4 * q + 3] = sm->sas_radius[w.around[q]];
                }
                for (int k = 0; k < w.len && !failed; ++k)
                    if (w.around[k] > i && circle_dots(sm, i, k, &w) != 0) failed = 1;
                own[i] = w.list;
                first[i + 1] = w.kept;
            }
            free(w.balls), free(w.cuts), free(w.tests);
        }
    }
    if (!failed) {
        long long total = 0; /* 64 bits: the dot count must fit the int offsets */
        for (int i = 0; i < sm->count && !failed; ++i) {
            total += first[i + 1];
            failed = total > INT_MAX / 3;
            first[i + 1] = (int)total;
        }
    }
    if (!failed) {
        sm->dot_count = first[sm->count];
        sm->dots = malloc(((size_t)sm->dot_count + 1) * 3 * sizeof(double));
        failed = !sm->dots;
    }
    if (own) {
#pragma omp parallel for schedule(dynamic, 256)
        for (int i = 0; i < sm->count; ++i) {
            if (!failed && own[i])
                memcpy(sm->dots + 3 * (size_t)first[i], own[i],
                       (size_t)(first[i + 1] - first[i]) * 3 * sizeof(double));
            free(own[i]);
        }
    }
    free(first), free(own), free(cs), free(run_cs);
    if (failed) return -1;
    return cell_list_build(&sm->dot_cells, sm->dots, sm->dot_count,
                           fmax(SURFACE_DOT_CELL, 0.25 * sm->probe));
}

/* Point k of n on a unit sphere (golden-angle spiral: near-uniform spacing); turn holds
 * cos and sin of the golden angle times k (spiral_turns). */
static void spiral_point(int k, int n, const double turn[2], double u[3]) {
    const double z = 1.0 - (2.0 * k + 1.0) / n;
    const double r = sqrt(fmax(0.0, 1.0 - z * z));
    u[0] = r * turn[0], u[1] = r * turn[1], u[2] = z;
}

/* cos and sin of the golden angle times k, k < count (the same for every sphere). */
static double *spiral_turns(int count) {
    double *turns = malloc(((size_t)count + 1) * 2 * sizeof *turns);
    if (!turns) return NULL;
    const double golden_angle = M_PI * (3.0 - sqrt(5.0));
    for (int k = 0; k < count; ++k)
        turns[2 * k] = cos(golden_angle * k), turns[2 * k + 1] = sin(golden_angle * k);
    return turns;
}

/* exposed[i] = 1 when some of atom i's SAS sphere is accessible: an accessible arc dot on it,
 * or an accessible point among a sample of its sphere (for spheres without arcs).  Buried
 * atoms cannot offer a contact probe, so the queries skip them. */
static int mark_exposed(surface_model *sm) {
    sm->exposed = calloc((size_t)sm->count + 1, 1);
    const double largest = sm->max_sas_radius;
    const int max_samples = 4 + (int)ceil(4.0 * M_PI * largest * largest / 0.25);
    double *turns = spiral_turns(max_samples);
    if (!sm->exposed || !turns) {
        free(turns);
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < sm->count; ++i) {
        const double r = sm->sas_radius[i];
        int exposed = 0;
        /* an arc dot of i lies on i's sphere */
        int lo[3], hi[3];
        const double *c = sm->xyz + 3 * i;
        if (sm->dot_count && cell_list_range(&sm->dot_cells, c, r, lo, hi))
            for (int cz = lo[2]; cz <= hi[2] && !exposed; ++cz)
                for (int cy = lo[1]; cy <= hi[1] && !exposed; ++cy) {
                    /* the cells lo[0]..hi[0] of a row hold one contiguous run of items */
                    const int *start = sm->dot_cells.start;
                    const int end = start[cell_list_index(&sm->dot_cells, hi[0], cy, cz) + 1];
                    for (int k = start[cell_list_index(&sm->dot_cells, lo[0], cy, cz)]; k < end;
                         ++k)
                        if (fabs(sqrt(distance2(c, sm->dots + 3 * sm->dot_cells.items[k])) - r) <
                            1e-9 * r) {
                            exposed = 1;
                            break;
                        }
                }
        const int samples = 4 + (int)ceil(4.0 * M_PI * r * r / 0.25);
        int hint = -1;
        for (int k = 0; k < samples && !exposed; ++k) {
            double u[3], p[3];
            spiral_point(k, samples, turns + 2 * k, u);
            for (int a = 0; a < 3; ++a)
                p[a] = c[a] + r * u[a];
            exposed = accessible_hinted(sm, i, -1, p, &hint);
        }
        sm->exposed[i] = (unsigned char)exposed;
    }
    free(turns);
    return 0;
}

/* The arc dots by the solver's backend (dg_stage_arc_dots_on): the same dots as build_dots. */
static int device_dots(surface_model *sm, int circle_dots, dg_solver solver, char *msg,
                       size_t msg_size) {
    const int n = circle_dots > 8 ? circle_dots : 8;
    double *cs = circle_angles(n);
    int *counts = malloc(((size_t)sm->count + 1) * sizeof *counts);
    if (!cs || !counts) {
        free(cs), free(counts);
        snprintf(msg, msg_size, "out of memory building the surface model");
        return DG_ERR_OUT_OF_MEMORY;
    }
    const dg_arc_dots_request r = {
        sm->count, sm->xyz, sm->sas_radius, sm->neighbor_start, sm->neighbors, n, cs};
    double *dots = NULL;
    long total = 0;
    char why[512];
    const int st = dg_stage_arc_dots_on(solver, &r, counts, &dots, &total, why, sizeof why);
    free(cs), free(counts);
    if (st != DG_OK) {
        snprintf(msg, msg_size, "arc dots of the surface model: %s", why);
        return st;
    }
    sm->dot_count = (int)total;
    sm->dots = dots ? dots : malloc(3 * sizeof(double));
    if (!sm->dots || cell_list_build(&sm->dot_cells, sm->dots, sm->dot_count,
                                     fmax(SURFACE_DOT_CELL, 0.25 * sm->probe)) != 0) {
        snprintf(msg, msg_size, "out of memory building the surface model");
        return DG_ERR_OUT_OF_MEMORY;
    }
    return DG_OK;
}

/* Whether the solver's backend finds arc dots itself (the CUDA backend). */
static int backend_has_arc_dots(dg_solver solver) {
    const dg_backend_ops *ops = NULL;
    void *state = NULL;
    if (solver) dg_solver_backend(solver, &ops, &state);
    return ops && ops->arc_dots;
}

int surface_model_build(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                        int circle_dots, char *msg, size_t msg_size) {
    return surface_model_build_on(sm, mol, kind, probe, circle_dots, NULL, msg, msg_size) == DG_OK
               ? 0
               : -1;
}

int surface_model_build_on(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                           int circle_dots, dg_solver solver, char *msg, size_t msg_size) {
    memset(sm, 0, sizeof *sm);
    sm->kind = kind;
    sm->probe = kind == DG_SURFACE_MOLECULAR ? probe : 0.0;
    if (!(sm->probe >= 0.0 && isfinite(sm->probe))) {
        snprintf(msg, msg_size, "probe radius %g must be >= 0", probe);
        return DG_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (!isfinite(a->radius) || a->radius < 0.0 || !isfinite(a->x) || !isfinite(a->y) ||
            !isfinite(a->z)) {
            snprintf(msg, msg_size, "atom %zu has radius %g (must be >= 0)", i + 1, a->radius);
            return DG_ERR_INVALID_ARGUMENT;
        }
        if (a->radius > 0.0) sm->count++;
    }
    const size_t n = (size_t)sm->count + 1;
    sm->atom_index = malloc(n * sizeof(int));
    sm->xyz = malloc(3 * n * sizeof(double));
    sm->radius = malloc(n * sizeof(double));
    sm->sas_radius = malloc(n * sizeof(double));
    if (!sm->atom_index || !sm->xyz || !sm->radius || !sm->sas_radius) goto out_of_memory;
    int k = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (!(a->radius > 0.0)) continue;
        sm->atom_index[k] = (int)i;
        sm->xyz[3 * k] = a->x, sm->xyz[3 * k + 1] = a->y, sm->xyz[3 * k + 2] = a->z;
        sm->radius[k] = a->radius;
        sm->sas_radius[k] = a->radius + sm->probe;
        if (a->radius > sm->max_radius) sm->max_radius = a->radius;
        if (sm->sas_radius[k] > sm->max_sas_radius) sm->max_sas_radius = sm->sas_radius[k];
        ++k;
    }
    const double cell = fmax(0.5 * sm->max_sas_radius, SURFACE_DOT_CELL);
    if (cell_list_build(&sm->atoms, sm->xyz, sm->count, cell) != 0) goto out_of_memory;
    const int neighbors = build_neighbors(sm, msg, msg_size);
    if (neighbors > 0) {
        surface_model_free(sm);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (neighbors != 0) goto out_of_memory;
    if (sm->probe > 0.0 && backend_has_arc_dots(solver)) {
        const int st = device_dots(sm, circle_dots, solver, msg, msg_size);
        if (st != DG_OK) {
            surface_model_free(sm);
            return st;
        }
    } else if (sm->probe > 0.0 && build_dots(sm, circle_dots) != 0) {
        goto out_of_memory;
    }
    if (mark_exposed(sm) != 0) goto out_of_memory;
    if (cell_list_build_subset(&sm->exposed_atoms, sm->xyz, sm->count, cell, sm->exposed) != 0)
        goto out_of_memory;
    return DG_OK;
out_of_memory:
    surface_model_free(sm);
    snprintf(msg, msg_size, "out of memory building the surface model");
    return DG_ERR_OUT_OF_MEMORY;
}
