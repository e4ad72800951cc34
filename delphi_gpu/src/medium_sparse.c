/* dg_set_sparse_medium_f/_d: validate DelPhi's sparse form and turn it into a dg_prepared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "medium_common.h"
#include "solver_internal.h"

static const char *section_name(int colour) {
    return colour == 0 ? "odd" : "even";
}

int dg_decode_sparse_index(const dg_prepared *p, int index_kind, int colour, const char *list,
                           long entry, long value, long *half_index, char *message, size_t size) {
    long w;
    if (index_kind == DG_INDEX_DELPHI_HALF) {
        long top = (long)p->half_count[colour];
        if (value < 1 || value > top) {
            snprintf(message, size, "%s[%ld] (%s section): half-index %ld is out of range 1..%ld",
                     list, entry, section_name(colour), value, top);
            return DG_ERR_INDEX_OUT_OF_RANGE;
        }
        w = 2 * (value - 1) + colour;
    } else {
        if (value < 0 || value >= (long)p->point_count) {
            snprintf(message, size, "%s[%ld]: full index %ld is out of range 0..%ld", list, entry,
                     value, (long)p->point_count - 1);
            return DG_ERR_INDEX_OUT_OF_RANGE;
        }
        w = value;
        if ((int)(w & 1) != colour) {
            snprintf(message, size,
                     "%s[%ld]: full index %ld is an %s point but is listed in the %s section", list,
                     entry, value, section_name((int)(w & 1)), section_name(colour));
            return DG_ERR_WRONG_PARITY;
        }
    }
    int x, y, z;
    dg_coords_of(p, w, &x, &y, &z);
    if (!dg_is_interior(p, x, y, z)) {
        snprintf(message, size,
                 "%s[%ld] (%s section): index %ld is the face point (x=%d, y=%d, z=%d, 0-based); "
                 "only interior points may be listed",
                 list, entry, section_name(colour), value, x, y, z);
        return DG_ERR_INDEX_OUT_OF_RANGE;
    }
    *half_index = w / 2;
    return DG_OK;
}

/* Per-colour byte marks of boundary points (needed by the salt classification). */
typedef struct marks {
    unsigned char *m[2];
} marks;

static void marks_free(marks *k) {
    free(k->m[0]), free(k->m[1]);
}

static int marks_alloc(marks *k, const dg_prepared *p) {
    k->m[0] = calloc(p->half_count[0] + 1, 1);
    k->m[1] = calloc(p->half_count[1] + 1, 1);
    return k->m[0] && k->m[1] ? DG_OK : DG_ERR_OUT_OF_MEMORY;
}

#define DG_TEMPLATE "medium_sparse_template.h"
#include "for_each_precision.h" /* set_sparse_medium_impl_f, set_sparse_medium_impl_d */

int dg_set_sparse_medium_f(dg_solver s, const dg_sparse_medium_f *m) {
    return set_sparse_medium_impl_f(s, m);
}
int dg_set_sparse_medium_d(dg_solver s, const dg_sparse_medium_d *m) {
    return set_sparse_medium_impl_d(s, m);
}
