/* Dense maps -> prepared problem (DelPhi's rules, docs/SOLVER.md "Data layout"), and the export of
 * a prepared problem back into DelPhi's sparse arrays (dg_sparse_from_dense_*). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_charges.h"
#include "medium_common.h"
#include "solver_internal.h"

/* Physical constants as DelPhi uses them. */
#define DG_EPKT_NUMERATOR 166804.4928 /* epkt = this / T: e^2/(4 pi eps0 A kT) */
#define DG_DEFAULT_TEMP   297.3342    /* K; epkt = 561.0 */
#define DG_DEBYE_CONSTANT 0.01990076  /* Debye length = this * sqrt(T eps / I) A */
#define DG_FOUR_PI        12.566370614359172

/* Salt-derived constants of a dense medium. */
typedef struct salt_terms {
    int present;
    double ionic_strength; /* mol/L */
    double debfct;         /* eps'_out / (Debye length * scale)^2 */
    double salt_factor;    /* eps'_out / (6 eps'_out + debfct) */
    double nonlinear_coefficient, chi[4];
} salt_terms;

/* Threads of the list-building passes over n items (one below a size where forking costs more
   than it saves), at most DG_DENSE_MAX_PARTS. */
#define DG_DENSE_MAX_PARTS 256
static int dense_parts(long n) {
    int parts = omp_get_max_threads();
    if (parts > DG_DENSE_MAX_PARTS) parts = DG_DENSE_MAX_PARTS;
    return n < 4096 ? 1 : parts;
}

/* The first entry of list[0..n) (in list order) whose charge is not finite, or non-zero on a
   face point of the grid; n when there is none.  On the threads. */
static long first_bad_charge(const dg_grid_charge *list, long n, const dg_prepared *p) {
    long first = n;
#pragma omp parallel for schedule(static) reduction(min : first) num_threads(dense_parts(n))
    for (long i = 0; i < n; ++i) {
        if (i >= first) continue;
        int x, y, z;
        dg_coords_of(p, list[i].index, &x, &y, &z);
        if (!isfinite(list[i].charge) || (list[i].charge != 0.0 && !dg_is_interior(p, x, y, z)))
            first = i;
    }
    return first;
}

void dg_salt_ions(const dg_salt *salt, double *cation, double *anion) {
    int g = salt->cation_valence, r = salt->anion_valence;
    while (r) {
        const int remainder = g % r;
        g = r, r = remainder;
    }
    *cation = salt->concentration * salt->anion_valence / g;
    *anion = salt->concentration * salt->cation_valence / g;
}

/* Ionic strength, Debye factor and Taylor coefficients chi2..chi5 of the ionic charge density
   beyond its linear term, from the salts (each neutral, with its two valences). */
static int compute_salt_terms(const dg_salt *salts, int count, double eps_solvent, double temp,
                              double scale, salt_terms *t, char *msg, size_t size) {
    memset(t, 0, sizeof *t);
    double moment[7] = {0}; /* sum over ions of c z^k, k = 0..6 (z signed) */
    for (int i = 0; i < count; ++i) {
        const dg_salt *s = &salts[i];
        if (!isfinite(s->concentration) || s->concentration < 0.0 || s->cation_valence < 1 ||
            s->anion_valence < 1 || s->cation_valence > 4 || s->anion_valence > 4) {
            snprintf(msg, size,
                     "salts[%d]: concentration %g M, valences %d:%d (need concentration >= 0 "
                     "and valences 1..4)",
                     i, s->concentration, s->cation_valence, s->anion_valence);
            return isfinite(s->concentration) ? DG_ERR_INVALID_ARGUMENT : DG_ERR_NONFINITE_INPUT;
        }
        double c_cation, c_anion;
        dg_salt_ions(s, &c_cation, &c_anion);
        for (int k = 0; k <= 6; ++k)
            moment[k] += c_cation * pow(s->cation_valence, k) + c_anion * pow(-s->anion_valence, k);
    }
    t->ionic_strength = 0.5 * moment[2];
    if (t->ionic_strength <= 0.0) return DG_OK;
    if (!isfinite(eps_solvent) || eps_solvent <= 0.0) {
        snprintf(msg, size, "epsilon_solvent is %g (must be > 0 with salt)", eps_solvent);
        return DG_ERR_BAD_PERMITTIVITY;
    }
    const double epkt = DG_EPKT_NUMERATOR / temp;
    const double eps_out = eps_solvent / epkt;
    const double debye_length = DG_DEBYE_CONSTANT * sqrt(temp * eps_solvent / t->ionic_strength);
    t->present = 1;
    t->debfct = eps_out / ((debye_length * scale) * (debye_length * scale));
    t->salt_factor = eps_out / (6.0 * eps_out + t->debfct);
    t->nonlinear_coefficient = t->debfct / (2.0 * t->ionic_strength * eps_out);
    t->chi[0] = moment[3] / 2.0;
    t->chi[1] = -moment[4] / 6.0;
    t->chi[2] = moment[5] / 24.0;
    t->chi[3] = -moment[6] / 120.0;
    return DG_OK;
}

