/* --backend auto for a single run (backend_choice.h): the CPU for a grid below the per-thread
 * limit, said in the log and in the JSON's solver.backend_reason; AUTO's plain rule for larger
 * grids and for batches; the reason for a backend given on the command line; the note for MPI
 * ranks bound to fewer cores than their share; the default precision for a given backend. */
#include <omp.h>
#include <string.h>

#include "app_mpi.h"
#include "app_test.h"
#include "backend_choice.h"
#include "batch.h"
#include "io_settings.h"
#include "precision_default.h"

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    if (fp) fputs(text, fp), fclose(fp);
}

static char log_text[65536], json_text[65536];

static void read_text(const char *path, char *text, size_t size) {
    FILE *fp = fopen(path, "r");
    const size_t n = fp ? fread(text, 1, size - 1, fp) : 0;
    if (fp) fclose(fp);
    text[n] = '\0';
}

/* One run of the program on the Born ion, the log in log_text and the summary in json_text. */
static int run_born(const char *gsize, const char *threads, const char *backend) {
    char *argv[32];
    int argc = 0;
    char *fixed[] = {"delphi-gpu", "--pqr",       "ion.pqr",   "--scale",      "4",
                     "--indi",     "1",           "--exdi",    "80",           "--maxc",
                     "1e-4",       "--energy",    "g",         "--json",       "run.json",
                     "--gsize",    (char *)gsize, "--threads", (char *)threads};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
        argv[argc++] = fixed[i];
    if (backend) argv[argc++] = "--backend", argv[argc++] = (char *)backend;
    argv[argc] = NULL;
    remove("run.json");
    FILE *out = tmpfile();
    pipeline *p = calloc(1, sizeof *p);
    const int rc = pipeline_execute(p, argc, argv, out);
    pipeline_free(p);
    free(p);
    rewind(out);
    log_text[fread(log_text, 1, sizeof log_text - 1, out)] = '\0';
    fclose(out);
    read_text("run.json", json_text, sizeof json_text);
    return rc;
}

/* The rule itself: the limit per thread, the threads counted, the work of a run. */
static void the_rule(void) {
    CHECK(app_cpu_points_limit(16, 1) == 16 * APP_CPU_POINTS_PER_THREAD);
    CHECK(app_cpu_points_limit(64, 1) == APP_CPU_THREADS_COUNTED * APP_CPU_POINTS_PER_THREAD);
    CHECK(app_cpu_points_limit(0, 1) == APP_CPU_POINTS_PER_THREAD);
    CHECK(app_cpu_points_limit(4, 2) == 2 * APP_CPU_POINTS_PER_THREAD);
    CHECK(app_cpu_points_limit(4, 0) == 4 * APP_CPU_POINTS_PER_THREAD);
    CHECK(app_run_work(0, 0, 0, 0) == 1 && app_run_work(1, 0, 0, 0) == 2 &&
          app_run_work(0, 1, 0, 0) == 2 && app_run_work(1, 1, 0, 0) == 4 &&
          app_run_work(0, 0, 1, 0) == 3 && app_run_work(1, 1, 1, 0) == 12 &&
          app_run_work(0, 0, 0, 1) == 2 && app_run_work(0, 0, 1, 1) == 6);
    char why[512];
    /* 66^3 = 287 496 < 300 000 <= 67^3 = 300 763 on one thread */
    CHECK(app_cpu_sooner(66, 1, 1, why, sizeof why) == 1);
    CHECK(strstr(why, "66^3 grid (287496 points) is below 300000 points") != NULL);
    CHECK(strstr(why, "--backend cuda") != NULL);
    CHECK(app_cpu_sooner(67, 1, 1, why, sizeof why) == 0 && why[0] == '\0');
    CHECK(app_cpu_sooner(99, 16, 1, why, sizeof why) == 1);
    CHECK(app_cpu_sooner(99, 16, 8, why, sizeof why) == 0); /* 600 000 points */
    CHECK(app_cpu_sooner(81, 16, 8, why, sizeof why) == 1); /* 531 441 */
    CHECK(strstr(why, "/ 8 for the run's extra work") != NULL);
    CHECK(app_cpu_sooner(0, 16, 1, why, sizeof why) == 0);
}

