/* Template body of cpu_backend.c, included once per working precision (REAL, SFX). */

/* omega-scaled copies of the boundary weights and charge sources, in working precision. */
static int SFX(set_omega)(cpu_state *st, double omega) {
    const dg_prepared *p = st->prep;
    st->omega = omega;
    for (int c = 0; c < 2; ++c) {
        REAL *weight = st->weight[c], *source = st->source[c];
        for (long i = 0; i < 6L * p->boundary_count[c]; ++i)
            weight[i] = (REAL)(omega * p->boundary_weight[c][i]);
        for (int k = 0; k < p->charge_count[c]; ++k)
            source[k] = (REAL)(omega * p->charge_source[c][k]);
        REAL *seam = st->seam[c];
        for (long i = 0; i < 3L * p->seam_start[c][p->seam_steps]; ++i)
            seam[i] = (REAL)(omega * p->seam_coef[c][i]);
    }
    return DG_OK;
}

static void SFX(load_phi)(cpu_state *st, const void *phi, int is_double) {
    const dg_prepared *p = st->prep;
    for (int c = 0; c < 2; ++c) {
        REAL *half = st->phi[c];
        const long count = (long)p->half_count[c];
#pragma omp parallel for schedule(static) num_threads(st->threads) if (count > DG_CPU_PARALLEL_MIN)
        for (long h = 0; h < count; ++h)
            half[h] = is_double ? (REAL)((const double *)phi)[2 * h + c]
                                : (REAL)((const float *)phi)[2 * h + c];
        if (st->qmap[c]) memset(st->qmap[c], 0, (p->half_count[c] + 1) * sizeof(REAL));
    }
}

/* load_phi of a phi whose interior points are +0.0: the half grids zeroed, then the face points
   converted as load_phi converts them. */
static void SFX(load_phi_faces)(REAL *half[2], const dg_prepared *p, const void *phi, int is_double,
                                int threads) {
    for (int c = 0; c < 2; ++c)
        dg_zero_threads(half[c], p->half_count[c] * sizeof(REAL), threads);
    const long faces = (long)dg_face_count(p->nx, p->ny, p->nz);
#pragma omp parallel for schedule(static) num_threads(threads) if (faces > DG_CPU_PARALLEL_MIN)
    for (long i = 0; i < faces; ++i) {
        const size_t w = dg_face_full_index(p->nx, p->ny, p->nz, (size_t)i);
        half[w & 1][w >> 1] =
            is_double ? (REAL)((const double *)phi)[w] : (REAL)((const float *)phi)[w];
    }
}

static void SFX(store_phi)(cpu_state *st, void *phi, int is_double) {
    const dg_prepared *p = st->prep;
#pragma omp parallel for schedule(static) num_threads(st->threads)                                 \
    collapse(2) if (p->interior_count > DG_CPU_PARALLEL_MIN)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int c = 0; c < 2; ++c) {
                const REAL *half = st->phi[c];
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    if (is_double)
                        ((double *)phi)[2 * h + c] = (double)half[h];
                    else
                        ((float *)phi)[2 * h + c] = (float)half[h];
                }
            }
    /* periodic axes: the face points the wrap sets, as the half grids hold them */
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    for (long k = 0; k < pairs; ++k) {
        long w[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, w, image);
        for (int i = 0; i < 2; ++i) {
            const REAL v = ((const REAL *)st->phi[w[i] & 1])[w[i] >> 1];
            if (is_double)
                ((double *)phi)[w[i]] = (double)v;
            else
                ((float *)phi)[w[i]] = (float)v;
        }
    }
}

/* Uniform stencil over the interior points of colour c (docs/SOLVER.md, "Data layout": the
 * factor-times-neighbours step of a colour sweep). */