/* 1 when every medium number on the faces of the interior points is below count: along each
 * interior row, medium_x from x = 0 to nx - 2, medium_y on rows y - 1 and y, medium_z on planes
 * z - 1 and z (the entries the per-point check reads).  A fast pass; on 0 the per-point check
 * finds and names the first bad entry. */
static int media_in_range(const unsigned char *mx, const unsigned char *my, const unsigned char *mz,
                          int count, const dg_prepared *p) {
    const long nx = p->nx, plane = nx * p->ny;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const long row = nx * y + plane * z;
            unsigned char top = 0;
            for (long x = 0; x < nx - 1; ++x)
                top = mx[row + x] > top ? mx[row + x] : top;
            for (long x = 1; x < nx - 1; ++x) {
                const unsigned char a =
                    my[row + x] > my[row - nx + x] ? my[row + x] : my[row - nx + x];
                const unsigned char b =
                    mz[row + x] > mz[row - plane + x] ? mz[row + x] : mz[row - plane + x];
                top = a > top ? a : top;
                top = b > top ? b : top;
            }
            bad |= top >= count;
        }
    return !bad;
}

/* Flags of one interior row of the dense derivation, for x = 1 .. nx - 2: ROW_BOUNDARY where
   the six face permittivities of the point are not all equal, or where mobile ions meet a
   permittivity other than the solvent's (DelPhi's boundary points); ROW_SALT where mobile ions
   are allowed (with salt only). */
enum { ROW_BOUNDARY = 1, ROW_SALT = 2 };

/* The medium-number maps' form of the row flags: the media compared as bytes (equal numbers
   mean equal permittivities; vector instructions), and only where they differ the
   permittivities compared (two media may share one).  The salt test needs the permittivity of
   each mobile-ion point: when a single medium has the solvent's permittivity (the usual case),
   a byte comparison with it; otherwise a table. */
typedef struct media_rows {
    const unsigned char *face[3];   /* medium_x, medium_y, medium_z */
    const unsigned char *ion;       /* ion_accessible, or NULL without salt */
    double epsilon[256];            /* medium_epsilon, then zeros */
    unsigned char off_solvent[256]; /* |epsilon - epsilon_solvent| > 1e-6 epsilon_solvent */
    int solvent_medium;             /* the one medium not off_solvent, -1 if none, -2 if several */
    long nx, plane;
} media_rows;

static void media_rows_init(media_rows *r, const unsigned char *const face[3],
                            const unsigned char *ion, const double *epsilon, int count,
                            double epsilon_solvent, long nx, long plane) {
    memset(r, 0, sizeof *r);
    for (int a = 0; a < 3; ++a)
        r->face[a] = face[a];
    r->ion = ion, r->nx = nx, r->plane = plane;
    r->solvent_medium = -1;
    for (int i = 0; i < count; ++i) {
        r->epsilon[i] = epsilon[i];
        r->off_solvent[i] = fabs(epsilon[i] - epsilon_solvent) > 1e-6 * epsilon_solvent;
        if (!r->off_solvent[i]) r->solvent_medium = r->solvent_medium == -1 ? i : -2;
    }
}

