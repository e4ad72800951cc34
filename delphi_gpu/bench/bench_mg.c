/* SOR vs multigrid time to tolerance on a protein-like medium (spheres of eps 2 in 80 with
 * charges, tests/mg_problem.h).  Usage:
 *   dg_bench_mg [--backend cpu|cuda] [--precision double|float|mixed] [--sizes 33,65,...]
 *               [--maxc 1e-5] [--no-sor] [--no-mg] [--salt] [--nonlinear] [--threads N]
 *               [--error] [--double-phi] [--history K]
 * --nonlinear (with --salt): nonlinear PB by Newton's method, its steps by the SOR or by
 * multigrid; iterations are then inner sweeps or cycles, with the Newton steps after them.
 * Prints one line per grid and solver: iterations or cycles, seconds (set-up, solve), energy,
 * and the MG energy relative to the SOR's; then the multigrid set-up's parts (phi in, the
 * hierarchy, the answer out) from the solver's timing record.
 * Float precision hands the solvers a float phi (as the program does); --double-phi a double one.
 * --error: also a reference solution (multigrid in double to maxc 1e-11 on the same backend)
 * and each answer's max |phi - phi_ref| over the grid and relative energy error: the accuracy
 * each solver reached at the given maxc (linear equations only).
 * --history K: also multigrid solves of exactly 1, 2, ..., K cycles (no criterion) and the max
 * and rms change of phi in the last cycle of each: the changes' history, one fresh solve per
 * count (linear equations only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/solver_internal.h"
#include "../tests/mg_problem.h"

typedef struct bench_run {
    dg_result r;
    dg_solver_timing t;
    double energy;
    int ok;
} bench_run;

static int threads = 0, nonlinear = 0, double_phi = 0, fixed_cycles = 0;

/* One solve from phi0; the answer is handed back in *keep when keep is not NULL (the caller
   frees it). */
static bench_run run(dense_problem *d, const double *phi0, int backend, int precision, int method,
                     double maxc, double **keep) {
    bench_run out = {0};
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.precision = precision, o.solver = method;
    o.num_threads = threads;
    o.max_change_tol = maxc;
    if (fixed_cycles > 0) /* exactly that many cycles: no criterion */
        o.max_change_tol = o.rms_change_tol = o.norm_change_tol = 0.0, o.iterations = fixed_cycles;
    if (nonlinear) o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_method = DG_NONLINEAR_NEWTON;
    dg_solver s = NULL;
    long n = (long)d->nx * d->ny * d->nz;
    double *phi = malloc(n * sizeof *phi);
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = dg_set_dense_medium_d(s, &d->medium);
    /* float precision solves a float phi, as the program and the calculation layer hand it
       (--double-phi: a double one, converted on the device) */
    float *phi_f =
        precision == DG_PRECISION_FLOAT && !double_phi ? malloc(n * sizeof *phi_f) : NULL;
    if (st == DG_OK && phi_f) {
        for (long w = 0; w < n; ++w)
            phi_f[w] = (float)phi0[w];
        st = dg_solve_f(s, phi_f, &out.r);
        for (long w = 0; w < n; ++w)
            phi[w] = phi_f[w];
    } else if (st == DG_OK) {
        memcpy(phi, phi0, n * sizeof *phi);
        st = dg_solve_d(s, phi, &out.r);
    }
    free(phi_f);
    if (st != DG_OK) {
        printf("  %s: error %s: %s\n", method == DG_SOLVER_SOR ? "SOR" : "MG ",
               dg_status_string(st), dg_last_error(s));
    } else {
        out.ok = 1;
        out.energy = mg_problem_energy(d, phi);
        dg_solver_get_timing(s, &out.t);
    }
    dg_destroy(s);
    if (keep && out.ok)
        *keep = phi;
    else
        free(phi);
    return out;
}

/* "/<Newton steps>" for a nonlinear run, else nothing. */
static const char *steps(const dg_result *r) {
    static char text[32];
    text[0] = 0;
    if (nonlinear) snprintf(text, sizeof text, "/%d", r->nonlinear_blocks);
    return text;
}

