/* dg_set_sparse_medium_f/_d: validate DelPhi's sparse form and turn it into a dg_prepared. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_pool.h"
#include "medium_common.h"
#include "solver_internal.h"

static const char *section_name(int colour) {
    return colour == 0 ? "odd" : "even";
}

/* The reasons a sparse-list entry is refused. */
enum { INDEX_OK, INDEX_HALF_RANGE, INDEX_FULL_RANGE, INDEX_PARITY, INDEX_FACE };

/* Decode without a message (the parallel path); INDEX_OK or the reason. */
static inline int sparse_half_index(const dg_prepared *p, int index_kind, int colour, long value,
                                    long *half_index) {
    long w;
    if (index_kind == DG_INDEX_DELPHI_HALF) {
        if (value < 1 || value > (long)p->half_count[colour]) return INDEX_HALF_RANGE;
        w = 2 * (value - 1) + colour;
    } else {
        if (value < 0 || value >= (long)p->point_count) return INDEX_FULL_RANGE;
        w = value;
        if ((int)(w & 1) != colour) return INDEX_PARITY;
    }
    int x, y, z;
    dg_coords_of(p, w, &x, &y, &z);
    if (!dg_is_interior(p, x, y, z)) return INDEX_FACE;
    *half_index = w / 2;
    return INDEX_OK;
}

int dg_decode_sparse_index(const dg_prepared *p, int index_kind, int colour, const char *list,
                           long entry, long value, long *half_index, char *message, size_t size) {
    switch (sparse_half_index(p, index_kind, colour, value, half_index)) {
    case INDEX_OK:
        return DG_OK;
    case INDEX_HALF_RANGE:
        snprintf(message, size, "%s[%ld] (%s section): half-index %ld is out of range 1..%ld", list,
                 entry, section_name(colour), value, (long)p->half_count[colour]);
        return DG_ERR_INDEX_OUT_OF_RANGE;
    case INDEX_FULL_RANGE:
        snprintf(message, size, "%s[%ld]: full index %ld is out of range 0..%ld", list, entry,
                 value, (long)p->point_count - 1);
        return DG_ERR_INDEX_OUT_OF_RANGE;
    case INDEX_PARITY:
        snprintf(message, size,
                 "%s[%ld]: full index %ld is an %s point but is listed in the %s section", list,
                 entry, value, section_name((int)(value & 1)), section_name(colour));
        return DG_ERR_WRONG_PARITY;
    default: {
        const long w = index_kind == DG_INDEX_DELPHI_HALF ? 2 * (value - 1) + colour : value;
        int x, y, z;
        dg_coords_of(p, w, &x, &y, &z);
        snprintf(message, size,
                 "%s[%ld] (%s section): index %ld is the face point (x=%d, y=%d, z=%d, 0-based); "
                 "only interior points may be listed",
                 list, entry, section_name(colour), value, x, y, z);
        return DG_ERR_INDEX_OUT_OF_RANGE;
    }
    }
}

/* Per-colour byte marks of boundary points (needed by the salt classification). */
typedef struct marks {
    unsigned char *m[2];
} marks;

static void marks_free(marks *k) {
    free(k->m[0]), free(k->m[1]);
    k->m[0] = k->m[1] = NULL; /* freed again by marks_give when the serial path fails */
}

static int marks_alloc(marks *k, const dg_prepared *p) {
    k->m[0] = calloc(p->half_count[0] + 1, 1);
    k->m[1] = calloc(p->half_count[1] + 1, 1);
    return k->m[0] && k->m[1] ? DG_OK : DG_ERR_OUT_OF_MEMORY;
}

/* Marks `which` (0 boundary, 1 charge) for p's grid: the solver's kept all-zero arrays when they
   fit this grid, else freshly zeroed ones. */
static int marks_take(dg_solver s, int which, marks *k, const dg_prepared *p) {
    unsigned char **kept = s->mark_scratch[which];
    if (kept[0] && s->mark_half[0] == (long)p->half_count[0] &&
        s->mark_half[1] == (long)p->half_count[1]) {
        k->m[0] = kept[0], k->m[1] = kept[1];
        kept[0] = kept[1] = NULL;
        return DG_OK;
    }
    return marks_alloc(k, p);
}

/* Ranges of the parallel loops on the host pool: list entries, grid planes (of one colour), and
   marks to clear. */
#define PARALLEL_GRAIN 4096
#define PLANE_GRAIN    1
#define CLEAR_GRAIN    65536