static void SFX(sweep)(cpu_state *st, int c) {
    const dg_prepared *p = st->prep;
    REAL *restrict phi = st->phi[c];
    const REAL *restrict other = st->phi[1 - c];
    const long *o = st->offsets[c];
    const long o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3], o4 = o[4], o5 = o[5];
    const REAL keep = (REAL)(1.0 - st->omega);
    const REAL w0 = (REAL)(st->omega * p->factor[0]), w1 = (REAL)(st->omega * p->factor[1]);
    const REAL dw = w1 - w0; /* flag selects w0 + flag * dw: branch-free, so it vectorizes */
    const unsigned char *restrict flag = p->has_salt ? p->flag[c] : NULL;
    const REAL *restrict qmap = st->nonlinear_active ? (const REAL *)st->qmap[c] : NULL;
    const dg_rhs16 *restrict rhs = st->rhs[c]; /* mixed precision's correction */
    const unsigned rhs_mask = dg_rhs_value_mask(p->has_salt);
#pragma omp parallel for schedule(static) num_threads(st->threads)                                 \
    collapse(2) if (p->interior_count > DG_CPU_PARALLEL_MIN)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            long first, last;
            dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
            if (rhs) { /* rhs = residual / factor, so weight * rhs = omega * residual; the
                          correction is held times the step's scale, in binary16 values */
                const REAL scale = (REAL)st->refine.scale;
                for (long h = first; h <= last; ++h) {
                    REAL sum = other[h + o0] + other[h + o1] + other[h + o2] + other[h + o3] +
                               other[h + o4] + other[h + o5] +
                               (REAL)dg_rhs_decode(rhs[h], rhs_mask) * scale;
                    const REAL weight = flag && flag[h] ? w1 : w0; /* as the CUDA kernel */
                    phi[h] = (REAL)dg_half_round((float)(keep * phi[h] + weight * sum));
                }
            } else if (!flag) {
                for (long h = first; h <= last; ++h) {
                    REAL sum = other[h + o0] + other[h + o1] + other[h + o2] + other[h + o3] +
                               other[h + o4] + other[h + o5];
                    phi[h] = keep * phi[h] + w0 * sum;
                }
            } else if (!qmap) {
                for (long h = first; h <= last; ++h) {
                    REAL sum = other[h + o0] + other[h + o1] + other[h + o2] + other[h + o3] +
                               other[h + o4] + other[h + o5];
                    phi[h] = keep * phi[h] + (w0 + (REAL)flag[h] * dw) * sum;
                }
            } else {
                for (long h = first; h <= last; ++h) {
                    REAL sum = other[h + o0] + other[h + o1] + other[h + o2] + other[h + o3] +
                               other[h + o4] + other[h + o5] + qmap[h];
                    phi[h] = keep * phi[h] + (w0 + (REAL)flag[h] * dw) * sum;
                }
            }
        }
}

/* Sparse corrections of colour c: dielectric-boundary points, then charges. */
static void SFX(corrections)(cpu_state *st, int c) {
    const dg_prepared *p = st->prep;
    REAL *restrict phi = st->phi[c];
    const REAL *restrict other = st->phi[1 - c];
    const long *o = st->offsets[c];
    const int *index = p->boundary_index[c];
    const REAL *weight = st->weight[c];
    const int nb = p->boundary_count[c];
#pragma omp parallel for schedule(static) num_threads(st->threads) if (nb > 4096)
    for (int k = 0; k < nb; ++k) {
        const long h = index[k];
        const REAL *wk = weight + 6L * k;
        phi[h] += wk[0] * other[h + o[0]] + wk[1] * other[h + o[1]] + wk[2] * other[h + o[2]] +
                  wk[3] * other[h + o[3]] + wk[4] * other[h + o[4]] + wk[5] * other[h + o[5]];
        if (st->rhs[c]) phi[h] = (REAL)dg_half_round((float)phi[h]); /* mixed's correction */
    }
    if (st->rhs[c]) return; /* mixed precision: the charges are in the residual */
    const int *charge_index = p->charge_index[c];
    const REAL *source = st->source[c];
    const int nq = p->charge_count[c];
#pragma omp parallel for schedule(static) num_threads(st->threads) if (nq > 4096)
    for (int k = 0; k < nq; ++k)
        phi[charge_index[k]] += source[k];
}