int main(int argc, char **argv) {
    int backend = DG_BACKEND_CPU, precision = DG_PRECISION_DOUBLE, do_sor = 1, do_mg = 1;
    int salt = 0, error = 0, history = 0;
    double maxc = 1e-5;
    char sizes[256] = "33,65";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = !strcmp(argv[++i], "cuda") ? DG_BACKEND_CUDA : DG_BACKEND_CPU;
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc)
            ++i, precision = !strcmp(argv[i], "float")   ? DG_PRECISION_FLOAT
                             : !strcmp(argv[i], "mixed") ? DG_PRECISION_MIXED
                                                         : DG_PRECISION_DOUBLE;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            snprintf(sizes, sizeof sizes, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--maxc") && i + 1 < argc)
            maxc = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-sor"))
            do_sor = 0;
        else if (!strcmp(argv[i], "--no-mg"))
            do_mg = 0;
        else if (!strcmp(argv[i], "--salt"))
            salt = 1;
        else if (!strcmp(argv[i], "--nonlinear"))
            nonlinear = 1;
        else if (!strcmp(argv[i], "--error"))
            error = 1;
        else if (!strcmp(argv[i], "--double-phi"))
            double_phi = 1;
        else if (!strcmp(argv[i], "--history") && i + 1 < argc)
            history = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: %s [--backend cpu|cuda] [--precision double|float|mixed] "
                    "[--sizes 33,65] [--maxc 1e-5] [--no-sor] [--no-mg] [--salt] "
                    "[--nonlinear] [--threads N] [--error] [--double-phi] [--history K]\n",
                    argv[0]);
            return 2;
        }
    }
    if (nonlinear && !salt) {
        fprintf(stderr, "--nonlinear needs --salt\n");
        return 2;
    }
    if (error && nonlinear) {
        fprintf(stderr, "--error measures linear solves only\n");
        return 2;
    }
    if (history && nonlinear) {
        fprintf(stderr, "--history measures linear solves only\n");
        return 2;
    }
    printf("# backend %s, precision %s, maxc %g, salt %d%s\n",
           backend == DG_BACKEND_CUDA ? "cuda" : "cpu",
           precision == DG_PRECISION_FLOAT   ? "float"
           : precision == DG_PRECISION_MIXED ? "mixed"
                                             : "double",
           maxc, salt, nonlinear ? ", nonlinear PB by Newton's method" : "");
    printf("# n solver iterations setup_s solve_s total_s outcome energy rel_to_sor\n");
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int n = atoi(tok);
        if (n < 9 || n % 2 == 0) {
            fprintf(stderr, "size %d: must be odd and >= 9\n", n);
            return 2;
        }
        dense_problem d;
        double *phi = malloc((size_t)n * n * n * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, salt, &faces);
        bench_run sor = {0}, mg = {0};
        double *ref = NULL, *sor_phi = NULL, *mg_phi = NULL, ref_energy = 0.0;
        if (error) {
            bench_run rr =
                run(&d, phi, backend, DG_PRECISION_DOUBLE, DG_SOLVER_MULTIGRID, 1e-11, &ref);
            if (!rr.ok) return 1;
            ref_energy = rr.energy;
            printf("# %d reference: multigrid, double, maxc 1e-11: %d cycles, %s, energy %.12g\n",
                   n, rr.r.iterations, dg_outcome_string(rr.r.outcome), ref_energy);
        }
        if (do_sor)
            sor = run(&d, phi, backend, precision, DG_SOLVER_SOR, maxc, error ? &sor_phi : NULL);
        if (sor.ok)
            printf("%d SOR %d%s %.3f %.3f %.3f %s %.10g -\n", n, sor.r.iterations, steps(&sor.r),
                   sor.r.setup_seconds, sor.r.solve_seconds, sor.r.total_seconds,
                   dg_outcome_string(sor.r.outcome), sor.energy);
        fflush(stdout);
        if (do_mg)
            mg =
                run(&d, phi, backend, precision, DG_SOLVER_MULTIGRID, maxc, error ? &mg_phi : NULL);
        if (mg.ok) {
            printf("%d MG %d%s %.3f %.3f %.3f %s %.10g ", n, mg.r.iterations, steps(&mg.r),
                   mg.r.setup_seconds, mg.r.solve_seconds, mg.r.total_seconds,
                   dg_outcome_string(mg.r.outcome), mg.energy);
            if (sor.ok)
                printf("%.2e (speed-up %.2fx)\n", (mg.energy - sor.energy) / sor.energy,
                       sor.r.total_seconds / mg.r.total_seconds);
            else
                printf("-\n");
            printf(
                "#   %d MG set-up parts: phi check %.3f, phi in %.3f, hierarchy %.3f (waiting for "
                "the phi check %.4f, freeing %.4f), answer out %.3f; cycles %.3f (graph %.4f; "
                "%.2f ms per cycle)\n",
                n, mg.t.check_phi, mg.t.mg_phi_in, mg.t.mg_build, mg.t.mg_check_wait,
                mg.t.mg_release, mg.t.mg_phi_out, mg.t.mg_cycles, mg.t.mg_graph,
                mg.r.iterations ? 1e3 * mg.t.mg_cycles / mg.r.iterations : 0.0);
        }
        for (int c = 1; c <= history; ++c) { /* the change of cycle c */
            fixed_cycles = c;
            bench_run h = run(&d, phi, backend, precision, DG_SOLVER_MULTIGRID, maxc, NULL);
            fixed_cycles = 0;
            if (!h.ok) return 1;
            printf("#   %d MG cycle %d: max change %.3e, rms %.3e (%s)\n", n, c, h.r.max_change,
                   h.r.rms_change, dg_outcome_string(h.r.outcome));
            fflush(stdout);
        }
        if (error) {
            const long count = (long)n * n * n;
            const double *answers[2] = {sor_phi, mg_phi};
            const double energies[2] = {sor.energy, mg.energy};
            const double final_change[2] = {sor.r.max_change, mg.r.max_change};
            double scale = 0.0;
            for (long i = 0; i < count; ++i)
                scale = fabs(ref[i]) > scale ? fabs(ref[i]) : scale;
            for (int a = 0; a < 2; ++a) {
                if (!answers[a]) continue;
                double worst = 0.0;
                for (long i = 0; i < count; ++i) {
                    const double e = fabs(answers[a][i] - ref[i]);
                    worst = e > worst ? e : worst;
                }
                printf(
                    "#   %d %s error: max |phi - phi_ref| %.3e (max |phi_ref| %.4g), energy %.2e "
                    "relative; final %s %.3e\n",
                    n, a ? "MG " : "SOR", worst, scale, (energies[a] - ref_energy) / ref_energy,
                    a ? "cycle's max change" : "max change", final_change[a]);
            }
            free(ref), free(sor_phi), free(mg_phi);
        }
        fflush(stdout);
        free(phi);
        dense_problem_free(&d);
    }
    return 0;
}