/* A small single run: the CPU in a build with CUDA (the GPU not even asked for); in a build
 * without it, AUTO's plain notice that there is no GPU. */
static void small_single_run(void) {
    CHECK(run_born("41", "64", NULL) == EXIT_OK);
    if (dg_backend_built(DG_BACKEND_CUDA)) {
        int counted = omp_get_num_procs();
        if (counted > 64) counted = 64;
        if (counted > APP_CPU_THREADS_COUNTED) counted = APP_CPU_THREADS_COUNTED;
        char threads[64];
        snprintf(threads, sizeof threads, "per thread x %d threads)", counted);
        CHECK(strstr(log_text, "notice: --backend auto: the CPU backend for this single run: its "
                               "41^3 grid (68921 points)") != NULL);
        CHECK(strstr(log_text, threads) != NULL);
        CHECK(strstr(log_text, "no usable GPU") == NULL);
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: the CPU backend") != NULL);
    } else {
        CHECK(strstr(log_text, "notice: no usable GPU") != NULL);
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: no usable GPU") != NULL);
    }
    CHECK(strstr(log_text, "backend, precision   : auto, mixed on the GPU and double on the CPU") !=
          NULL);
    CHECK(strstr(log_text, "backend              : cpu, double precision") != NULL);
    CHECK(strstr(json_text, "\"backend\": \"cpu\"") != NULL);
    CHECK(strstr(json_text, "\"precision\": \"double\"") != NULL);
}

/* A grid at or above the limit: AUTO's plain rule, the GPU when one works. */
static void large_single_run(void) {
    int devices = 0;
    const int gpu = dg_cuda_device_count(&devices) == DG_OK && devices > 0;
    CHECK(run_born("71", "1", NULL) == EXIT_OK); /* 357 911 points on one thread */
    CHECK(strstr(log_text, "for this single run") == NULL);
    if (gpu) {
        CHECK(strstr(log_text, "backend              : cuda, mixed precision") != NULL);
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: a usable GPU (the grid is "
                                "too large for the CPU to be sooner)\"") != NULL);
    } else {
        CHECK(strstr(log_text, "notice: no usable GPU") != NULL);
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: no usable GPU") != NULL);
    }
}

/* A backend given on the command line is kept, whatever the grid. */
static void backend_given(void) {
    CHECK(run_born("41", "4", "cpu") == EXIT_OK);
    CHECK(strstr(log_text, "for this single run") == NULL);
    CHECK(strstr(json_text, "\"backend_reason\": \"--backend cpu\"") != NULL);
    CHECK(strstr(json_text, "\"precision\": \"double\"") != NULL);
}

/* A batch keeps AUTO's plain rule for all its runs (CUDA starts once for all of them). */
static void batch_keeps_auto(void) {
    write_text("b.prm", "in(pqr,file=\"ion.pqr\")\nscale=4\ngsize=41\nindi=1\nexdi=80\n"
                        "maxc=0.0001\nenergy(g)\n");
    char *argv[] = {"delphi-gpu", "b.prm", "b.prm", "--json", "b.json", "--quiet", NULL};
    FILE *out = tmpfile();
    CHECK(batch_execute(6, argv, out) == EXIT_OK);
    rewind(out);
    log_text[fread(log_text, 1, sizeof log_text - 1, out)] = '\0';
    fclose(out);
    CHECK(strstr(log_text, "for this single run") == NULL);
    read_text("b.2.json", json_text, sizeof json_text);
    int devices = 0;
    if (dg_cuda_device_count(&devices) == DG_OK && devices > 0)
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: a usable GPU (a batch "
                                "starts it once for all its runs)\"") != NULL);
    else
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend auto: no usable GPU") != NULL);
}

/* --backend cuda begins CUDA's start-up before the inputs are read: a run whose input is missing
 * still fails at once with its message, and the start-up ends cleanly; a run without a usable GPU
 * fails as before (the handle reports it). */
