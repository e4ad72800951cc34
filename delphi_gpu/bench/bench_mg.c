/* SOR vs multigrid time to tolerance on a protein-like medium (spheres of eps 2 in 80 with
 * charges, tests/mg_problem.h).  Usage:
 *   dg_bench_mg [--backend cpu|cuda] [--precision double|float|mixed] [--sizes 33,65,...]
 *               [--maxc 1e-5] [--no-sor] [--no-mg] [--salt] [--nonlinear] [--threads N]
 * --nonlinear (with --salt): nonlinear PB by Newton's method, its steps by the SOR or by
 * multigrid; iterations are then inner sweeps or cycles, with the Newton steps after them.
 * Prints one line per grid and solver: iterations or cycles, seconds (set-up, solve), energy,
 * and the MG energy relative to the SOR's; then the multigrid set-up's parts (phi in, the
 * hierarchy, the answer out) from the solver's timing record. */
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

static int threads = 0, nonlinear = 0;

static bench_run run(dense_problem *d, const double *phi0, int backend, int precision, int method,
                     double maxc) {
    bench_run out = {0};
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.precision = precision, o.solver = method;
    o.num_threads = threads;
    o.max_change_tol = maxc;
    if (nonlinear) o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_method = DG_NONLINEAR_NEWTON;
    dg_solver s = NULL;
    long n = (long)d->nx * d->ny * d->nz;
    double *phi = malloc(n * sizeof *phi);
    int st = dg_create(&s, &o);
    if (st == DG_OK) st = dg_set_dense_medium_d(s, &d->medium);
    if (st == DG_OK) {
        memcpy(phi, phi0, n * sizeof *phi);
        st = dg_solve_d(s, phi, &out.r);
    }
    if (st != DG_OK) {
        printf("  %s: error %s: %s\n", method == DG_SOLVER_SOR ? "SOR" : "MG ",
               dg_status_string(st), dg_last_error(s));
    } else {
        out.ok = 1;
        out.energy = mg_problem_energy(d, phi);
        dg_solver_get_timing(s, &out.t);
    }
    dg_destroy(s);
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
    int salt = 0;
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
        else {
            fprintf(stderr,
                    "usage: %s [--backend cpu|cuda] [--precision double|float|mixed] "
                    "[--sizes 33,65] [--maxc 1e-5] [--no-sor] [--no-mg] [--salt] "
                    "[--nonlinear] [--threads N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (nonlinear && !salt) {
        fprintf(stderr, "--nonlinear needs --salt\n");
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
        if (do_sor) sor = run(&d, phi, backend, precision, DG_SOLVER_SOR, maxc);
        if (sor.ok)
            printf("%d SOR %d%s %.3f %.3f %.3f %s %.10g -\n", n, sor.r.iterations, steps(&sor.r),
                   sor.r.setup_seconds, sor.r.solve_seconds, sor.r.total_seconds,
                   dg_outcome_string(sor.r.outcome), sor.energy);
        fflush(stdout);
        if (do_mg) mg = run(&d, phi, backend, precision, DG_SOLVER_MULTIGRID, maxc);
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
                "#   %d MG set-up parts: phi check %.3f, phi in %.3f, hierarchy %.3f, answer out "
                "%.3f; cycles %.3f (%.2f ms per cycle)\n",
                n, mg.t.check_phi, mg.t.mg_phi_in, mg.t.mg_build, mg.t.mg_phi_out, mg.t.mg_cycles,
                mg.r.iterations ? 1e3 * mg.t.mg_cycles / mg.r.iterations : 0.0);
        }
        fflush(stdout);
        free(phi);
        dense_problem_free(&d);
    }
    return 0;
}
