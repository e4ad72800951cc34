/* The prepared problem: the one backend-neutral form every medium is turned into.
 *
 * Colour 0 is DelPhi's "odd" half grid (phimap1: 0-based full index w even, x+y+z even),
 * colour 1 is DelPhi's "even" half grid (phimap2: w odd).  A point's half-index is h = w / 2
 * (0-based) in both colours.  Each sweep of colour c applies, at every interior point,
 *
 *     phi <- (1 - omega) phi + omega * factor[flag] * (sum of the 6 neighbours [+ qmap])
 *
 * (qmap only where flag = 1, nonlinear PB only), then at the boundary points of colour c
 *
 *     phi <- phi + omega * sum_f weight_f * neighbour_f
 *
 * and at the charged points phi <- phi + omega * source.  The weights are corrections relative
 * to the uniform stencil the sweep applied there (so the sum is omega * eps_f / D), which lets
 * one representation serve DelPhi's salt and no-salt conventions and the dense maps alike.
 */
#ifndef DG_PREPARED_H
#define DG_PREPARED_H

#include <stddef.h>

/* Index helpers that CUDA kernels call too (cuda_spectral.cu). */
#if defined(__CUDACC__)
#define DG_PREPARED_FN static inline __host__ __device__
#else
#define DG_PREPARED_FN static inline
#endif

typedef struct dg_prepared {
    int nx, ny, nz;
    size_t point_count;    /* nx*ny*nz */
    size_t half_count[2];  /* slots per colour: (n+1)/2 and (n-1)/2 */
    size_t interior_count; /* (nx-2)(ny-2)(nz-2) */

    /* Salt: flag[c][h] = 1 where the salt factor factor[1] applies instead of factor[0]. */
    int has_salt;
    unsigned char *flag[2]; /* NULL when has_salt = 0 */
    double factor[2];       /* factor[0] = 1/6 (or DelPhi's given no-salt value), factor[1] */

    int boundary_count[2];
    int *boundary_index[2];     /* 0-based half-indices */
    double *boundary_weight[2]; /* 6 per point: x-, x+, y-, y+, z-, z+ */

    int charge_count[2];
    int *charge_index[2];
    double *charge_source[2]; /* added as omega * source */

    /* Nonlinear PB: qmap = fraction * coefficient * p^2 (chi0 + p (chi1 + p (chi2 + p chi3))). */
    int nonlinear_ready; /* salt present and a coefficient was given */
    double nonlinear_coefficient;
    double chi[4];

    /* For DelPhi's automatic iteration scaling and qfact. */
    int charges_not_interior; /* charged points not inside the solute: a dense medium's by
                                 DelPhi's rule (faces not all equal, or one at the solvent's
                                 permittivity); a sparse one's, which has no permittivities,
                                 boundary or salt points */
    int net_charge_known;
    double net_charge; /* e */

    /* Periodic axes (dg_periodic_axis bits, the handle's options.periodic) and their seam
       (periodic.c).  Along a periodic axis of n points, face point 0 stands for point n-2 and
       face point n-1 for point 1 (its image), so points 1 and n-2 are neighbours across the
       seam; n - 2 is odd, so they have the same colour and a red-black sweep alone would update
       both from old values.  The sweep of colour c is therefore followed by seam steps
       k = 1 .. seam_steps (the number of periodic axes), which make it Gauss-Seidel in the
       order "points on k seams after points on k - 1": each entry of step k, a point P of
       colour c at index 1 along the axes of its set (seam_axes, k of them), takes for each of
       them, in the order x, y, z, its face neighbour F = P - step (colour 1 - c) to the value
       of F's image I = P + (n-3) step (colour c, final after step k - 1), and adds
       omega * seam_coef * (that value - F's old value) to itself: what its sweep would have
       given had F held it; then, final, it gives its value to the face point P + (n-2) step of
       each of those axes, whose image it is.  So every face point of colour 1 - c (other two
       coordinates interior: dg_wrap_pair) has taken its image's value when the steps end.  A
       stationary ordering of SOR, so it
       converges for 0 < omega < 2 on the symmetric positive definite system; copying the faces
       without the steps (DelPhi's scheme) leaves these couplings lagged, and that diverged at
       the estimated omega (docs/PERIODIC.md). */
    int periodic;
    int seam_steps;
    int seam_start[2][4];        /* entries of step k: seam_start[c][k-1] .. seam_start[c][k]-1 */
    int *seam_index[2];          /* half-index of P */
    unsigned char *seam_axes[2]; /* bit a: P is point 1 along axis a (x = 0, y = 1, z = 2) */
    double *seam_coef[2];        /* 3 per entry: P's coefficient of its neighbour across x-, y-,
                                    z- (factor[flag] + the boundary weight there), 0 off its set */
} dg_prepared;

/** Free every array and zero the struct. */
void dg_prepared_free(dg_prepared *prep);

/** Set dimensions and counts; checks the grid. Returns a dg_status; message filled on error. */
int dg_prepared_init_grid(dg_prepared *prep, int nx, int ny, int nz, char *message,
                          size_t message_size);

/** Build the seam lists (seam_*) of prep->periodic from the flags and boundary lists; nothing
 *  without periodic axes.  DG_OK or DG_ERR_OUT_OF_MEMORY (periodic.c). */
int dg_prepared_build_seams(dg_prepared *prep);

/** Periodic axes: every face point a stencil reads (dg_wrap_pair_points) of a full grid of
 *  elem_size-byte values takes its image's value; nothing without periodic axes.  threads: the
 *  OpenMP threads for large faces (0 = one) (periodic.c). */
void dg_prepared_wrap(const dg_prepared *prep, void *grid, size_t elem_size, int threads);

