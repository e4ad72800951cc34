/* Trilinear charge assignment: each charge is spread over the eight corners of its grid cell. */
#include "charges.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trilinear_weights(const double gc[3], int base[3], double w[8]) {
    double f[3];
    for (int a = 0; a < 3; ++a) {
        base[a] = (int)floor(gc[a]);
        f[a] = gc[a] - base[a];
    }
    for (int k = 0; k < 8; ++k) {
        double wk = 1.0;
        for (int a = 0; a < 3; ++a)
            wk *= ((k >> a) & 1) ? f[a] : 1.0 - f[a];
        w[k] = wk;
    }
}

void charge_list_free(charge_list *c) {
    free(c->index);
    free(c->value);
    memset(c, 0, sizeof *c);
}

/* Corner k of the cell at base: its point, taken along periodic axes to the interior point it
   stands for (grid_wrap_index). */
static void share_point(const grid_spec *g, const int base[3], int k, int p[3]) {
    for (int a = 0; a < 3; ++a)
        p[a] = grid_wrap_index(g, a, base[a] + ((k >> a) & 1));
}

/* The 8 shares of atom a: base corner, weights, and which corners are interior points (bit k
   of the result set for corner k when its weight is non-zero and the point is not on a face;
   along a periodic axis every point is, once taken to its image). */
static int atom_shares(const calc_atom *a, const grid_spec *g, double gc[3], int base[3],
                       double w[8]) {
    gc[0] = grid_coordinate(g, 0, a->x), gc[1] = grid_coordinate(g, 1, a->y);
    gc[2] = grid_coordinate(g, 2, a->z);
    trilinear_weights(gc, base, w);
    const int n = g->n;
    int interior = 0;
    for (int k = 0; k < 8; ++k) {
        int p[3];
        share_point(g, base, k, p);
        if (w[k] != 0.0 && p[0] > 0 && p[1] > 0 && p[2] > 0 && p[0] < n - 1 && p[1] < n - 1 &&
            p[2] < n - 1)
            interior |= 1 << k;
    }
    return interior;
}

/* 1 when a share of atom a with a non-zero weight is not on an interior point. */
static int shares_outside(int interior, const double w[8]) {
    for (int k = 0; k < 8; ++k)
        if (w[k] != 0.0 && !(interior & (1 << k))) return 1;
    return 0;
}

/* The first charged atom (in atom order) that charges_spread refuses: a share off the interior,
   or (unless finite_only) a non-finite charge; the atom count when there is none.  On the
   threads. */
static long first_refused(const calc_molecule *mol, const grid_spec *g, int finite_only) {
    long first = (long)mol->count;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (long i = 0; i < (long)mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (i >= first || a->charge == 0.0) continue;
        if (!isfinite(a->charge)) {
            if (!finite_only) first = i;
            continue;
        }
        double gc[3], w[8];
        int base[3];
        if (shares_outside(atom_shares(a, g, gc, base, w), w)) first = i;
    }
    return first;
}

/* charges_spread's message refusing atom i (0-based). */
static void describe_refusal(const calc_molecule *mol, const grid_spec *g, size_t i, char *msg,
                             size_t msg_size) {
    const calc_atom *a = &mol->atoms[i];
    if (!isfinite(a->charge)) {
        snprintf(msg, msg_size, "atom %zu has a non-finite charge", i + 1);
        return;
    }
    double gc[3], w[8];
    int base[3];
    atom_shares(a, g, gc, base, w);
    snprintf(msg, msg_size,
             "atom %zu (charge %g e at %.3f %.3f %.3f A) is at 1-based grid coordinates (%.2f, "
             "%.2f, %.2f): its charge would land on the faces of the %d^3 grid (boundary "
             "values). Enlarge the grid (lower perfil or scale, raise gsize) or re-centre it",
             i + 1, a->charge, a->x, a->y, a->z, gc[0] + 1, gc[1] + 1, gc[2] + 1, g->n);
}

long charges_check_interior(const calc_molecule *mol, const grid_spec *g, char *msg,
                            size_t msg_size) {
    const long first = first_refused(mol, g, 1);
    if (first == (long)mol->count) return -1;
    describe_refusal(mol, g, (size_t)first, msg, msg_size);
    return first;
}

/* charges_spread without focusing, on the threads: the first atom (in atom order) with a
   non-finite charge or a share off the interior is refused as the serial loop refuses it;
   otherwise each thread takes a contiguous run of atoms, whose share counts give its first
   entry, and writes the shares where the serial loop puts them.  The net charge is summed in
   list order afterwards (the serial loop's sum). */
static int spread_threads(const calc_molecule *mol, const grid_spec *g, long charged,
                          charge_list *out, char *msg, size_t msg_size) {
    const long count = (long)mol->count;
    const long first = first_refused(mol, g, 0);
    if (first < count) {
        describe_refusal(mol, g, (size_t)first, msg, msg_size);
        charge_list_free(out);
        out->failed_atom = first;
        return -1;
    }
    enum { MAX_PARTS = 256 };
    long start[MAX_PARTS + 1] = {0};
    const long n = g->n;
    int team = 1;
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), parts = omp_get_num_threads();
        const int used = parts < MAX_PARTS ? parts : MAX_PARTS;
        const long begin = t < used ? count * t / used : count;
        const long end = t < used ? count * (t + 1) / used : count;
        long shares = 0;
        for (long i = begin; i < end; ++i)
            if (mol->atoms[i].charge != 0.0) {
                double gc[3], w[8];
                int base[3];
                atom_shares(&mol->atoms[i], g, gc, base, w);
                for (int k = 0; k < 8; ++k)
                    shares += w[k] != 0.0;
            }
        if (t < used) start[t + 1] = shares;
