/* Template body of mg_solve.c (REAL, SFX, IS_DOUBLE): the fine level of the V-cycle and the
 * conjugate-gradient loop in working precision.  Full-grid arrays, x fastest; interior points
 * of colour c are those with (x+y+z) & 1 == c (DelPhi's odd half grid is colour 0). */

/* Sums over the interior, one partial per z-plane, added in plane order (thread-independent). */
typedef struct SFX(mg_sums) {
    double max_abs, sum_sq;
    double phi_max; /* max |x| of the interior (the solve adds the faces': the float floor) */
    int finite;
    dg_mg_measures p; /* update: max |p| and sum p^2 of the direction that x stepped along */
} SFX(mg_sums);

/* sum_f weight_f in[w + step_f] in double at the k-th boundary point w of colour c. */
static inline double SFX(boundary_sum)(const double *weight, int k, const REAL *in, size_t w,
                                       const long step[6]) {
    double sum = 0.0;
    for (int f = 0; f < 6; ++f)
        sum += weight[6 * (size_t)k + f] * in[w + step[f]];
    return sum;
}

/* out[w] (+ lo[w], the pair's rounding error, when lo) += v in double, kept as the pair. */
static inline void SFX(add_to_pair)(REAL *out, REAL *lo, size_t w, double v) {
    v += (double)out[w] + (lo ? (double)lo[w] : 0.0);
    out[w] = (REAL)v;
    if (lo) lo[w] = (REAL)(v - (double)out[w]);
}

/* out = A in: the uniform part (in - factor * sum of neighbours) over all interior points, then
   the boundary corrections. */
static void SFX(apply_operator)(const dg_mg_hierarchy *h, const REAL *restrict in,
                                REAL *restrict out) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const REAL f0 = (REAL)p->factor[0], df = (REAL)(p->factor[1] - p->factor[0]);
    const unsigned char *restrict salt = h->salt;
    const float *restrict factor = h->factor;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t w = row + x;
                const REAL f = factor ? (REAL)factor[w] : f0 + df * salt[w];
                const REAL sum =
                    in[w - 1] + in[w + 1] + in[w - sy] + in[w + sy] + in[w - sz] + in[w + sz];
                out[w] = in[w] - f * sum;
            }
        }
    const long step[6] = {-1, 1, -sy, sy, -sz, sz};
    for (int c = 0; c < 2; ++c) {
        const int count = p->boundary_count[c];
        const int *index = p->boundary_index[c];
        const double *weight = mg_weights(h, c);
#pragma omp parallel for schedule(static) num_threads(h->threads) if (count > 4096)
        for (int k = 0; k < count; ++k) {
            const size_t w = 2 * (size_t)index[k] + c;
            out[w] -= (REAL)SFX(boundary_sum)(weight, k, in, w, step);
        }
    }
}

/* out = b - A in, each point's terms summed in double.  In float, lo (a free grid) holds each
   point's rounding error (out + lo is the double sum) while the boundary terms and the charges
   are added, so out is b - A in rounded once: near float's resolution those terms cancel at the
   largest potentials to a few ulps of them, and rounding each on its own left ulps of max |phi|
   of noise in r, so in each cycle's step (float multigrid then stalled at 4-5 ulps of max |phi|
   in a homogeneous medium).  lo is NULL in double (the same sums, rounded once each). */
