/* The multigrid path of dg_run_solver: checks what it supports, solves a working-precision copy
 * of the caller's phi (CPU: on the host; CUDA: on the device, hierarchy built there) and writes
 * the answer's interior back into the caller's phi.  The SOR backend's half grids are not
 * involved (dg_solve neither loads nor stores them for multigrid). */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

void dg_mg_make_control(const dg_options *o, int is_double, dg_mg_control *c) {
    /* DelPhi's tolerances on the change of a cycle, the true residual within the same (mg.h) */
    c->change_tol[0] = o->max_change_tol;
    c->change_tol[1] = o->rms_change_tol;
    c->change_tol[2] = o->norm_change_tol;
    const int criteria = c->change_tol[0] > 0 || c->change_tol[1] > 0 || c->change_tol[2] > 0;
    c->fixed = !criteria && o->iterations > 0;
    if (!criteria && !c->fixed) c->change_tol[0] = DG_MG_DEFAULT_MAX_CHANGE;
    for (int i = 0; i < 3; ++i)
        c->residual_tol[i] = c->change_tol[i];
    c->cap =
        c->fixed ? o->iterations : (o->max_iterations > 0 ? o->max_iterations : DG_MG_MAX_CYCLES);
    c->stall = DG_MG_STALL_CYCLES;
    c->floor = 0.0;
    c->change_floor = is_double ? 0.0 : DG_MG_FLOAT_FLOOR * FLT_EPSILON;
    c->on_cycle = NULL, c->on_cycle_user = NULL;
}

/* max, rms and norm of a vector's measures. */
static void three(dg_mg_measures m, double interior, double out[3]) {
    out[0] = m.max_abs, out[1] = sqrt(m.sum_sq / interior), out[2] = sqrt(m.sum_sq);
}

int dg_mg_met(const dg_mg_control *c, dg_mg_measures residual, dg_mg_measures change,
              double earlier, double phi_max, double interior) {
    double r[3], d[3];
    three(residual, interior, r);
    three(change, interior, d);
    for (int i = 0; i < 3; ++i) {
        const double ct = c->change_tol[i], rt = c->residual_tol[i];
        if (!(ct > 0) && !(rt > 0)) continue;
        if ((!(ct > 0) || d[i] <= ct) && (!(rt > 0) || r[i] <= rt)) return DG_MG_MET;
    }
    if (c->floor > 0 && residual.max_abs <= c->floor * phi_max) return DG_MG_MET;
    const double rounding = FLT_EPSILON * phi_max; /* one rounding of the largest potential */
    if (c->change_floor > 0 && c->change_tol[0] > 0 && c->change_tol[0] < rounding &&
        change.max_abs <= rounding && residual.max_abs <= rounding)
        return DG_MG_AT_RESOLUTION;
    if (c->change_floor > 0 && change.max_abs <= c->change_floor * phi_max &&
        change.max_abs > DG_MG_FLOAT_STALL * earlier)
        return DG_MG_RESOLUTION;
    return DG_MG_GOING;
}

int dg_mg_vote(int verdict, int *votes) {
    *votes = verdict == DG_MG_AT_RESOLUTION ? DG_MG_FLOAT_VOTES
             : verdict == DG_MG_RESOLUTION  ? *votes + 1
                                            : 0;
    if (verdict == DG_MG_AT_RESOLUTION) return DG_MG_RESOLUTION;
    if (verdict == DG_MG_RESOLUTION && *votes < DG_MG_FLOAT_VOTES) return DG_MG_GOING;
    return verdict;
}

dg_mg_measures dg_mg_no_change(dg_mg_measures residual) {
    const dg_mg_measures none = {0.0, 0.0}, unbounded = {HUGE_VAL, HUGE_VAL};
    return residual.max_abs == 0.0 ? none : unbounded;
}

/* The caller's progress callback after every cycle (dg_mg_control.on_cycle): the measures of
   the cycle's change of phi (dg_result's convention, as the SOR's change of an iteration) and
   an estimate of the cycles to the criterion from the mean fall per cycle over the later half
   of the cycles so far (the first cycles fall faster than the rest). */
#define RELAY_KEPT 64 /* cycles whose measures are kept */
typedef struct progress_relay {
    dg_solver s;
    const dg_mg_control *ctl;
    double start, interior;
    double kept[RELAY_KEPT][3]; /* max, rms, norm after cycle c at kept[c % RELAY_KEPT] */
} progress_relay;