#pragma omp barrier
#pragma omp single
        {
            team = used;
            for (int u = 0; u < used; ++u)
                start[u + 1] += start[u];
        }
        long e = t < used ? start[t] : 0;
        for (long i = begin; i < end; ++i) {
            const calc_atom *a = &mol->atoms[i];
            if (a->charge == 0.0) continue;
            double gc[3], w[8];
            int base[3];
            atom_shares(a, g, gc, base, w);
            for (int k = 0; k < 8; ++k) {
                if (w[k] == 0.0) continue;
                int p[3];
                share_point(g, base, k, p);
                out->index[e] = p[0] + n * (p[1] + n * (long)p[2]);
                out->value[e++] = w[k] * a->charge;
            }
        }
    }
    out->count = start[team];
    out->charged_atoms = (int)charged;
    for (long e = 0; e < out->count; ++e)
        out->net_charge += out->value[e];
    return 0;
}

int charges_spread(const calc_molecule *mol, const grid_spec *g, int allow_outside,
                   charge_list *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    out->failed_atom = -1;
    long charged = 0;
    for (size_t i = 0; i < mol->count; ++i)
        charged += mol->atoms[i].charge != 0.0;
    out->index = malloc((size_t)(8 * charged + 1) * sizeof(long));
    out->value = malloc((size_t)(8 * charged + 1) * sizeof(double));
    if (!out->index || !out->value) {
        charge_list_free(out);
        snprintf(msg, msg_size, "out of memory for %ld charged atoms", charged);
        return -1;
    }
    const int n = g->n;
    if (!allow_outside && mol->count >= 4096)
        return spread_threads(mol, g, charged, out, msg, msg_size);
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0) continue;
        double gc[3], w[8];
        int base[3];
        const int interior = isfinite(a->charge) ? atom_shares(a, g, gc, base, w) : 0;
        if (!isfinite(a->charge) || (!allow_outside && shares_outside(interior, w))) {
            describe_refusal(mol, g, i, msg, msg_size);
            charge_list_free(out);
            out->failed_atom = (long)i;
            return -1;
        }
        out->charged_atoms++;
        int dropped = 0;
        for (int k = 0; k < 8; ++k) {
            if (w[k] == 0.0) continue;
            if (!(interior & (1 << k))) {
                dropped = 1;
                out->charge_outside += w[k] * a->charge;
                continue;
            }
            int p[3];
            share_point(g, base, k, p);
            out->index[out->count] = p[0] + (long)n * (p[1] + (long)n * p[2]);
            out->value[out->count] = w[k] * a->charge;
            out->net_charge += w[k] * a->charge;
            out->count++;
        }
        out->atoms_outside += dropped;
    }
    return 0;
}

typedef struct periodic_key {
    long long cell[3]; /* wrapped grid coordinates in units of 10^-3 spacings */
    long atom;
} periodic_key;

static int compare_keys(const void *a, const void *b) {
    const periodic_key *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x->cell[k] != y->cell[k]) return x->cell[k] < y->cell[k] ? -1 : 1;
    return x->atom < y->atom ? -1 : x->atom > y->atom;
}

int charges_periodic_repeat(const calc_molecule *mol, const grid_spec *g, long *first,
                            long *second) {
    if (!g->periodic) return 1;
    periodic_key *keys = malloc((mol->count + 1) * sizeof *keys);
    if (!keys) return -1;
    const double period = g->n - 2;
    long count = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        if (a->charge == 0.0 || !isfinite(a->charge)) continue;
        const double x[3] = {a->x, a->y, a->z};
        for (int k = 0; k < 3; ++k) {
            double gc = grid_coordinate(g, k, x[k]);
            if (g->periodic & (1 << k)) gc -= period * floor((gc - 1.0) / period);
            keys[count].cell[k] = llround(gc * 1000.0);
        }
        keys[count++].atom = (long)i;
    }
    qsort(keys, (size_t)count, sizeof *keys, compare_keys);
    long best_first = -1, best_second = -1;
    for (long k = 1; k < count; ++k) {
        const periodic_key *p = &keys[k - 1], *q = &keys[k];
        if (p->cell[0] != q->cell[0] || p->cell[1] != q->cell[1] || p->cell[2] != q->cell[2])
            continue;
        /* the same atom one period over, not two atoms at one place (those are the molecule's) */
        const calc_atom *a = &mol->atoms[p->atom], *b = &mol->atoms[q->atom];
        const double d[3] = {a->x - b->x, a->y - b->y, a->z - b->z};
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < 0.25 / (g->scale * g->scale)) continue;
        if (best_first < 0 || p->atom < best_first) best_first = p->atom, best_second = q->atom;
    }
    free(keys);
    if (best_first < 0) return 1;
    *first = best_first, *second = best_second;
    return 0;
}
