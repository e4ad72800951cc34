/* Template body of cpu_newton.c, included once per working precision (REAL, SFX).  Every loop
 * runs over z planes; per-plane partial norms are summed in plane order, so results do not
 * depend on the number of threads. */

/* Periodic axes: each face point of a wrap pair (prepared.h) takes its image's value, so that
   G sees the periodic neighbours and the potential comes back with its faces wrapped. */
static void SFX(newton_wrap)(cpu_newton *w) {
    const dg_prepared *p = w->view.prep;
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    REAL *phi[2] = {w->view.phi[0], w->view.phi[1]};
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        for (int i = 0; i < 2; ++i)
            phi[face[i] & 1][face[i] >> 1] = phi[image[i] & 1][image[i] >> 1];
    }
}

/* G = phi - (stencil + source + salt factor * R(phi)) and inv = 1 / (1 + d) at every interior
   point of both colours, then the norms of G. */
static void SFX(newton_residual)(cpu_newton *w, dg_newton_norms *norms) {
    const dg_prepared *p = w->view.prep;
    SFX(newton_wrap)(w);
    const dg_newton_term term = w->term;
    const double sf = term.salt_factor;
    for (int c = 0; c < 2; ++c) {
        const REAL *restrict phi = w->view.phi[c];
        const REAL *restrict other = w->view.phi[1 - c];
        const long *o = w->view.offsets[c];
        const unsigned char *flag = p->has_salt ? p->flag[c] : NULL;
        const int *bmap = w->bmap[c];
        const double *weight = p->boundary_weight[c];
        double *restrict g = w->g[c], *restrict inv = w->inv[c];
#pragma omp parallel for schedule(static) num_threads(w->view.threads)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    const int f = flag ? flag[h] : 0;
                    double s = p->factor[f] * ((double)other[h + o[0]] + (double)other[h + o[1]] +
                                               (double)other[h + o[2]] + (double)other[h + o[3]] +
                                               (double)other[h + o[4]] + (double)other[h + o[5]]);
                    const int b = bmap[h];
                    if (b >= 0) {
                        const double *wb = weight + 6L * b;
                        for (int k = 0; k < 6; ++k)
                            s += wb[k] * (double)other[h + o[k]];
                    }
                    double d = 0.0;
                    if (f) {
                        double derivative = 0.0;
                        s += sf * dg_newton_remainder(&term, (double)phi[h], &derivative);
                        d = -sf * derivative;
                        if (!(d > 0.0)) d = isnan(d) ? d : 0.0;
                    }
                    g[h] = (double)phi[h] - s;
                    inv[h] = 1.0 / (1.0 + d);
                }
            }
        for (int k = 0; k < p->charge_count[c]; ++k)
            g[p->charge_index[c][k]] -= p->charge_source[c][k];
    }
#pragma omp parallel for schedule(static) num_threads(w->view.threads)
    for (int z = 1; z < p->nz - 1; ++z) {
        double mx = 0.0, sum = 0.0;
        int finite = 1;
        for (int y = 1; y < p->ny - 1; ++y)
            for (int c = 0; c < 2; ++c) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                const unsigned char *flag = p->has_salt ? p->flag[c] : NULL;
                for (long h = first; h <= last; ++h) {
                    const double v = w->g[c][h], inv = w->inv[c][h];
                    if (!isfinite(v) || !isfinite(inv)) finite = 0;
                    mx = fabs(v) > mx ? fabs(v) : mx;
                    sum += v * v;
                    w->a[c][h] = (float)(inv * p->factor[flag ? flag[h] : 0]);
                    w->b[c][h] = (float)(inv * v);
                }
            }
        w->plane_max[z] = mx, w->plane_sum[z] = sum, w->plane_finite[z] = finite;
    }
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < p->boundary_count[c]; ++k)
            w->boundary_inv[c][k] = (float)w->inv[c][p->boundary_index[c][k]];
    collect_norms(w, norms);
}

/* phi <- start + lambda delta (start <- phi first when first); norms of the change of phi. */
static void SFX(newton_step)(cpu_newton *w, double lambda, int first, dg_newton_norms *norms) {
    const dg_prepared *p = w->view.prep;
#pragma omp parallel for schedule(static) num_threads(w->view.threads)
    for (int z = 1; z < p->nz - 1; ++z) {
        double mx = 0.0, sum = 0.0;
        int finite = 1;
        for (int y = 1; y < p->ny - 1; ++y)
            for (int c = 0; c < 2; ++c) {
                REAL *restrict phi = w->view.phi[c];
                REAL *restrict start = w->start[c];
                const float *restrict delta = w->delta[c];
                long first_h, last_h;
                dg_row_range(p->nx, p->ny, y, z, c, &first_h, &last_h);
                for (long h = first_h; h <= last_h; ++h) {
                    if (first) start[h] = phi[h];
                    phi[h] = (REAL)((double)start[h] + lambda * (double)delta[h]);
                    const double v = (double)phi[h] - (double)start[h];
                    if (!isfinite(v)) finite = 0;
                    mx = fabs(v) > mx ? fabs(v) : mx;
                    sum += v * v;
                }
            }
        w->plane_max[z] = mx, w->plane_sum[z] = sum, w->plane_finite[z] = finite;
    }
    SFX(newton_wrap)(w);
    collect_norms(w, norms);
}