static int estimate_cycles(const progress_relay *pr, int cycles) {
    const dg_mg_control *c = pr->ctl;
    if (c->fixed) return c->cap;
    const double *now = pr->kept[cycles % RELAY_KEPT];
    int from = cycles / 2;
    if (from < 1) from = 1;
    if (cycles - from >= RELAY_KEPT) from = cycles - RELAY_KEPT + 1;
    const double *then = pr->kept[from % RELAY_KEPT];
    int best = 0;
    for (int i = 0; i < 3; ++i) {
        const double tol = c->change_tol[i];
        if (!(tol > 0)) continue;
        int total = 0;
        if (now[i] <= tol)
            total = cycles;
        else if (cycles >= 3 && now[i] < then[i]) {
            const double fall = log(now[i] / then[i]) / (cycles - from); /* per cycle, < 0 */
            const double more = ceil(log(tol / now[i]) / fall);
            if (more < c->cap) total = cycles + (int)more;
        }
        if (total > 0 && (best == 0 || total < best)) best = total;
    }
    return best < c->cap ? best : c->cap;
}

static int relay_cycle(void *user, int cycles, dg_mg_measures change) {
    progress_relay *pr = user;
    double *now = pr->kept[cycles % RELAY_KEPT];
    three(change, pr->interior, now);
    const dg_options *o = &pr->s->options;
    dg_progress p = {cycles,
                     DG_PHASE_LINEAR,
                     0,
                     now[0],
                     now[1],
                     now[2],
                     0.0,
                     estimate_cycles(pr, cycles),
                     dg_wall_seconds() - pr->start,
                     DG_SOLVER_MULTIGRID};
    return o->progress(&p, o->progress_user_data);
}

/* The caller's phi <-> a working-precision grid: in = all points, out = interior only (the
   faces stay the caller's own values, as the SOR's store leaves them) and, along periodic axes,
   the face points that hold their images (as the SOR's store writes them). */
static void copy_grid(const dg_prepared *p, const void *src, int src_double, void *dst,
                      int dst_double, int interior_only, int threads) {
    const long nx = p->nx, ny = p->ny, nz = p->nz;
#pragma omp parallel for schedule(static) num_threads(threads) if (nz > 16)
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y) {
            const int inner = z > 0 && z < nz - 1 && y > 0 && y < ny - 1;
            if (interior_only && !inner) continue;
            const long first = interior_only ? 1 : 0, last = interior_only ? nx - 1 : nx;
            const size_t row = (size_t)nx * (y + ny * z);
            for (long x = first; x < last; ++x) {
                const size_t w = row + x;
                const double v =
                    src_double ? ((const double *)src)[w] : (double)((const float *)src)[w];
                if (dst_double)
                    ((double *)dst)[w] = v;
                else
                    ((float *)dst)[w] = (float)v;
            }
        }
    /* the source's faces hold its images, so the copied images give the same values */
    if (interior_only)
        dg_prepared_wrap(p, dst, dst_double ? sizeof(double) : sizeof(float), threads);
}

int dg_mg_singular_periodic(const dg_prepared *p) {
    if ((p->periodic & 7) != 7) return 0;
    if (!p->has_salt) return 1;
    for (int c = 0; c < 2; ++c)
        for (size_t h = 0; h < p->half_count[c]; ++h)
            if (p->flag[c][h]) return 0;
    return 1;
}

