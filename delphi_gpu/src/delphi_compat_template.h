/* Template body of delphi_compat.c, included once per DelPhi REAL kind.
 * Expects REAL (float or double), SFX(name) (name##_f or name##_d), DG_PRECISION_OF_REAL,
 * REAL_SQRT, REAL_TRUNC and SUFFIX_TEXT ("_f" or "_d"). */

/* omega = 2/(1+sqrt(1-spec)), in REAL as DelPhi computes it. */
static REAL SFX(delphi_omega)(REAL spec) {
    return (REAL)2 / ((REAL)1 + REAL_SQRT((REAL)1 - spec));
}

/* itit's mark on phi(1,1,1): phi*10^4 truncated to an integer t, then (t + 0.8)/10^4 when t > 0,
   else (t - 0.8)/10^4 (the sign is that of the truncated value: a phi in (0, 10^-4) gets
   -0.00008), in REAL arithmetic. */
static REAL SFX(delphi_signature)(REAL phi) {
    const REAL truncated = REAL_TRUNC(phi * (REAL)10000);
    const REAL mark = (REAL)0.8;
    return truncated > 0 ? (truncated + mark) / (REAL)10000 : (truncated - mark) / (REAL)10000;
}

/* Leave db, sf1, sf2 and qval multiplied by omega, as DelPhi's routines do (element by element,
   so the result does not depend on the number of threads), over the four arrays laid end to end
   in ranges (the host pool on the GPU, the OpenMP team on the CPU), each range's pages first
   made present for writing (populate_for_writing). */
typedef struct SFX(scale_arrays) {
    REAL omega;
    REAL *array[4];
    long length[4];
} SFX(scale_arrays);

static void SFX(scale_range)(void *context, size_t begin, size_t end) {
    const SFX(scale_arrays) *a = context;
    size_t offset = 0;
    for (int i = 0; i < 4 && end > offset; offset += (size_t)a->length[i], ++i) {
        const size_t length = (size_t)a->length[i];
        const size_t from = begin > offset ? begin - offset : 0;
        const size_t to = end - offset < length ? end - offset : length;
        if (to <= from) continue;
        REAL *x = a->array[i];
        populate_for_writing(x + from, (to - from) * sizeof(REAL));
        for (size_t k = from; k < to; ++k)
            x[k] *= a->omega;
    }
}

static void SFX(scale_by_omega)(REAL omega, int igrid, REAL *db, int boundary_count, REAL *sf1,
                                REAL *sf2, REAL *qval, int charge_count, dg_host_loop where) {
    const long half = (long)(((size_t)igrid * igrid * igrid + 1) / 2);
    SFX(scale_arrays)
    a = {omega,
         {db, sf1, sf2, qval},
         {db ? 6L * boundary_count : 0, sf1 ? half : 0, sf2 ? half : 0, qval ? charge_count : 0}};
    const size_t total = (size_t)(a.length[0] + a.length[1] + a.length[2] + a.length[3]);
    dg_host_for(where, total, SCALE_GRAIN, SFX(scale_range), &a);
}

/* The omega scaling of DelPhi's arrays as a job for a helper thread: on the GPU it runs while the
   iterations do (the medium has been copied by then, dg_set_sparse_medium): without salt DelPhi
   never writes sf1 and sf2, and the first writes of their pages cost 15-17 ms per call on a
   219^3 grid faulted page by page (PERFORMANCE.md run 24), about 3 ms populated.  It waits
   until the iterations begin (begun, set by dg_solve through the solver's loop_begun, and by
   the caller once dg_solve returns): before that the call's own host work (phi's check and
   upload) has the host pool, which runs one job at a time. */
typedef struct SFX(scale_job) {
    REAL omega;
    int igrid, boundary_count, charge_count, threads;
    REAL *db, *sf1, *sf2, *qval;
    int begun;
    int on_pool;           /* 1 on the GPU (the host pool), 0 on the CPU (the OpenMP team) */
    double started, ended; /* wall clock of the scaling itself */
} SFX(scale_job);

static void *SFX(scale_main)(void *arg) {
    SFX(scale_job) *j = (SFX(scale_job) *)arg;
    const struct timespec poll = {0, 100 * 1000}; /* 0.1 ms */
    while (!__atomic_load_n(&j->begun, __ATOMIC_ACQUIRE))
        nanosleep(&poll, NULL);
    j->started = dg_wall_seconds();
    const dg_host_loop where = {j->threads, j->on_pool};
    SFX(scale_by_omega)
    (j->omega, j->igrid, j->db, j->boundary_count, j->sf1, j->sf2, j->qval, j->charge_count, where);
    j->ended = dg_wall_seconds();
    return NULL;
}