static void SFX(true_residual)(const dg_mg_hierarchy *h, const REAL *restrict in,
                               REAL *restrict out, REAL *restrict lo) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const double f0 = p->factor[0], df = p->factor[1] - p->factor[0];
    const unsigned char *restrict salt = h->salt;
    const float *restrict factor = h->factor, *restrict rhs = h->rhs;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t w = row + x;
                const double f = factor ? (double)factor[w] : f0 + df * salt[w];
                const double sum = (double)in[w - 1] + (double)in[w + 1] + (double)in[w - sy] +
                                   (double)in[w + sy] + (double)in[w - sz] + (double)in[w + sz];
                const double v = f * sum - (double)in[w] + (rhs ? (double)rhs[w] : 0.0);
                out[w] = (REAL)v;
                if (lo) lo[w] = (REAL)(v - (double)out[w]);
            }
        }
    const long step[6] = {-1, 1, -sy, sy, -sz, sz};
    for (int c = 0; c < 2; ++c) {
        const int count = p->boundary_count[c];
        const int *index = p->boundary_index[c];
        const double *weight = mg_weights(h, c);
#pragma omp parallel for schedule(static) num_threads(h->threads) if (count > 4096)
        for (int k = 0; k < count; ++k) {
            const size_t w = 2 * (size_t)index[k] + c;
            SFX(add_to_pair)(out, lo, w, SFX(boundary_sum)(weight, k, in, w, step));
        }
        if (rhs) continue;
        for (int k = 0; k < p->charge_count[c]; ++k) {
            const size_t w = 2 * (size_t)p->charge_index[c][k] + c;
            SFX(add_to_pair)(out, lo, w, p->charge_source[c][k]);
        }
    }
}

/* max |v|, sum v^2 and finiteness over the interior. */
static SFX(mg_sums)
    SFX(measure)(const dg_mg_hierarchy *h, const REAL *v, const REAL *phi, double *plane) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    double *pmax = plane, *psum = plane + p->nz, *pphi = plane + 2 * p->nz;
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (int z = 1; z < p->nz - 1; ++z) {
        double m = 0.0, s = 0.0, f = 0.0;
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x) {
                const double a = (double)v[x + sy * y + sz * z];
                s += a * a;
                m = fabs(a) > m ? fabs(a) : m; /* a NaN makes s NaN */
                const double b = fabs((double)phi[x + sy * y + sz * z]);
                f = b > f ? b : f;
            }
        pmax[z] = m, psum[z] = s, pphi[z] = f;
    }
    SFX(mg_sums) out = {0.0, 0.0, 0.0, 1, {0.0, 0.0}};
    for (int z = 1; z < p->nz - 1; ++z) {
        if (!isfinite(pmax[z]) || !isfinite(psum[z])) out.finite = 0;
        out.max_abs = fmax(out.max_abs, pmax[z]);
        out.sum_sq += psum[z];
        out.phi_max = fmax(out.phi_max, pphi[z]);
    }
    return out;
}

/* x += alpha p, r -= alpha q over the interior, the measures of the new r and those of p. */
static SFX(mg_sums)
    SFX(update)(const dg_mg_hierarchy *h, REAL alpha, const REAL *restrict pp,
                const REAL *restrict q, REAL *restrict x, REAL *restrict r, double *plane) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    double *pmax = plane, *psum = plane + p->nz, *pphi = plane + 2 * p->nz;
    double *dmax = plane + 3 * p->nz, *dsum = plane + 4 * p->nz;
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (int z = 1; z < p->nz - 1; ++z) {
        double m = 0.0, s = 0.0, f = 0.0, dm = 0.0, ds = 0.0;
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x0 = 1; x0 < p->nx - 1; ++x0) {
                const size_t w = row + x0;
                x[w] += alpha * pp[w];
                const double b = fabs((double)x[w]);
                f = b > f ? b : f;
                const double d = fabs((double)pp[w]);
                dm = d > dm ? d : dm;
                ds += d * d;
                const REAL v = r[w] - alpha * q[w];
                r[w] = v;
                const double a = (double)v;
                s += a * a;
                m = fabs(a) > m ? fabs(a) : m; /* a NaN makes s NaN */
            }
        }
        pmax[z] = m, psum[z] = s, pphi[z] = f, dmax[z] = dm, dsum[z] = ds;
    }
    SFX(mg_sums) out = {0.0, 0.0, 0.0, 1, {0.0, 0.0}};
    for (int z = 1; z < p->nz - 1; ++z) {
        if (!isfinite(pmax[z]) || !isfinite(psum[z])) out.finite = 0;
        out.max_abs = fmax(out.max_abs, pmax[z]);
        out.sum_sq += psum[z];
        out.phi_max = fmax(out.phi_max, pphi[z]);
        out.p.max_abs = fmax(out.p.max_abs, dmax[z]);
        out.p.sum_sq += dsum[z];
    }
    return out;
}