/* Periodic axes, after the sweep and corrections of colour c: the seam steps (prepared.h).  A
   seam point, final after its step, is also the image of the other colour's face point n-1
   along each of its seam axes, which takes its value then: with the face points 0 the steps
   set, every face point of the other colour is wrapped.  Mixed precision's correction sweeps
   take the same steps on the correction, each update rounded as the sweep's. */
static void SFX(seams)(cpu_state *st, int c) {
    const dg_prepared *p = st->prep;
    REAL *restrict phi = st->phi[c];
    REAL *restrict other = st->phi[1 - c];
    const REAL *restrict coef = st->seam[c];
    const int *index = p->seam_index[c];
    const unsigned char *axes = p->seam_axes[c];
    for (int k = 1; k <= p->seam_steps; ++k) {
        const int first = p->seam_start[c][k - 1], end = p->seam_start[c][k];
#pragma omp parallel for schedule(static) num_threads(st->threads) if (end - first > 4096)
        for (int e = first; e < end; ++e) {
            const long h = index[e], w = 2 * h + c;
            REAL v = phi[h];
            for (int a = 0; a < 3; ++a) {
                if (!((axes[e] >> a) & 1u)) continue;
                int n;
                long step;
                dg_axis_step(p->nx, p->ny, p->nz, a, &step, &n);
                const long face = (w - step) >> 1;
                const REAL image = phi[(w + (long)(n - 3) * step) >> 1];
                const REAL delta = image - other[face];
                other[face] = image;
                v = v + coef[3 * e + a] * delta;
            }
            if (st->rhs[c]) v = (REAL)dg_half_round((float)v); /* mixed's correction */
            phi[h] = v;
            for (int a = 0; a < 3; ++a) {
                if (!((axes[e] >> a) & 1u)) continue;
                int n;
                long step;
                dg_axis_step(p->nx, p->ny, p->nz, a, &step, &n);
                other[(w + (long)(n - 2) * step) >> 1] = v;
            }
        }
    }
}

static void SFX(take_snapshot)(cpu_state *st, int stride) {
    const REAL *restrict even = st->phi[1];
    REAL *restrict snap = st->snapshot;
    const long n = (long)sample_count(st->prep, stride);
#pragma omp parallel for schedule(static) num_threads(st->threads) if (n > DG_CPU_PARALLEL_MIN)
    for (long j = 0; j < n; ++j)
        snap[j] = even[1 + j * stride];
}

static void SFX(measure_change)(cpu_state *st, int stride, dg_change *change) {
    const REAL *restrict even = st->phi[1];
    const REAL *restrict snap = st->snapshot;
    const long n = (long)sample_count(st->prep, stride);
    const long chunks = (n + SAMPLE_CHUNK - 1) / SAMPLE_CHUNK;
    /* mixed's correction is held times the step's scale */
    const double unit = st->rhs[1] ? st->refine.inv_scale : 1.0;
#pragma omp parallel for schedule(static) num_threads(st->threads) if (n > DG_CPU_PARALLEL_MIN)
    for (long b = 0; b < chunks; ++b) {
        double mx = 0.0, sum = 0.0, value = 0.0;
        int finite = 1;
        const long end = (b + 1) * SAMPLE_CHUNK < n ? (b + 1) * SAMPLE_CHUNK : n;
        for (long j = b * SAMPLE_CHUNK; j < end; ++j) {
            const double d = ((double)even[1 + j * stride] - (double)snap[j]) * unit;
            if (!isfinite(d)) finite = 0;
            const double a = fabs(d);
            mx = a > mx ? a : mx;
            sum += d * d;
            const double v = fabs((double)even[1 + j * stride]);
            value = v > value ? v : value;
        }
        st->chunk_max[b] = mx, st->chunk_sum[b] = sum, st->chunk_finite[b] = finite;
        st->chunk_value[b] = value;
    }
    change->max_abs = 0.0, change->sum_sq = 0.0, change->finite = 1, change->max_value = 0.0;
    for (long b = 0; b < chunks; ++b) { /* fixed order: independent of the thread count */
        if (st->chunk_max[b] > change->max_abs) change->max_abs = st->chunk_max[b];
        change->sum_sq += st->chunk_sum[b];
        change->finite &= st->chunk_finite[b];
        if (st->chunk_value[b] > change->max_value) change->max_value = st->chunk_value[b];
    }
    if (IS_DOUBLE || st->mixed) change->max_value = 0.0; /* float's resolution only */
}

