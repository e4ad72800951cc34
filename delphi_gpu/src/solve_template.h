/* Template body of solve.c (REAL, SFX, IS_DOUBLE). */

static void SFX(check_range)(void *context, size_t begin, size_t end) {
    phi_check *j = context;
    const REAL *phi = j->phi;
    const long nx = j->nx;
    long bad = 0;
    unsigned long long bits = 0;
    for (long k = (long)begin; k < (long)end; ++k) {
        const long y = k % j->ny, z = k / j->ny;
        const REAL *row = phi + k * nx;
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

/* The first non-finite value of phi named (after the check counted some). */
static int SFX(refuse_nonfinite)(dg_solver s, const REAL *phi) {
    const dg_prepared *p = &s->prep;
    for (size_t w = 0; w < p->point_count; ++w)
        if (!isfinite((double)phi[w])) {
            int x = (int)(w % p->nx), y = (int)((w / p->nx) % p->ny),
                z = (int)(w / ((size_t)p->nx * p->ny));
            return dg_fail(s, DG_ERR_NONFINITE_INPUT,
                           "phi at point (%d,%d,%d) (0-based, full index %zu) is %g", x, y, z, w,
                           (double)phi[w]);
        }
    return dg_fail(s, DG_ERR_NONFINITE_INPUT, "phi holds a non-finite value");
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
       refuse_nonfinite's serial scan only names the first bad point.  Multigrid on CUDA runs
       the pass on a thread of its own while the device's set-up proceeds (phi_check_wait). */
    const dg_host_loop where = {s->options.num_threads, s->options.backend == DG_BACKEND_CUDA};
    const long rows = (long)p->ny * p->nz;
    const size_t grain = p->nx < CHECK_ROW_POINTS ? (size_t)(CHECK_ROW_POINTS / p->nx) : 1;
    phi_check c;
    memset(&c, 0, sizeof c);
    c.phi = phi, c.nx = p->nx, c.ny = p->ny, c.nz = p->nz, c.range = SFX(check_range);
    c.where = where, c.rows = (size_t)rows, c.grain = grain;
    s->active_solver = r->solver = dg_mg_choose(s, s->solver_choice, sizeof s->solver_choice);
#ifdef DG_MPI
    char split[256];
    dg_mpi_describe(s, split, sizeof split);
    if (split[0]) {
        const size_t used = strlen(s->solver_choice);
        snprintf(s->solver_choice + used, sizeof s->solver_choice - used, "; %s", split);
    }
#endif
    /* multigrid for a linear equation reads phi and writes its answer back itself; as Newton's
       inner solver it works on the backend's half grids, as the SOR */
    const int mg_own = s->active_solver == DG_SOLVER_MULTIGRID && !dg_mg_inner_newton(s);
    const int beside = mg_own && s->options.backend == DG_BACKEND_CUDA;
    c.es = sizeof(REAL), c.pack_faces = beside;
    if (beside && pthread_create(&c.thread, NULL, phi_check_run, &c) == 0)
        c.running = 1;
    else
        c.pack_faces = 0, phi_check_run(&c);
    if (!c.running && c.bad) return SFX(refuse_nonfinite)(s, phi);
    /* read only once the check has ended (a running one is multigrid's, which waits for it) */
    const int interior_zero = !c.running && c.interior_bits == 0;
    r->backend = s->options.backend;
    r->precision = s->options.precision;
    dg_error err = {0};
    const double checked = dg_wall_seconds();
    s->timing.check_phi = c.running ? 0.0 : checked - start;
    s->timing.spectral = s->timing.iterate = s->timing.store_phi = s->timing.store_wait = 0.0;
    s->timing.mg_setup = s->timing.mg_cycles = s->timing.mg_phi_in = 0.0;
    s->timing.mg_build = s->timing.mg_phi_out = 0.0;
    s->timing.mg_check_wait = s->timing.mg_release = s->timing.mg_graph = 0.0;
    /* Multigrid reads phi and writes its answer back itself (once each way): the SOR's half
       grids are not involved. */
    const int by_backend = !mg_own;
    const int faces_only = by_backend && interior_zero && s->backend->load_phi_faces;
    s->timing.faces_only = faces_only;
    /* a decomposed handle: loading is collective, so first agree that every rank got this far */
    const int entry = s->mpi_entry_pending; /* not a call from a callback */
    int st = dg_mpi_entry_agree(s, DG_OK, "start its solve");
    if (st == DG_OK && entry) st = dg_mpi_same_setup(s);
    if (st != DG_OK) return st;
    st = !by_backend  ? DG_OK
         : faces_only ? s->backend->load_phi_faces(s->backend_state, phi, IS_DOUBLE, &err)
                      : s->backend->load_phi(s->backend_state, phi, IS_DOUBLE, &err);
    if (st != DG_OK)
        return dg_fail(s, st, "%s backend could not load phi: %s", s->backend->name, err.message);
    r->setup_seconds = dg_wall_seconds() - start;
    s->mg_phi = phi, s->mg_phi_is_double = IS_DOUBLE;
    s->mg_check = (dg_phi_check_view){phi_check_wait, phi_check_faces, &c};
    s->timing.load_phi = dg_wall_seconds() - checked;
    if (s->loop_begun) __atomic_store_n(s->loop_begun, 1, __ATOMIC_RELEASE);
    s->in_solve = 1;
    st = dg_run_solver(s, r);
    s->in_solve = 0;
    s->mg_phi = NULL;
    s->mg_check = (dg_phi_check_view){NULL, NULL, NULL};
    if (beside) {
        /* the multigrid path waited for the check before writing its answer (and wrote nothing
           when it failed), unless it stopped earlier */
        phi_check_wait(&c, 1);
        free(c.faces);
        s->timing.check_phi = c.seconds;
        if (c.bad) return SFX(refuse_nonfinite)(s, phi);
    }
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