/* sum D a b over the interior (a in REAL, b float or REAL through b_float/b_real). */
static double SFX(weighted_dot)(const dg_mg_hierarchy *h, const REAL *a, const float *b_float,
                                const REAL *b_real, double *plane) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const float *d = h->dscale;
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (int z = 1; z < p->nz - 1; ++z) {
        double s = 0.0;
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            if (b_float)
                for (int x = 1; x < p->nx - 1; ++x)
                    s += (double)d[row + x] * (double)a[row + x] * (double)b_float[row + x];
            else
                for (int x = 1; x < p->nx - 1; ++x)
                    s += (double)d[row + x] * (double)a[row + x] * (double)b_real[row + x];
        }
        plane[z] = s;
    }
    double sum = 0.0;
    for (int z = 1; z < p->nz - 1; ++z)
        sum += plane[z];
    return sum;
}

/* The first half sweep (colour 0) from z = 0, exactly: z = r at colour 0 (its neighbours, so
   its boundary corrections, are 0) and z = 0 at colour 1; z's faces stay 0 (periodic axes:
   they take their images'). */
static void SFX(first_sweep)(const dg_mg_hierarchy *h, const REAL *restrict r) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    float *restrict zz = h->z;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x = 1; x < p->nx - 1; ++x)
                zz[row + x] = ((x + y + z) & 1) == 0 ? (float)r[row + x] : 0.0f;
        }
    dg_prepared_wrap(p, zz, sizeof(float), h->threads);
}

/* Gauss-Seidel half sweep of colour c for A z = r: z = C z + r (z float, r REAL).  Periodic
   axes: the faces take their images' values after the whole colour (boundary corrections
   included), so within it a seam neighbour of the same colour is read at its old value (a
   Jacobi step between those points: the half sweep stays a symmetric update of colour c, and
   the cycle symmetric). */
static void SFX(fine_sweep)(const dg_mg_hierarchy *h, const REAL *restrict r, int c) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const float f0 = (float)p->factor[0], df = (float)(p->factor[1] - p->factor[0]);
    const unsigned char *restrict salt = h->salt;
    const float *restrict factor = h->factor;
    float *restrict zz = h->z;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x = 1 + ((1 + y + z + c) & 1); x < p->nx - 1; x += 2) {
                const size_t w = row + x;
                const float f = factor ? factor[w] : f0 + df * salt[w];
                zz[w] = f * (zz[w - 1] + zz[w + 1] + zz[w - sy] + zz[w + sy] + zz[w - sz] +
                             zz[w + sz]) +
                        (float)r[w];
            }
        }
    const long step[6] = {-1, 1, -sy, sy, -sz, sz};
    const int count = p->boundary_count[c];
    const int *index = p->boundary_index[c];
    const double *weight = mg_weights(h, c);
#pragma omp parallel for schedule(static) num_threads(h->threads) if (count > 4096)
    for (int k = 0; k < count; ++k) {
        const size_t w = 2 * (size_t)index[k] + c;
        float sum = 0.0f;
        for (int f = 0; f < 6; ++f)
            sum += (float)weight[6 * (size_t)k + f] * zz[w + step[f]];
        zz[w] += sum;
    }
    dg_prepared_wrap(p, zz, sizeof(float), h->threads);
}

/* tmp = r - A z (z float) over the interior, rounded to float: it only feeds the float coarse
   levels. */
