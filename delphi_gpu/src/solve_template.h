/* Template body of solve.c (REAL, SFX, IS_DOUBLE). */

/* phi's check over grid rows (y, z): non-finite values counted, and the bit patterns of the
   interior values or-ed (all +0.0: a fresh solve, whose backend need read only the faces). */
typedef struct SFX(check_job) {
    const REAL *phi;
    long nx, ny, nz;
    long bad;
    unsigned long long interior_bits;
} SFX(check_job);

static void SFX(check_range)(void *context, size_t begin, size_t end) {
    SFX(check_job) *j = context;
    const long nx = j->nx;
    long bad = 0;
    unsigned long long bits = 0;
    for (long k = (long)begin; k < (long)end; ++k) {
        const long y = k % j->ny, z = k / j->ny;
        const REAL *row = j->phi + k * nx;
        if (z == 0 || z == j->nz - 1 || y == 0 || y == j->ny - 1) {
            for (long x = 0; x < nx; ++x)
                bad += !isfinite((double)row[x]);
            continue;
        }
        bad += !isfinite((double)row[0]) + !isfinite((double)row[nx - 1]);
        for (long x = 1; x < nx - 1; ++x) {
            bad += !isfinite((double)row[x]);
            bits |= SFX(value_bits)(row[x]);
        }
    }
    if (bad) __atomic_fetch_add(&j->bad, bad, __ATOMIC_RELAXED);
    if (bits) __atomic_fetch_or(&j->interior_bits, bits, __ATOMIC_RELAXED);
}

static int SFX(solve_impl)(dg_solver s, REAL *phi, dg_result *result) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    if (dg_reject_reentry(s, "dg_solve") != DG_OK) return DG_ERR_STATE;
    dg_clear_error(s);
    dg_result local;
    dg_result *r = result ? result : &local;
    memset(r, 0, sizeof *r);
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    if (!s->has_medium) return dg_fail(s, DG_ERR_STATE, "no medium set (dg_set_*_medium first)");
    if (!phi) return dg_fail(s, DG_ERR_INVALID_ARGUMENT, "phi is NULL");
    const dg_prepared *p = &s->prep;
    const double start = dg_wall_seconds();
    /* One parallel pass: non-finite values, and whether every interior point is +0.0 (a fresh
       solve: boundary values on the faces only), so that the backend need read only the faces.
       The serial scan below only names the first bad point. */
    SFX(check_job) j = {phi, p->nx, p->ny, p->nz, 0, 0};
    const long rows = (long)p->ny * p->nz;
    const size_t grain = p->nx < CHECK_ROW_POINTS ? (size_t)(CHECK_ROW_POINTS / p->nx) : 1;
    const dg_host_loop where = {s->options.num_threads, s->options.backend == DG_BACKEND_CUDA};
    dg_host_for(where, (size_t)rows, grain, SFX(check_range), &j);
    const long bad = j.bad;
    const unsigned long long interior_bits = j.interior_bits;
    for (size_t w = 0; bad && w < p->point_count; ++w)
        if (!isfinite((double)phi[w])) {
            int x = (int)(w % p->nx), y = (int)((w / p->nx) % p->ny),
                z = (int)(w / ((size_t)p->nx * p->ny));
            return dg_fail(s, DG_ERR_NONFINITE_INPUT,
                           "phi at point (%d,%d,%d) (0-based, full index %zu) is %g", x, y, z, w,
                           (double)phi[w]);
        }
    r->backend = s->options.backend;
    r->precision = s->options.precision;
    dg_error err = {0};
    const double checked = dg_wall_seconds();
    s->timing.check_phi = checked - start;
    s->timing.spectral = s->timing.iterate = s->timing.store_phi = s->timing.store_wait = 0.0;
    s->timing.mg_setup = s->timing.mg_cycles = s->timing.mg_phi_in = 0.0;
    s->timing.mg_build = s->timing.mg_phi_out = 0.0;
    /* Multigrid reads phi and writes its answer back itself (once each way): the SOR's half
       grids are not involved. */
    s->active_solver = r->solver = dg_mg_choose(s, s->solver_choice, sizeof s->solver_choice);
    const int by_backend = s->active_solver != DG_SOLVER_MULTIGRID;
    const int faces_only = by_backend && interior_bits == 0 && s->backend->load_phi_faces;
    s->timing.faces_only = faces_only;
    int st = !by_backend  ? DG_OK
             : faces_only ? s->backend->load_phi_faces(s->backend_state, phi, IS_DOUBLE, &err)
                          : s->backend->load_phi(s->backend_state, phi, IS_DOUBLE, &err);
    if (st != DG_OK)
        return dg_fail(s, st, "%s backend could not load phi: %s", s->backend->name, err.message);
    r->setup_seconds = dg_wall_seconds() - start;
    s->mg_phi = phi, s->mg_phi_is_double = IS_DOUBLE, s->mg_interior_zero = interior_bits == 0;
    s->timing.load_phi = dg_wall_seconds() - checked;
    if (s->loop_begun) __atomic_store_n(s->loop_begun, 1, __ATOMIC_RELEASE);
    s->in_solve = 1;
    st = dg_run_solver(s, r);
    s->in_solve = 0;
    s->mg_phi = NULL;
    if (st != DG_OK) return st;
    dg_clear_error(s); /* a refused re-entrant call from the callback is not this call's error */
    /* A diverged solve leaves phi as it was on entry rather than returning garbage. */
    if (r->outcome != DG_OUTCOME_DIVERGED && by_backend) {
        const double stored = dg_wall_seconds();
        st = s->backend->store_phi(s->backend_state, phi, IS_DOUBLE, &err);
        s->timing.store_phi = dg_wall_seconds() - stored;
        s->timing.store_wait =
            s->backend->store_wait_seconds ? s->backend->store_wait_seconds(s->backend_state) : 0;
        if (st != DG_OK)
            return dg_fail(s, st, "%s backend could not return phi: %s", s->backend->name,
                           err.message);
    }
    r->total_seconds = dg_wall_seconds() - start;
    return DG_OK;
}