/** Allocate flag arrays (zeroed) for both colours. */
int dg_prepared_alloc_flags(dg_prepared *prep);

/** Allocate boundary and charge lists of the given per-colour sizes. */
int dg_prepared_alloc_lists(dg_prepared *prep, const int boundary_count[2],
                            const int charge_count[2]);

/* ---- Half-grid index arithmetic (colour 0 = DelPhi odd) ---------------------------------- */

/** Offsets, in the other colour's half array, of the 6 neighbours of a point of colour c:
 *  x-, x+, y-, y+, z-, z+. */
static inline void dg_neighbour_offsets(int nx, int ny, int colour, long offsets[6]) {
    long l1 = (nx - 1) / 2, l2 = (nx + 1) / 2;
    long m1 = ((long)nx * ny - 1) / 2, m2 = ((long)nx * ny + 1) / 2;
    if (colour == 0) {
        offsets[0] = -1, offsets[1] = 0, offsets[2] = -l2, offsets[3] = l1;
        offsets[4] = -m2, offsets[5] = m1;
    } else {
        offsets[0] = 0, offsets[1] = 1, offsets[2] = -l1, offsets[3] = l2;
        offsets[4] = -m1, offsets[5] = m2;
    }
}

/** DelPhi's lagged nonlinear source at a salt point of potential v: scale * v^2 (chi0 + v (chi1
 *  + v (chi2 + v chi3))), zero where v^2 > 2500 (|phi| > 50 kT/e), as DelPhi; scale is the
 *  fraction switched on times nonlinear_coefficient.  One expression for every CPU path. */
static inline double dg_lagged_source(double v, double scale, const double chi[4]) {
    const double v2 = v * v;
    return v2 > 2500.0 ? 0.0 : scale * v2 * (chi[0] + v * (chi[1] + v * (chi[2] + v * chi[3])));
}

/** Colour of the 0-based point (x,y,z): 0 when x+y+z is even (DelPhi odd). */
static inline int dg_colour_of(int x, int y, int z) {
    return (x + y + z) & 1;
}

/** First and last 0-based half-index of colour c among interior points of row (y,z), or
 *  first > last if none. */
DG_PREPARED_FN void dg_row_range(int nx, int ny, int y, int z, int colour, long *first,
                                 long *last) {
    int x0 = ((1 + y + z) & 1) == colour ? 1 : 2;
    int x1 = ((nx - 2 + y + z) & 1) == colour ? nx - 2 : nx - 3;
    long base = (long)nx * (y + (long)ny * z);
    *first = (base + x0) / 2;
    *last = x1 >= x0 ? (base + x1) / 2 : *first - 1;
}

/** The number of face-point pairs that the periodic wrap sets: for each periodic axis, the
 *  points of its two faces whose other coordinates are interior, counted once per pair. */
DG_PREPARED_FN long dg_wrap_pair_count(int nx, int ny, int nz, int periodic) {
    long count = 0;
    if (periodic & 1) count += (long)(ny - 2) * (nz - 2);
    if (periodic & 2) count += (long)(nx - 2) * (nz - 2);
    if (periodic & 4) count += (long)(nx - 2) * (ny - 2);
    return count;
}

/** Pair k (0 <= k < dg_wrap_pair_count) of the wrap: the full index w0 of its point on face 0
 *  of its axis; *axis gets 0, 1 or 2.  With step and n of that axis (dg_axis_step), the pair's
 *  other point is w0 + (n-1) step, on face n-1; the two share a colour (n is odd), and their
 *  images, w0 + (n-2) step and w0 + step, have the other colour.  Pairs are numbered x faces
 *  first, then y, then z, each in full-index order. */
DG_PREPARED_FN long dg_wrap_pair(int nx, int ny, int nz, int periodic, long k, int *axis) {
    if (periodic & 1) {
        const long count = (long)(ny - 2) * (nz - 2);
        if (k < count) {
            *axis = 0;
            return (long)nx * ((1 + k % (ny - 2)) + (long)ny * (1 + k / (ny - 2)));
        }
        k -= count;
    }
    if (periodic & 2) {
        const long count = (long)(nx - 2) * (nz - 2);
        if (k < count) {
            *axis = 1;
            return (1 + k % (nx - 2)) + (long)nx * (long)ny * (1 + k / (nx - 2));
        }
        k -= count;
    }
    *axis = 2;
    return (1 + k % (nx - 2)) + (long)nx * (1 + k / (nx - 2));
}

/** The step, in full indices, along axis (0, 1, 2) and the number of points on it. */
DG_PREPARED_FN void dg_axis_step(int nx, int ny, int nz, int axis, long *step, int *n) {
    *step = axis == 0 ? 1L : axis == 1 ? (long)nx : (long)nx * ny;
    *n = axis == 0 ? nx : axis == 1 ? ny : nz;
}

/** Pair k of the wrap as full indices: face[0] on face 0 of its axis and face[1] on face n-1
 *  (one colour), and the interior points whose values they take, image[0] = face[0] + (n-2) step
 *  and image[1] = face[0] + step (the other colour). */
DG_PREPARED_FN void dg_wrap_pair_points(int nx, int ny, int nz, int periodic, long k, long face[2],
                                        long image[2]) {
    int axis, n;
    long step;
    const long w0 = dg_wrap_pair(nx, ny, nz, periodic, k, &axis);
    dg_axis_step(nx, ny, nz, axis, &step, &n);
    face[0] = w0, face[1] = w0 + (long)(n - 1) * step;
    image[0] = w0 + (long)(n - 2) * step, image[1] = w0 + step;
}

#endif /* DG_PREPARED_H */