/* The scaling job of one itit/nitit call (DelPhi's arrays and counts, the control's threads). */
static SFX(scale_job)
    SFX(scale_job_of)(REAL omega, const dg_delphi_control *control, REAL *db, int boundary_count,
                      REAL *sf1, REAL *sf2, REAL *qval, int charge_count) {
    SFX(scale_job)
    job = {.omega = omega,
           .igrid = control->igrid,
           .boundary_count = boundary_count,
           .charge_count = charge_count,
           .threads = control->num_threads,
           .db = db,
           .sf1 = sf1,
           .sf2 = sf2,
           .qval = qval};
    return job;
}

/* After a successful solve: the scaling here unless it ran beside the loop (scaled), timed. */
static void SFX(scale_unless_done)(SFX(scale_job) * job, int scaled, dg_delphi_timing *t) {
    if (scaled) return;
    job->begun = 1;
    SFX(scale_main)(job);
    t->scaling = job->ended - job->started;
}

/* DelPhi's arrays as a sparse medium (salt model chosen by the caller). */
static SFX(dg_sparse_medium)
    SFX(delphi_medium)(int igrid, const int *idpos, const REAL *db, const int *iqpos,
                       const REAL *qval, int icount2a, int icount2b, int icount1a, int icount1b) {
    SFX(dg_sparse_medium) m;
    memset(&m, 0, sizeof m);
    m.nx = m.ny = m.nz = igrid;
    m.index_kind = DG_INDEX_DELPHI_HALF;
    m.boundary_count_odd = icount2a;
    m.boundary_count = icount2b;
    m.boundary_index = idpos;
    m.boundary_weights = db;
    m.charge_count_odd = icount1a;
    m.charge_count = icount1b;
    m.charge_index = iqpos;
    m.charge_source = qval;
    m.salt_model = DG_SALT_NONE;
    return m;
}

/* Take a solver (the kept one when it fits), set the medium, solve phimap in place; messages go
   to the report, the parts' times to t.  On the GPU the job's scaling runs on a helper thread
   during the solve (*scaled = 1 then; the wait for it counts as "finish"); otherwise the caller
   scales after a successful call. */
static int SFX(delphi_solve)(const dg_delphi_control *c, int nonlinear, const char *entry,
                             const SFX(dg_sparse_medium) * m, REAL spec, REAL omega, int icon1,
                             REAL qfact, REAL *phimap, dg_delphi_report *r, dg_delphi_timing *t,
                             SFX(scale_job) * job, int *scaled) {
    *scaled = 0;
    double start = dg_wall_seconds();
    dg_options o;
    delphi_options(c, nonlinear, DG_PRECISION_OF_REAL, (double)spec, (double)omega, icon1,
                   (double)qfact, &o);
    dg_delphi_stop_watch(); /* the call decides the backend now */
    choose_backend(c, &o, r);
    dg_solver s = NULL;
    int kept_taken = 0;
    int st = take_solver(&o, &s, &kept_taken, &t->reused);
    if (!s) {
        give_back_solver(s, kept_taken, st);
        return compat_fail(r, entry, st, "could not create a solver: %s", dg_status_string(st));
    }
    s->stock_behaviour = 1; /* stock's iteration counts, float solves to their limit included */
    keep_notice(s, r);
    double now = dg_wall_seconds();
    t->handle = now - start, start = now;
    dg_solver_timing parts;
    if (st == DG_OK) {
        st = SFX(dg_set_sparse_medium)(s, m);
        now = dg_wall_seconds();
        dg_solver_get_timing(s, &parts);
        t->upload = st == DG_OK ? parts.upload : 0.0;
        t->prepare = now - start - t->upload, start = now;
    }
    if (st == DG_OK) {
        pthread_t helper;
        job->begun = 0;
        job->on_pool = s->options.backend == DG_BACKEND_CUDA;
        s->loop_begun = &job->begun;
        const int overlap = s->options.backend == DG_BACKEND_CUDA &&
                            pthread_create(&helper, NULL, SFX(scale_main), job) == 0;
        const double solving = dg_wall_seconds();
        st = SFX(dg_solve)(s, phimap, &r->result);
        __atomic_store_n(&job->begun, 1, __ATOMIC_RELEASE); /* also when dg_solve failed early */
        s->loop_begun = NULL;
        if (overlap) {
            const double waited = dg_wall_seconds();
            pthread_join(helper, NULL);
            t->finish += dg_wall_seconds() - waited;
            *scaled = 1;
        }
        dg_solver_get_timing(s, &parts);
        t->check_phi = parts.check_phi, t->load = parts.load_phi, t->spectral = parts.spectral;
        t->loop = parts.iterate, t->store = parts.store_phi, t->store_wait = parts.store_wait;
        if (overlap) {
            const double loop_end =
                solving + parts.check_phi + parts.load_phi + parts.spectral + parts.iterate;
            t->scaling = job->ended - job->started;
            t->scaling_late = job->ended > loop_end ? job->ended - loop_end : 0.0;
        }
    }
    keep_notice(s, r);
    if (st != DG_OK) compat_fail(r, entry, st, "%s", dg_last_error(s));
    start = dg_wall_seconds();
    give_back_solver(s, kept_taken, st);
    t->release = dg_wall_seconds() - start;
    return st;
}