/* flags[x] for the row whose point x = 0 is w = row (x from 1 to nx - 2); flags holds nx + 8
   bytes, those outside 1 .. nx - 2 are set to 0. */
static void media_row_flags(const media_rows *r, long row, unsigned char *flags) {
    const long nx = r->nx;
    const unsigned char *mx = r->face[0] + row, *my = r->face[1] + row, *mz = r->face[2] + row;
    const unsigned char *my_below = my - nx, *mz_below = mz - r->plane;
    memset(flags + nx - 1, 0, 9);
    flags[0] = 0;
    for (long x = 1; x < nx - 1; ++x) {
        const unsigned char e = mx[x - 1];
        flags[x] = (unsigned char)((e != mx[x]) | (e != my_below[x]) | (e != my[x]) |
                                   (e != mz_below[x]) | (e != mz[x]));
    }
    /* Where the media differ, the permittivities decide (8 flags at a time skipped when 0). */
    for (long x0 = 0; x0 < nx - 1; x0 += 8) {
        uint64_t word;
        memcpy(&word, flags + x0, sizeof word);
        if (!word) continue;
        for (long x = x0; x < x0 + 8; ++x)
            if (flags[x]) {
                const double *eps = r->epsilon, e = eps[mx[x - 1]];
                flags[x] = eps[mx[x]] != e || eps[my_below[x]] != e || eps[my[x]] != e ||
                           eps[mz_below[x]] != e || eps[mz[x]] != e;
            }
    }
    if (!r->ion) return;
    const unsigned char *ion = r->ion + row;
    if (r->solvent_medium >= 0) {
        const unsigned char solvent = (unsigned char)r->solvent_medium;
        for (long x = 1; x < nx - 1; ++x) {
            const unsigned char mobile = ion[x] != 0;
            flags[x] |= (unsigned char)((mobile & (mx[x - 1] != solvent)) | (mobile << 1));
        }
    } else if (r->solvent_medium == -1) {
        for (long x = 1; x < nx - 1; ++x) {
            const unsigned char mobile = ion[x] != 0;
            flags[x] |= (unsigned char)(mobile | (mobile << 1));
        }
    } else {
        for (long x = 1; x < nx - 1; ++x) {
            const unsigned char mobile = ion[x] != 0;
            flags[x] |= (unsigned char)((mobile & r->off_solvent[mx[x - 1]]) | (mobile << 1));
        }
    }
}

#define DG_TEMPLATE "medium_dense_template.h"
#include "for_each_precision.h" /* the *_impl_f and *_impl_d functions below */

int dg_set_dense_medium_f(dg_solver s, const dg_dense_medium_f *m) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, set_dense_medium_impl_f(s, m), "set its medium");
}
int dg_set_dense_medium_d(dg_solver s, const dg_dense_medium_d *m) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, set_dense_medium_impl_d(s, m), "set its medium");
}
int dg_sparse_counts_f(const dg_dense_medium_f *m, dg_sparse_counts *counts, char *msg,
                       size_t size) {
    return sparse_counts_impl_f(m, counts, msg, size);
}
int dg_sparse_counts_d(const dg_dense_medium_d *m, dg_sparse_counts *counts, char *msg,
                       size_t size) {
    return sparse_counts_impl_d(m, counts, msg, size);
}
int dg_sparse_from_dense_f(const dg_dense_medium_f *m, int *boundary_index, float *boundary_weights,
                           int *charge_index, float *charge_source, float *salt_factor_odd,
                           float *salt_factor_even, dg_sparse_medium_f *out, char *msg,
                           size_t size) {
    return sparse_from_dense_impl_f(m, boundary_index, boundary_weights, charge_index,
                                    charge_source, salt_factor_odd, salt_factor_even, out, msg,
                                    size);
}
int dg_sparse_from_dense_d(const dg_dense_medium_d *m, int *boundary_index,
                           double *boundary_weights, int *charge_index, double *charge_source,
                           double *salt_factor_odd, double *salt_factor_even,
                           dg_sparse_medium_d *out, char *msg, size_t size) {
    return sparse_from_dense_impl_d(m, boundary_index, boundary_weights, charge_index,
                                    charge_source, salt_factor_odd, salt_factor_even, out, msg,
                                    size);
}