typedef struct clear_job {
    unsigned char *m;
    const int *list;
} clear_job;

static void clear_range(void *context, size_t begin, size_t end) {
    const clear_job *j = context;
    for (size_t e = begin; e < end; ++e)
        j->m[j->list[e]] = 0;
}

/* Charged points on the boundary or in the solvent (flagged), counted over one colour. */
typedef struct outside_job {
    const dg_prepared *p;
    const marks *boundary_marks;
    int colour;
    long outside;
} outside_job;

static void outside_range(void *context, size_t begin, size_t end) {
    outside_job *j = context;
    const int c = j->colour;
    long outside = 0;
    for (size_t k = begin; k < end; ++k) {
        const int h = j->p->charge_index[c][k];
        outside += j->boundary_marks->m[c][h] || (j->p->has_salt && j->p->flag[c][h]);
    }
    if (outside) __atomic_fetch_add(&j->outside, outside, __ATOMIC_RELAXED);
}

/* Back to the solver after use.  cleared = 1 when k is known to be marked exactly at the
   entries of `index` (count[c] of them per colour): those are reset and the arrays kept for the
   next call; otherwise (an error or the serial path) they are freed. */
static void marks_give(dg_solver s, int which, marks *k, const dg_prepared *p, int cleared,
                       int *const index[2], const int count[2], dg_host_loop threads) {
    unsigned char **kept = s->mark_scratch[which];
    if (!cleared || !k->m[0] || !k->m[1]) {
        marks_free(k);
        return;
    }
    for (int c = 0; c < 2; ++c) {
        clear_job j = {k->m[c], index[c]};
        dg_host_for(threads, (size_t)count[c], CLEAR_GRAIN, clear_range, &j);
    }
    free(kept[0]), free(kept[1]);
    kept[0] = k->m[0], kept[1] = k->m[1];
    s->mark_half[0] = (long)p->half_count[0], s->mark_half[1] = (long)p->half_count[1];
    k->m[0] = k->m[1] = NULL;
}

/* Whether a salt factor is DelPhi's no-salt factor (within 1e-5 of 1/6). */
static inline int is_no_salt_factor(double v) {
    const double sixth = 1.0 / 6.0;
    return fabs(v - sixth) <= 1e-5 * sixth;
}

/* DelPhi's sf arrays hold at most two values at non-boundary points (distinct, in grid order):
   the one within 1e-5 of 1/6 is the no-salt factor, the other the salt factor.  Sets factor[],
   has_salt and (with salt and allocate_flags) allocates the flags. */
static int pick_salt_factors(dg_prepared *p, const double distinct[2], int ndistinct,
                             int allocate_flags, char *msg, size_t size) {
    const double sixth = 1.0 / 6.0;
    double f0 = sixth, f1 = 0.0;
    int have_salt = 0;
    for (int i = 0; i < ndistinct; ++i) {
        if (is_no_salt_factor(distinct[i]))
            f0 = distinct[i];
        else if (!have_salt)
            f1 = distinct[i], have_salt = 1;
        else {
            snprintf(msg, size,
                     "salt factors %g and %g: neither is the no-salt factor 1/6 (DelPhi's sf "
                     "arrays hold 1/6 where there are no ions)",
                     distinct[0], distinct[1]);
            return DG_ERR_UNSUPPORTED;
        }
    }
    p->factor[0] = f0;
    p->factor[1] = have_salt ? f1 : f0;
    p->has_salt = have_salt;
    if (have_salt && allocate_flags && dg_prepared_alloc_flags(p) != DG_OK) {
        snprintf(msg, size, "out of memory for the salt flags");
        return DG_ERR_OUT_OF_MEMORY;
    }
    return DG_OK;
}

/* Returned by the parallel path when the input has a problem: the serial path then runs from
   the start and names it. */
#define SPARSE_SERIAL_PATH (-1)

#define DG_TEMPLATE "medium_sparse_template.h"
#include "for_each_precision.h" /* set_sparse_medium_impl_f, set_sparse_medium_impl_d */

int dg_set_sparse_medium_f(dg_solver s, const dg_sparse_medium_f *m) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, set_sparse_medium_impl_f(s, m), "set its medium");
}
int dg_set_sparse_medium_d(dg_solver s, const dg_sparse_medium_d *m) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, set_sparse_medium_impl_d(s, m), "set its medium");
}