static int SFX(delphi_itit_impl)(const int *idpos, REAL *db, REAL *sf1, REAL *sf2, const int *iqpos,
                                 REAL *qval, int icount2a, int icount2b, int icount1a, int icount1b,
                                 REAL spec, int nsp, REAL *phimap, REAL *phimap1, REAL *phimap2,
                                 REAL *phimap3, int *ibndx, int *ibndy, int *ibndz, REAL *bndx1,
                                 REAL *bndx2, REAL *bndx3, REAL *bndx4, const REAL *gval,
                                 int idirectalg, const REAL *cgbp, const dg_delphi_control *control,
                                 dg_delphi_report *report) {
    const char *entry = "dg_delphi_itit" SUFFIX_TEXT;
    dg_delphi_timing t;
    memset(&t, 0, sizeof t);
    const double start = dg_wall_seconds();
    record_timing(&t);
    dg_delphi_report local;
    if (!report) report = &local;
    memset(report, 0, sizeof *report);
    int st = check_control(control, entry, report);
    if (st == DG_OK)
        st = check_lists(idpos, db, iqpos, qval, icount2a, icount2b, icount1a, icount1b,
                         (double)spec, nsp, phimap, entry, report);
    if (st != DG_OK) return st;
    const int salt = control->ionic_strength > 0.0;
    if (salt && (!sf1 || !sf2))
        return compat_fail(report, entry, DG_ERR_INVALID_ARGUMENT,
                           "sf1 or sf2 is NULL with salt (rionst = %g)", control->ionic_strength);

    SFX(dg_sparse_medium)
    m = SFX(delphi_medium)(control->igrid, idpos, db, iqpos, qval, icount2a, icount2b, icount1a,
                           icount1b);
    if (salt) {
        m.salt_model = DG_SALT_PER_POINT;
        m.salt_factor_odd = sf1;
        m.salt_factor_even = sf2;
    }
    const REAL omega = SFX(delphi_omega)(spec);
    /* DelPhi checks every min(icon1, nlit) iterations and leaves that in icon1. */
    const int icon1 = control->icon1 < control->nlit ? control->icon1 : control->nlit;
    t.check = dg_wall_seconds() - start;
    SFX(scale_job)
    job = SFX(scale_job_of)(omega, control, db, icount2b, sf1, sf2, qval, icount1b);
    int scaled = 0;
    st = SFX(delphi_solve)(control, 0, entry, &m, spec, omega, icon1, (REAL)0, phimap, report, &t,
                           &job, &scaled);
    if (st != DG_OK) return finish_timing(&t, start), st;

    const double finish = dg_wall_seconds();
    SFX(scale_unless_done)(&job, scaled, &t);
    phimap[0] = SFX(delphi_signature)(phimap[0]);
    t.finish += dg_wall_seconds() - finish;
    finish_timing(&t, start);
    report->nlit = control->nlit;
    report->icon1 = icon1;
    report->relpar = control->relpar;
    report->omega = (double)omega;
    return DG_OK;
}