static void SFX(fine_residual)(const dg_mg_hierarchy *h, const REAL *restrict r,
                               float *restrict tmp) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const float f0 = (float)p->factor[0], df = (float)(p->factor[1] - p->factor[0]);
    const unsigned char *restrict salt = h->salt;
    const float *restrict factor = h->factor;
    const float *restrict zz = h->z;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            const size_t row = sy * y + sz * z;
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t w = row + x;
                const float f = factor ? factor[w] : f0 + df * salt[w];
                tmp[w] = (float)(r[w] - (REAL)zz[w] +
                                 (REAL)(f * (zz[w - 1] + zz[w + 1] + zz[w - sy] + zz[w + sy] +
                                             zz[w - sz] + zz[w + sz])));
            }
        }
    const long step[6] = {-1, 1, -sy, sy, -sz, sz};
    for (int c = 0; c < 2; ++c) {
        const int count = p->boundary_count[c];
        const int *index = p->boundary_index[c];
        const double *weight = mg_weights(h, c);
#pragma omp parallel for schedule(static) num_threads(h->threads) if (count > 4096)
        for (int k = 0; k < count; ++k) {
            const size_t w = 2 * (size_t)index[k] + c;
            float sum = 0.0f;
            for (int f = 0; f < 6; ++f)
                sum += (float)weight[6 * (size_t)k + f] * zz[w + step[f]];
            tmp[w] += sum;
        }
    }
}

/* Coarse rhs: the D-weighted fine residual summed over each 2x2x2 aggregate. */
static void SFX(fine_restrict)(dg_mg_hierarchy *h, const float *tmp) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    dg_mg_level *c = &h->levels[0];
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int Z = 1; Z <= c->mz; ++Z)
        for (int Y = 1; Y <= c->my; ++Y)
            for (int X = 1; X <= c->mx; ++X) {
                double sum = 0.0;
                for (int k = 0; k < 8; ++k) {
                    const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                              z = 2 * Z - 1 + (k >> 2);
                    if (x > p->nx - 2 || y > p->ny - 2 || z > p->nz - 2) continue;
                    const size_t w = x + sy * y + sz * z;
                    sum += (double)h->dscale[w] * (double)tmp[w];
                }
                c->rhs[X + c->sx * Y + c->sy * Z] = (float)sum;
            }
}

static void SFX(fine_prolong)(dg_mg_hierarchy *h) {
    const dg_prepared *p = h->prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    const dg_mg_level *c = &h->levels[0];
    const float scale = (float)h->params.correction_scale;
#pragma omp parallel for schedule(static) num_threads(h->threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x)
                h->z[x + sy * y + sz * z] +=
                    scale * c->e[(x + 1) / 2 + c->sx * ((y + 1) / 2) + c->sy * ((z + 1) / 2)];
    dg_prepared_wrap(p, h->z, sizeof(float), h->threads);
}

/* One symmetric V-cycle from a zero start: z ~ A^-1 r.  tmp is a float work grid. */
static void SFX(precondition)(dg_mg_hierarchy *h, const REAL *r, float *tmp) {
    if (h->params.pre_sweeps > 0) {
        SFX(first_sweep)(h, r); /* z's faces are 0 from the build and never written */
        SFX(fine_sweep)(h, r, 1);
    } else {
        memset(h->z, 0, h->prep->point_count * sizeof(float));
    }
    for (int i = 1; i < h->params.pre_sweeps; ++i)
        SFX(fine_sweep)(h, r, 0), SFX(fine_sweep)(h, r, 1);
    if (h->level_count > 0) {
        SFX(fine_residual)(h, r, tmp);
        SFX(fine_restrict)(h, tmp);
        dg_mg_coarse_cycle(h, 0);
        SFX(fine_prolong)(h);
    }
    for (int i = 0; i < h->params.post_sweeps; ++i)
        SFX(fine_sweep)(h, r, 1), SFX(fine_sweep)(h, r, 0);
}

/* max |x| over the six faces (fixed boundary values during the solve): with the interior's max
   from measure and update, the float floor's scale is max |x| over the whole grid, as on the GPU.
 */