static void cuda_given(void) {
    pipeline *p = calloc(1, sizeof *p);
    char *missing[] = {"delphi-gpu", "--pqr", "no_such.pqr", "--backend", "cuda", "--quiet", NULL};
    CHECK(pipeline_execute(p, 6, missing, NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    dg_wait_cuda_start(); /* what main() does before the process ends */
    int devices = 0;
    const int gpu = dg_cuda_device_count(&devices) == DG_OK && devices > 0;
    memset(p, 0, sizeof *p);
    char *run[] = {"delphi-gpu", "--pqr", "ion.pqr", "--scale",   "4",         "--gsize", "41",
                   "--maxc",     "1e-4",  "--json",  "cuda.json", "--backend", "cuda",    NULL};
    const int rc = pipeline_execute(p, 13, run, NULL);
    if (gpu) {
        CHECK(rc == EXIT_OK);
        read_text("cuda.json", json_text, sizeof json_text);
        CHECK(strstr(json_text, "\"backend\": \"cuda\"") != NULL);
        CHECK(strstr(json_text, "\"backend_reason\": \"--backend cuda\"") != NULL);
    } else {
        CHECK(rc == EXIT_SOLVER_FAILED);
        CHECK(strstr(p->message, dg_backend_built(DG_BACKEND_CUDA) ? "CUDA" : "not built") != NULL);
        CHECK(!file_exists("cuda.json"));
    }
    pipeline_free(p);
    free(p);
}

/* The note for MPI ranks bound to fewer cores than their share (app_mpi.h). */
static void binding_note(void) {
    char note[320];
    app_mpi_binding_note(1, 64, 2, 0, note, sizeof note);
    CHECK(strstr(note, "may run on 1 of the node's 64 cores") && strstr(note, "on 1 thread;") &&
          strstr(note, "--bind-to none") && strstr(note, "PE=32"));
    app_mpi_binding_note(8, 64, 2, 0, note, sizeof note);
    CHECK(strstr(note, "on 8 threads;") != NULL);
    app_mpi_binding_note(32, 64, 4, 0, note, sizeof note); /* bound to a socket: its share */
    CHECK(note[0] == '\0');
    app_mpi_binding_note(1, 64, 2, 1, note, sizeof note); /* --threads given */
    CHECK(note[0] == '\0');
    app_mpi_binding_note(1, 64, 1, 0, note, sizeof note); /* one rank */
    CHECK(note[0] == '\0');
    app_mpi_binding_note(1, 2, 2, 0, note, sizeof note); /* a share of one core */
    CHECK(note[0] == '\0');
    int usable = 0, online = 0;
    app_mpi_cores(&usable, &online);
    CHECK(usable >= 1 && online >= usable);
}

/* The default precision without --precision (precision_default.h) when the backend is given:
   the GPU's default with periodic axes too; double for Newton's nonlinear runs and on the CPU;
   a given precision kept.  No device is asked when the backend is given. */
static void default_precision(void) {
    run_settings s;
    settings_defaults(&s);
    s.backend = DG_BACKEND_CUDA;
    CHECK(app_default_precision(&s) == APP_GPU_DEFAULT_PRECISION);
    s.periodic = DG_PERIODIC_Z;
    CHECK(app_default_precision(&s) == APP_GPU_DEFAULT_PRECISION);
    CHECK(!app_precision_follows_backend(&s));
    s.nonit = 30, s.nonlinear_method = NONLINEAR_NEWTON;
    CHECK(app_default_precision(&s) == DG_PRECISION_DOUBLE);
    s.nonit = 0;
    s.backend = DG_BACKEND_CPU;
    CHECK(app_default_precision(&s) == DG_PRECISION_DOUBLE);
    s.precision_given = 1, s.precision = DG_PRECISION_FLOAT;
    CHECK(app_default_precision(&s) == DG_PRECISION_FLOAT);
}

int main(void) {
    default_precision();
    write_text("ion.pqr",
               "ATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    the_rule();
    binding_note();
    small_single_run();
    backend_given();
    batch_keeps_auto();
    large_single_run(); /* last: they may start CUDA in this process */
    cuda_given();
    CHECK_DONE();
}