static int SFX(delphi_nitit_impl)(const int *idpos, REAL *db, REAL *sf1, REAL *sf2,
                                  const int *iqpos, REAL *qval, int icount2a, int icount2b,
                                  int icount1a, int icount1b, REAL spec, int nsp, REAL *phimap,
                                  REAL *phimap1, REAL *phimap2, REAL *phimap3,
                                  const unsigned char *idebmap, int *ibndx, int *ibndy, int *ibndz,
                                  REAL *bndx1, REAL *bndx2, REAL *bndx3, REAL *bndx4, REAL *qmap1,
                                  REAL *qmap2, REAL *debmap1, REAL *debmap2, int idirectalg,
                                  REAL qfact, const dg_delphi_control *control,
                                  dg_delphi_report *report) {
    const char *entry = "dg_delphi_nitit" SUFFIX_TEXT;
    dg_delphi_timing t;
    memset(&t, 0, sizeof t);
    const double start = dg_wall_seconds();
    record_timing(&t);
    dg_delphi_report local;
    if (!report) report = &local;
    memset(report, 0, sizeof *report);
    int st = check_control(control, entry, report);
    if (st == DG_OK) st = check_nonlinear_control(control, (double)qfact, entry, report);
    if (st == DG_OK)
        st = check_lists(idpos, db, iqpos, qval, icount2a, icount2b, icount1a, icount1b,
                         (double)spec, nsp, phimap, entry, report);
    if (st != DG_OK) return st;
    if (!sf1 || !sf2 || !idebmap)
        return compat_fail(report, entry, DG_ERR_INVALID_ARGUMENT,
                           "sf1, sf2 or idebmap is NULL (nonlinear PB needs all three)");

    SFX(dg_sparse_medium)
    m = SFX(delphi_medium)(control->igrid, idpos, db, iqpos, qval, icount2a, icount2b, icount1a,
                           icount1b);
    m.salt_model = DG_SALT_PER_POINT;
    m.salt_factor_odd = sf1;
    m.salt_factor_even = sf2;
    m.solvent_flag = idebmap;
    /* Lagged source coefficient debfct/(2 I eps'_out), debfct = eps'_out/(deblen scale)^2. */
    const REAL debye_scaled = (REAL)control->deblen * (REAL)control->scale;
    const REAL debfct = (REAL)control->epsout / (debye_scaled * debye_scaled);
    const REAL coefficient =
        debfct / ((REAL)2 * (REAL)control->ionic_strength * (REAL)control->epsout);
    m.nonlinear_coefficient = (double)coefficient;
    for (int i = 0; i < 4; ++i)
        m.chi[i] = (double)(REAL)control->chi[i];

    const REAL omega = SFX(delphi_omega)(spec);
    /* nitit, too, clips icon1 to nlit for its linear phase. */
    const int icon1 = control->icon1 < control->nlit ? control->icon1 : control->nlit;
    t.check = dg_wall_seconds() - start;
    SFX(scale_job)
    job = SFX(scale_job_of)(omega, control, db, icount2b, sf1, sf2, qval, icount1b);
    int scaled = 0;
    st = SFX(delphi_solve)(control, 1, entry, &m, spec, omega, icon1, qfact, phimap, report, &t,
                           &job, &scaled);
    if (st != DG_OK) return finish_timing(&t, start), st;

    const double finish = dg_wall_seconds();
    SFX(scale_unless_done)(&job, scaled, &t);
    t.finish += dg_wall_seconds() - finish;
    finish_timing(&t, start);
    report->nlit = DELPHI_NONLINEAR_BLOCK;
    report->icon1 = DELPHI_NONLINEAR_BLOCK;
    report->relpar = report->result.final_relpar;
    report->omega = (double)omega;
    return DG_OK;
}

/* The warm-up's problem (dg_delphi_begin_warm_up): two iterations of a 9^3 grid with one
   boundary point, one charge and salt, solved by s (options set by the caller). */
static int SFX(warm_up_solve)(dg_solver s) {
    enum { N = 9 };
    const long centre = (N * N * N - 1) / 2; /* 0-based full index of the centre, even */
    static REAL phi[N * N * N], sf[2][(N * N * N + 1) / 2];
    const int boundary = (int)(centre / 2 + 1), charge = (int)(centre / 2 + 1 + N * N);
    const REAL db[6] = {(REAL)0.01, (REAL)0.01, (REAL)0.01, (REAL)0.01, (REAL)0.01, (REAL)0.01};
    const REAL q = (REAL)1;
    for (long h = 0; h < (N * N * N + 1) / 2; ++h)
        sf[0][h] = sf[1][h] = h % 2 ? (REAL)1 / (REAL)6 : (REAL)1 / (REAL)6.1;
    SFX(dg_sparse_medium)
    m = {.nx = N,
         .ny = N,
         .nz = N,
         .index_kind = DG_INDEX_DELPHI_HALF,
         .boundary_count_odd = 1,
         .boundary_count = 1,
         .boundary_index = &boundary,
         .boundary_weights = db,
         .charge_count_odd = 1,
         .charge_count = 1,
         .charge_index = &charge,
         .charge_source = &q,
         .salt_model = DG_SALT_PER_POINT,
         .salt_factor_odd = sf[0],
         .salt_factor_even = sf[1]};
    int st = SFX(dg_set_sparse_medium)(s, &m);
    if (st == DG_OK) st = SFX(dg_solve)(s, phi, NULL);
    return st;
}