/* 1 when the six face permittivities around point w differ (a dielectric-boundary point). */
static int dielectric_jump_d(const dg_dense_medium_d *m, long w) {
    const double e0 = face_eps_d(m, w, 0);
    for (int f = 1; f < 6; ++f)
        if (face_eps_d(m, w, f) != e0) return 1;
    return 0;
}

/* The boundary points of both colours (colour 0 then 1, each in list order) with a dielectric
   jump into list; returns their number.  Each thread takes a contiguous range: it counts its
   points, the counts' prefix sums give its first slot, then it fills (the serial order). */
static size_t dielectric_boundary_d(const dg_dense_medium_d *m, const dg_prepared *p, long *list,
                                    int num_threads) {
    const long nb0 = p->boundary_count[0], total = nb0 + p->boundary_count[1];
    size_t first[DG_DENSE_MAX_PARTS + 1] = {0};
    int parts = dense_parts(total);
    if (num_threads > 0 && num_threads < parts) parts = num_threads;
    int team = 1; /* threads the runtime gave */
#pragma omp parallel num_threads(parts)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const long begin = total * t / n, end = total * (t + 1) / n;
        size_t here = 0;
        for (long k = begin; k < end; ++k) {
            const int c = k >= nb0;
            here += dielectric_jump_d(m, 2L * p->boundary_index[c][k - c * nb0] + c);
        }
        first[t + 1] = here;
#pragma omp barrier
#pragma omp single
        {
            team = n;
            for (int i = 0; i < n; ++i)
                first[i + 1] += first[i];
        }
        size_t slot = first[t];
        for (long k = begin; k < end; ++k) {
            const int c = k >= nb0;
            const long w = 2L * p->boundary_index[c][k - c * nb0] + c;
            if (dielectric_jump_d(m, w)) list[slot++] = w;
        }
    }
    return first[team];
}

static int set_dense_medium_boundary(dg_solver s, const dg_dense_medium_d *m,
                                     dg_sparse_counts *counts, long **boundary, size_t *count) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    dg_clear_error(s);
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    if (!m || !counts) return dg_fail(s, DG_ERR_INVALID_ARGUMENT, "medium or counts is NULL");
    dg_prepared prep;
    int st = derive_prepared_d(m, &prep, s->error.message, sizeof s->error.message);
    if (st != DG_OK) {
        dg_prepared_free(&prep);
        return s->error.status = st;
    }
    counts->boundary_count_odd = prep.boundary_count[0];
    counts->boundary_count = prep.boundary_count[0] + prep.boundary_count[1];
    counts->charge_count_odd = prep.charge_count[0];
    counts->charge_count = prep.charge_count[0] + prep.charge_count[1];
    counts->charges_not_interior = prep.charges_not_interior;
    if (boundary && count) {
        /* Colour 0 then colour 1, each in grid order: DelPhi's sparse list order. */
        long *list = malloc(((size_t)counts->boundary_count + 1) * sizeof *list);
        if (!list) {
            dg_prepared_free(&prep);
            return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "out of memory for %d boundary points",
                           counts->boundary_count);
        }
        *boundary = list, *count = dielectric_boundary_d(m, &prep, list, s->options.num_threads);
    }
    st = dg_install_medium(s, &prep);
    if (st != DG_OK && boundary && count) free(*boundary), *boundary = NULL, *count = 0;
    return st;
}

int dg_set_dense_medium_boundary_d(dg_solver s, const dg_dense_medium_d *m,
                                   dg_sparse_counts *counts, long **boundary, size_t *count) {
    /* a success went through dg_install_medium, which agreed (and freed the list on failure) */
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, set_dense_medium_boundary(s, m, counts, boundary, count),
                              "set its medium");
}