static double SFX(faces_max)(const dg_prepared *p, const REAL *x) {
    const long nx = p->nx, ny = p->ny, nz = p->nz, sy = nx, sz = nx * ny;
    double f = 0.0;
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y) {
            const int face_row = z == 0 || z == nz - 1 || y == 0 || y == ny - 1;
            const long step = face_row ? 1 : nx - 1;
            for (long xx = 0; xx < nx; xx += step) {
                const double b = fabs((double)x[xx + sy * y + sz * z]);
                f = b > f ? b : f;
            }
        }
    return f;
}

/* The true residual b - A x into r and its measures, max |x| over the whole grid (faces: the
   faces' max, which the solve does not change; periodic axes: x's faces first take their
   images' values). */
static SFX(mg_sums) SFX(renewed)(const dg_mg_hierarchy *h, REAL *x, REAL *r, REAL *lo,
                                 double *plane, double faces) {
    dg_prepared_wrap(h->prep, x, sizeof(REAL), h->threads);
    SFX(true_residual)(h, x, r, lo);
    SFX(mg_sums) m = SFX(measure)(h, r, x, plane);
    m.phi_max = fmax(m.phi_max, faces);
    return m;
}

static int SFX(mg_solve_impl)(dg_mg_hierarchy *h, REAL *phi, const dg_mg_control *control,
                              dg_mg_outcome *res, dg_error *err) {
    const dg_prepared *p = h->prep;
    const double interior = (double)p->interior_count;
    const dg_mg_control ctl = *control;
    const int fixed = ctl.fixed, cap = ctl.cap;

    REAL *r = calloc(p->point_count, sizeof(REAL)), *pp = calloc(p->point_count, sizeof(REAL));
    REAL *q = calloc(p->point_count, sizeof(REAL)), *x = phi; /* solved in place */
    double *plane = malloc(5 * sizeof(double) * (size_t)p->nz);
    if (!r || !pp || !q || !plane) {
        free(r), free(pp), free(q), free(plane);
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                            "multigrid: out of host memory (%.1f GB of CG vectors)",
                            3.0 * sizeof(REAL) * p->point_count / 1e9);
    }
    REAL *lo = IS_DOUBLE ? NULL : q; /* q is free wherever the true residual is computed */
    dg_prepared_wrap(p, x, sizeof(REAL),
                     h->threads); /* periodic axes: the faces hold their images */
    const double faces = SFX(faces_max)(p, x);
    SFX(mg_sums) m = SFX(renewed)(h, x, r, lo, plane, faces);
    int cycles = 0, outcome = DG_OUTCOME_NOT_CONVERGED, fresh = 1, stalled = 0, stop = 0, votes = 0;
    double rho = 0.0, best = m.max_abs;
    double earlier = HUGE_VAL;   /* smallest change before the last */
    double reliable = m.max_abs; /* max |r| of the last true residual (DG_MG_RELIABLE_FALL) */
    dg_mg_measures change = dg_mg_no_change((dg_mg_measures){m.max_abs, m.sum_sq});
    while (m.finite) {
        int verdict = fixed ? DG_MG_GOING
                            : dg_mg_met(&ctl, (dg_mg_measures){m.max_abs, m.sum_sq}, change,
                                        earlier, m.phi_max, interior);
        if (verdict == DG_MG_MET) {
            /* confirm with the true residual (the recurrence drifts in low precision) */
            m = SFX(renewed)(h, x, r, lo, plane, faces);
            verdict = dg_mg_met(&ctl, (dg_mg_measures){m.max_abs, m.sum_sq}, change, earlier,
                                m.phi_max, interior);
            if (verdict == DG_MG_MET) {
                outcome = DG_OUTCOME_CONVERGED;
                break;
            }
            fresh = 1, reliable = m.max_abs; /* restart the recurrence from the true residual */
        }
        verdict = dg_mg_vote(verdict, &votes); /* float's resolution (mg.h) */
        if (verdict == DG_MG_RESOLUTION) {
            outcome = DG_OUTCOME_FLOAT_RESOLUTION;
            break;
        }
        if (stop) { /* the caller's on_cycle asked (a criterion met first wins) */
            outcome = DG_OUTCOME_STOPPED;
            break;
        }
        if (cycles >= cap) {
            outcome = fixed ? DG_OUTCOME_COMPLETED : DG_OUTCOME_NOT_CONVERGED;
            break;
        }
        if (stalled >= ctl.stall) break;     /* the working precision's floor */
        SFX(precondition)(h, r, (float *)q); /* q is free until A p (interior only) */
        const double rho_new = SFX(weighted_dot)(h, r, h->z, NULL, plane);
        const double beta = fresh ? 0.0 : rho_new / rho;
        rho = rho_new, fresh = 0;
        const float *zz = h->z;
#pragma omp parallel for schedule(static) num_threads(h->threads)
        for (size_t w = 0; w < p->point_count; ++w)
            pp[w] = (REAL)zz[w] + (REAL)beta * pp[w];
        SFX(apply_operator)(h, pp, q);
        const double pq = SFX(weighted_dot)(h, pp, NULL, q, plane);
        if (!(pq > 0.0) || !isfinite(pq)) {
            m.finite = isfinite(pq);
            if (m.finite) break; /* lost positivity: the working precision's floor */
            continue;
        }
        const REAL alpha = (REAL)(rho / pq);
        m = SFX(update)(h, alpha, pp, q, x, r, plane);
        m.phi_max = fmax(m.phi_max, faces);
        const double a = fabs((double)alpha);
        if (cycles) earlier = fmin(earlier, change.max_abs);
        change.max_abs = a * m.p.max_abs, change.sum_sq = a * a * m.p.sum_sq;
        ++cycles;
        /* float near its resolution: the recurrence (and the step measured from it) falls on
           where b - A x no longer does, so the true residual replaces it, and the directions
           restart from it: kept, they carry the recurrence's rounding, and CG crept (49 cycles
           instead of 13 to 0.4 epsilons of max |phi| on a +1 e charge in a homogeneous medium,
           97^3).  Before that level a float recurrence is renewed as it falls (mg.h,
           DG_MG_RELIABLE_FALL), p kept. */
        const int at_floor = ctl.change_floor > 0 && change.max_abs <= ctl.change_floor * m.phi_max;
        if (at_floor || (!IS_DOUBLE && m.max_abs < DG_MG_RELIABLE_FALL * reliable)) {
            m = SFX(renewed)(h, x, r, lo, plane, faces);
            reliable = m.max_abs;
            if (at_floor) fresh = 1;
        }
        if (m.max_abs < 0.99 * best)
            best = m.max_abs, stalled = 0;
        else
            ++stalled;
        if (ctl.on_cycle && m.finite) stop = ctl.on_cycle(ctl.on_cycle_user, cycles, change) != 0;
    }
    if (m.finite && outcome != DG_OUTCOME_CONVERGED) { /* report the true residual */
        m = SFX(renewed)(h, x, r, lo, plane, faces);
    }
    dg_prepared_wrap(p, x, sizeof(REAL),
                     h->threads); /* the answer's faces hold their images, as the SOR's */
    if (!m.finite) outcome = DG_OUTCOME_DIVERGED; /* the caller keeps its own phi then */
    res->outcome = outcome;
    res->cycles = cycles;
    res->max_abs = m.max_abs;
    res->rms = sqrt(m.sum_sq / interior);
    res->norm = sqrt(m.sum_sq);
    res->change_max = cycles ? change.max_abs : 0.0;
    res->change_rms = cycles ? sqrt(change.sum_sq / interior) : 0.0;
    res->change_norm = cycles ? sqrt(change.sum_sq) : 0.0;
    free(r), free(pp), free(q), free(plane);
    return DG_OK;
}