int dg_mg_run(dg_solver s, dg_result *r) {
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    if (o->equation == DG_EQUATION_NONLINEAR_PB)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option solver: MULTIGRID solves linear PB, Poisson, and nonlinear PB by "
                       "Newton's method (nonlinear_method NEWTON); DelPhi's nonlinear scheme "
                       "runs with solver SOR");
    if (!s->mg_phi) return dg_fail(s, DG_ERR_INTERNAL, "multigrid: no phi handed over by dg_solve");
    const int on_cuda = s->backend != &dg_cpu_backend_ops;
    if (dg_mg_singular_periodic(p))
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option periodic: with x, y and z periodic and no salt the equations "
                       "have no unique solution (any constant can be added), which multigrid's "
                       "coarsest level cannot invert; add salt, leave an axis non-periodic, or "
                       "use solver SOR");
    const double start = dg_wall_seconds();
    /* MIXED: double accuracy (no float resolution).  On the CPU it runs the double loop; on CUDA
       x is double and the CG vectors float, with true residuals in double (mg.h). */
    const int is_double = o->precision != DG_PRECISION_FLOAT;
    const int threads = o->num_threads > 0 ? o->num_threads : omp_get_max_threads();
    void *phi = s->mg_phi;
    const int phi_is_double = s->mg_phi_is_double;
    dg_mg_params params;
    dg_mg_default_params(&params);
    dg_mg_hierarchy h;
    char message[512];
    r->equation = DG_EQUATION_LINEAR;
    r->final_relpar = 1.0;
    dg_mg_outcome out = {0};
    dg_error err = {0};
    int st;
    double solve_start = 0.0, solve_end = 0.0;
    dg_mg_control ctl;
    dg_mg_make_control(o, is_double, &ctl);
    progress_relay relay = {s, &ctl, start, (double)p->interior_count, {{0.0}}};
    if (o->progress) ctl.on_cycle = relay_cycle, ctl.on_cycle_user = &relay;
    if (on_cuda) {
        /* phi goes to the device and the answer comes back once, straight from and to the
           caller's array; the hierarchy is built there */
        st = dg_mg_plan(&h, p, &params, o->num_threads, message, sizeof message);
        if (st != DG_OK) return dg_fail(s, st, "%s", message);
        /* dg_solve's phi check (which may still be running) says whether the interior is all
           +0.0 (then only the faces go up) or holds a non-finite value (then nothing is
           written and dg_solve names it); the solve may start before it ends (mg.h) */
        /* the CUDA backend's state: the answer borrows its page-locked slabs */
        void *cuda_state = s->backend == dg_cuda_backend() ? s->backend_state : NULL;
        st = dg_cuda_mg_solve(o->device, cuda_state, &h, o->precision, phi, phi_is_double,
                              &s->mg_check, threads, &ctl, &out, &err);
        dg_mg_free(&h);
        if (st != DG_OK) return dg_fail(s, st, "multigrid on CUDA: %s", err.message);
        s->timing.mg_phi_in = out.phi_in_seconds;
        s->timing.mg_build = (dg_wall_seconds() - start) - out.phi_in_seconds - out.cycle_seconds -
                             out.phi_out_seconds;
        s->timing.mg_phi_out = out.phi_out_seconds;
        s->timing.mg_check_wait = out.check_wait_seconds;
        s->timing.mg_release = out.release_seconds;
        s->timing.mg_graph = out.graph_seconds;
        r->solve_seconds = out.cycle_seconds;
    } else {
        void *work = malloc(p->point_count * (is_double ? sizeof(double) : sizeof(float)));
        if (!work)
            return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "multigrid: out of host memory (phi copy)");
        copy_grid(p, phi, phi_is_double, work, is_double, 0, threads);
        const double copied = dg_wall_seconds();
        st = dg_mg_build(&h, p, &params, o->num_threads, message, sizeof message);
        if (st != DG_OK) {
            free(work);
            return dg_fail(s, st, "%s", message);
        }
        solve_start = dg_wall_seconds();
        st = is_double ? dg_mg_solve_d(&h, work, &ctl, &out, &err)
                       : dg_mg_solve_f(&h, work, &ctl, &out, &err);
        dg_mg_free(&h);
        if (st != DG_OK) st = dg_fail(s, st, "%s", err.message);
        solve_end = dg_wall_seconds();
        if (st == DG_OK && out.outcome != DG_OUTCOME_DIVERGED)
            copy_grid(p, work, is_double, phi, phi_is_double, 1, threads);
        free(work);
        if (st != DG_OK) return st;
        s->timing.mg_phi_in = copied - start;
        s->timing.mg_build = solve_start - copied;
        s->timing.mg_phi_out = dg_wall_seconds() - solve_end;
        r->solve_seconds = solve_end - solve_start;
    }
    r->outcome = out.outcome;
    r->iterations = r->linear_iterations = r->checks = out.cycles;
    /* DelPhi's convention: the change of the last iteration (here cycle) */
    r->max_change = out.change_max, r->rms_change = out.change_rms,
    r->norm_change = out.change_norm;
    /* set-up: phi in, the hierarchy, the answer out; solve: the cycles */
    s->timing.mg_cycles = r->solve_seconds;
    s->timing.mg_setup = s->timing.mg_phi_in + s->timing.mg_build + s->timing.mg_phi_out;
    s->timing.iterate = r->solve_seconds;
    r->setup_seconds += s->timing.mg_setup;
    return DG_OK;
}