static void SFX(iterate)(cpu_state *st, int count, int measure, int stride, dg_change *change) {
    for (int it = 0; it < count; ++it) {
        if (measure && it == count - 1) SFX(take_snapshot)(st, stride);
        for (int c = 0; c < 2; ++c) {
            SFX(sweep)(st, c);
            SFX(corrections)(st, c);
            if (st->prep->periodic) SFX(seams)(st, c);
        }
    }
    if (measure) SFX(measure_change)(st, stride, change);
}

static void SFX(iterate_colour)(cpu_state *st, int c) {
    SFX(sweep)(st, c);
    SFX(corrections)(st, c);
    if (st->prep->periodic) SFX(seams)(st, c);
}

/* Snapshot of, or change since the snapshot of, colour c at first + j*stride (j < count). */
static void SFX(sample_change)(cpu_state *st, int c, long first, long stride, long count,
                               int snapshot, dg_change *change) {
    const REAL *restrict half = st->phi[c];
    REAL *restrict snap = st->sample;
    if (snapshot) {
#pragma omp parallel for schedule(static) num_threads(st->threads) if (count > DG_CPU_PARALLEL_MIN)
        for (long j = 0; j < count; ++j)
            snap[j] = half[first + j * stride];
        return;
    }
    double mx = 0.0, sum = 0.0, top = 0.0;
    int finite = 1;
#pragma omp parallel for schedule(static) num_threads(st->threads) reduction(max : mx, top)       \
    reduction(+ : sum) reduction(&& : finite) if (count > DG_CPU_PARALLEL_MIN)
    for (long j = 0; j < count; ++j) {
        const double v = (double)half[first + j * stride], d = v - (double)snap[j];
        if (!isfinite(d)) finite = 0;
        const double a = fabs(d);
        mx = a > mx ? a : mx;
        top = fabs(v) > top ? fabs(v) : top;
        sum += d * d;
    }
    change->max_abs = mx, change->sum_sq = sum, change->finite = finite;
    change->max_value = IS_DOUBLE || st->mixed ? 0.0 : top; /* float's resolution only */
}

/* Lagged nonlinear source at salt points: fraction * coefficient * p^2 (chi0 + p (chi1 + ...)),
   zero where p^2 > 2500 (|phi| > 50 kT/e), as DelPhi. */
static void SFX(nonlinear_source)(cpu_state *st, double fraction) {
    const dg_prepared *p = st->prep;
    const double scale = fraction * p->nonlinear_coefficient;
    const double *chi = p->chi;
    for (int c = 0; c < 2; ++c) {
        const REAL *phi = st->phi[c];
        const unsigned char *flag = p->flag[c];
        REAL *qmap = st->qmap[c];
#pragma omp parallel for schedule(static) num_threads(st->threads)                                 \
    collapse(2) if (p->interior_count > DG_CPU_PARALLEL_MIN)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    if (flag[h]) qmap[h] = (REAL)dg_lagged_source((double)phi[h], scale, chi);
                }
            }
    }
}
