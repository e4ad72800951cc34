/* The program as an adversary tries it: outputs never overwrite inputs or
 * each other however they are named; output paths are checked before any work; a failed run
 * leaves nothing; Ctrl-C, SIGTERM or a crash leave no temporary files; limits give clear
 * errors; reader warnings reach stderr; no atom is dropped in silence; "converged" only when a
 * criterion was met; the backend notice comes once, before the solve. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "app_test.h"
#include "io_maps.h"
#include "run_checks.h"
#include "temp_files.h"

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

/* The whole file in a static buffer ("" when missing). */
static const char *slurp(const char *path) {
    static char text[65536];
    text[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) text[fread(text, 1, sizeof text - 1, f)] = '\0', fclose(f);
    return text;
}

/* Names in the current directory containing ".tmp-". */
static int temporaries(void) {
    int n = 0;
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".tmp-")) ++n;
    if (d) closedir(d);
    return n;
}

static const char *pair_pqr =
    "ATOM      1  A   ION     1       0.000   0.000   0.000  1.0000 2.0000\n"
    "ATOM      2  B   ION     2       3.000   0.000   0.000 -1.0000 2.0000\n";

/* Run with stdout and stderr captured into out_text / err_text. */
static char out_text[65536], err_text[65536];
static int run_captured(pipeline *p, char **argv, int argc) {
    FILE *out = tmpfile(), *err = tmpfile();
    fflush(stderr);
    const int saved = dup(2);
    dup2(fileno(err), 2);
    const int rc = pipeline_execute(p, argc, argv, out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(out), rewind(err);
    out_text[fread(out_text, 1, sizeof out_text - 1, out)] = '\0';
    err_text[fread(err_text, 1, sizeof err_text - 1, err)] = '\0';
    fclose(out), fclose(err);
    return rc;
}

/* Item 1: the same file named another way is still the same file. */
static void outputs_over_inputs(pipeline *p) {
    write_text("m.pqr", pair_pqr);
    char cwd[2048], absolute[4200];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(absolute, sizeof absolute, "%s/m.pqr", cwd);
    const char *flags[] = {"--dx",  "--phi",  "--cube", "--mrc",
                           "--log", "--json", "--frc",  "--scrg"};
    for (int i = 0; i < 8; ++i) {
        CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", flags[i], "./m.pqr", NULL) ==
              EXIT_BAD_INPUT);
        pipeline_free(p);
        CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", flags[i], absolute, NULL) ==
              EXIT_BAD_INPUT);
        pipeline_free(p);
        CHECK(strcmp(slurp("m.pqr"), pair_pqr) == 0);
    }
    /* out(phi,file=...) in a parameter file, and a symbolic and a hard link. */
    write_text("over.prm", "in(pqr,file=\"m.pqr\")\nscale=1\nout(phi,file=\"./m.pqr\")\n");
    CHECK(run_program(p, 0, "over.prm", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    write_text("over2.prm",
               "in(pqr,file=\"m.pqr\")\nscale=1\nout(modpdb,file=\"./m.pqr\",format=pqr)\n");
    CHECK(run_program(p, 0, "over2.prm", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    unlink("link.pqr"), unlink("hard.pqr");
    CHECK(symlink("m.pqr", "link.pqr") == 0 && link("m.pqr", "hard.pqr") == 0);
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", "--dx", "link.pqr", NULL) ==
          EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", "--json", "hard.pqr", NULL) ==
          EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(strcmp(slurp("m.pqr"), pair_pqr) == 0);
    /* Two outputs that are one file. */
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", "--dx", "o.dx", "--json", "./o.dx",
                      NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(!file_exists("o.dx"));
}

/* Items 3, 4, 9, 11: limits and bad outputs are refused before any work. */
static void refused_early(pipeline *p) {
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--threads", "100000", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--relpar", "2", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", "--dx", "e.dx", "--phi", "e.phi",
                      "--frc", "no-such-dir/e.frc", NULL) == EXIT_BAD_INPUT);
    CHECK(!p->calc_ran);
    CHECK(!file_exists("e.dx") && !file_exists("e.phi") && temporaries() == 0);
    pipeline_free(p);
    mkdir("adir", 0755);
    CHECK(run_program(p, 0, "--pqr", "m.pqr", "--scale", "1", "--dx", "adir", NULL) ==
          EXIT_BAD_INPUT);
    CHECK(!p->calc_ran);
    pipeline_free(p);
    /* A focusing map whose header claims 100000^3 points (8 PB) is refused by its size. */
    write_text("huge.dx", "object 1 class gridpositions counts 100000 100000 100000\n"
                          "origin 0 0 0\ndelta 1 0 0\ndelta 0 1 0\ndelta 0 0 1\n"
                          "object 3 class array type double rank 0 items 1000000000000000 "
                          "data follows\n1 2 3\n");
    char *argv[] = {"delphi-gpu", "--pqr", "m.pqr",    "--scale", "1",
                    "--bndcon",   "3",     "--phi-in", "huge.dx", NULL};
    CHECK(run_captured(p, argv, 9) == EXIT_BAD_INPUT);
    CHECK(strstr(err_text, "promises") != NULL && strstr(err_text, "bytes follow") != NULL);
    pipeline_free(p);
    /* center(file=...): a missing file, one without atoms, and an output over it. */
    write_text("empty.pdb", "REMARK nothing\n");
    write_text("lig.pdb", "HETATM    1  C1  LIG L   1       1.000   2.500  -0.500  1.00  0.00\n");
    char *centres[3][9] = {{"delphi-gpu", "--pqr", "m.pqr", "--scale", "1", "--set",
                            "center(file=\"none.pdb\")", "--quiet", NULL},
                           {"delphi-gpu", "--pqr", "m.pqr", "--set", "center(file=\"empty.pdb\")",
                            "--phi", "e.phi", "--quiet", NULL},
                           {"delphi-gpu", "--pqr", "m.pqr", "--set", "center(file=\"lig.pdb\")",
                            "--phi", "lig.pdb", "--quiet", NULL}};
    const char *says[3][2] = {{"none.pdb", "center(file)"},
                              {"empty.pdb", "no ATOM or HETATM lines"},
                              {"lig.pdb", "overwrite an input"}};
    for (int k = 0; k < 3; ++k) {
        CHECK(run_captured(p, centres[k], 8) == EXIT_BAD_INPUT);
        CHECK(strstr(err_text, says[k][0]) != NULL && strstr(err_text, says[k][1]) != NULL);
        CHECK(!p->calc_ran && !file_exists("e.phi") && temporaries() == 0);
        pipeline_free(p);
    }
    CHECK(strstr(slurp("lig.pdb"), "HETATM    1  C1") == slurp("lig.pdb"));
    /* A grid wider than any molecule's (its cells' volume infinite): refused before the run
       with the scale and the width, naming no atom (the grid is no atom's fault). */
    char *tiny[] = {"delphi-gpu", "--pqr", "m.pqr", "--scale", "1e-300", "--dx", "t.dx", NULL};
    CHECK(run_captured(p, tiny, 7) == EXIT_BAD_INPUT);
    CHECK(strstr(err_text, "scale 1e-300") != NULL && strstr(err_text, "box") != NULL);
    CHECK(strstr(err_text, "atom") == NULL);
    CHECK(!p->calc_ran && !file_exists("t.dx") && temporaries() == 0);
    pipeline_free(p);
    /* A grid too small for the charges is refused before the surface and medium are built. */
    char *small[] = {"delphi-gpu", "--pqr", "m.pqr", "--scale", "1", "--gsize", "5", NULL};
    CHECK(run_captured(p, small, 7) == EXIT_BAD_INPUT);
    CHECK(strstr(err_text, "faces of the 5^3 grid") != NULL);
    CHECK(p->result && p->result->time_surface == 0.0 && p->result->time_medium == 0.0);
    pipeline_free(p);
}

/* Items 5, 6: atoms are never dropped in silence, and reader warnings reach stderr. */
static void readers_say_everything(pipeline *p) {
    write_text("odd.pqr",
               "\xEF\xBB\xBF"
               "ATOM      1  A   ION     1       0.000   0.000   0.000  0.4000 2.0000\n"
               " ATOM      2  B   ION     2       3.000   0.000   0.000 -0.4000 2.0000\n"
               "atom      3  C   ION     3       0.000   3.000   0.000  0.6000 2.0000\n"
               "hetatm    4  D   ION     4       0.000   0.000   3.000 -0.6000 2.0000\n"
               "ENDMDL\n"
               "ATOM      5  E   ION     5       9.000   9.000   9.000  1.0000 2.0000\n");
    char *argv[] = {"delphi-gpu", "--pqr", "odd.pqr", "--scale", "1", "--linit", "5", NULL};
    CHECK(run_captured(p, argv, 7) == EXIT_OK);
    CHECK(p->mol.count == 4);
    double q = 0;
    for (size_t i = 0; i < p->mol.count; ++i)
        q += p->mol.atoms[i].charge;
    CHECK(fabs(q) < 1e-12);
    CHECK(strstr(err_text, "warning:") && strstr(err_text, "ENDMDL"));
    CHECK(strstr(err_text, "lower case"));
    pipeline_free(p);
    /* A fixed-column PDB atom record shifted by a blank cannot be read: an error, not a drop. */
    write_text("shift.pdb", " ATOM      1  N   ALA A   1       0.000   0.000   0.000\n");
    write_text("r.siz", "atom__res_radius_\nN     ALA   1.5\n");
    write_text("r.crg", "atom__resnumbc_charge_\nN     ALA      0.5\n");
    CHECK(run_program(p, 0, "--pdb", "shift.pdb", "--siz", "r.siz", "--crg", "r.crg", NULL) ==
          EXIT_BAD_INPUT);
    pipeline_free(p);
    /* ... nor one with a tab in it (read shifted, it got no charge entry). */
    write_text("tab.pdb", "ATOM\t    1  N   ALA A   1       0.000   0.000   0.000\n");
    char *tab[] = {"delphi-gpu", "--pdb", "tab.pdb", "--siz", "r.siz", "--crg", "r.crg", NULL};
    CHECK(run_captured(p, tab, 7) == EXIT_BAD_INPUT && strstr(err_text, "a tab at column 5"));
    pipeline_free(p);
    /* A directory given as an input is named as one. */
    mkdir("adir", 0755);
    char *dir[] = {"delphi-gpu", "--pqr", "adir", NULL};
    CHECK(run_captured(p, dir, 3) == EXIT_BAD_INPUT && strstr(err_text, "is a directory"));
    pipeline_free(p);
}

/* Items 7, 8: "converged" only when a criterion was met; the outcome string whole. */
static void honest_outcome(pipeline *p) {
    char *argv[] = {"delphi-gpu", "--pqr", "m.pqr",  "--scale",  "1",
                    "--linit",    "5",     "--json", "few.json", NULL};
    CHECK(run_captured(p, argv, 9) == EXIT_OK);
    const char *json = slurp("few.json");
    CHECK(strstr(json, "\"converged\": false") != NULL);
    CHECK(strstr(json, "completed the requested iterations") != NULL);
    CHECK(strstr(err_text, "convergence was not checked") != NULL);
    pipeline_free(p);
    /* A non-finite energy is an error naming the term. */
    run_settings s;
    memset(&s, 0, sizeof s);
    s.energy_coulombic = 1;
    calc_result r;
    memset(&r, 0, sizeof r);
    r.energy_grid = 1.0, r.energy_coulombic = NAN;
    char msg[512];
    CHECK(run_check_energies(&s, &r, msg, sizeof msg) == 1 && strstr(msg, "coulombic"));
    r.energy_coulombic = -3.0;
    CHECK(run_check_energies(&s, &r, msg, sizeof msg) == 0);
    r.ionic_computed = 1, r.ionic.osmotic = INFINITY;
    CHECK(run_check_energies(&s, &r, msg, sizeof msg) == 1 && strstr(msg, "osmotic"));
    r.ionic.osmotic = -2.0, r.ionic.rho_phi_half = 3e54; /* an AChE run printed this */
    CHECK(run_check_energies(&s, &r, msg, sizeof msg) == 1 && strstr(msg, "rho*phi/2"));
    r.ionic.rho_phi_half = -1234.5;
    CHECK(run_check_energies(&s, &r, msg, sizeof msg) == 0);
}

/* Item 4: outputs are staged; a failed run removes what it wrote. */
static void staged_outputs(void) {
    map_grid m;
    const int n[3] = {3, 3, 3};
    const double c[3] = {0, 0, 0};
    io_error err;
    CHECK(map_grid_alloc(&m, n, 1.0, c, &err) == IO_OK);
    temp_files_stage_begin();
    CHECK(map_write("s1.dx", MAP_DX, &m, NULL, &err) == IO_OK);
    CHECK(!file_exists("s1.dx") && temporaries() == 1);
    CHECK(temp_files_stage_end(0, &err) == IO_OK);
    CHECK(!file_exists("s1.dx") && temporaries() == 0);
    temp_files_stage_begin();
    CHECK(map_write("s2.dx", MAP_DX, &m, NULL, &err) == IO_OK);
    CHECK(temp_files_stage_end(1, &err) == IO_OK);
    CHECK(file_exists("s2.dx") && temporaries() == 0);
    map_grid_free(&m);
}

/* Item 10: a signal in the middle of a run leaves no temporary file. */
static void killed_midway(int sig) {
    write_text("slow.pqr", pair_pqr);
    const pid_t child = fork();
    if (child == 0) {
        temp_files_install_signal_cleanup();
        pipeline *q = calloc(1, sizeof *q);
        /* The CPU: CUDA cannot be used in a child forked after the parent initialised it. */
        char *argv[] = {"delphi-gpu", "--pqr",     "slow.pqr",  "--scale",  "3",
                        "--linit",    "100000000", "--log",     "slow.log", "--dx",
                        "slow.dx",    "--quiet",   "--backend", "cpu",      NULL};
        _exit(pipeline_execute(q, 14, argv, NULL));
    }
    int seen = 0;
    for (int i = 0; i < 3000 && !seen; ++i) { /* up to 30 s for the log's temporary */
        seen = temporaries() > 0;
        if (!seen) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    CHECK(seen);
    nanosleep(&(struct timespec){0, 200000000}, NULL); /* well into the solve */
    kill(child, sig);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    CHECK(temporaries() == 0);
    CHECK(!file_exists("slow.log") && !file_exists("slow.dx"));
}

/* A write that fails: a file-size limit (ulimit -f) is a write error naming the file, exit 1,
 * not the end of the process by SIGXFSZ; the log's standard output on a full device fails the
 * run. Neither leaves a file behind. */
static void writes_that_fail(void) {
    write_text("w.pqr", pair_pqr);
    /* In this process (a child forked after the other cases' OpenMP and CUDA threads can hang
       in their runtimes): a soft file-size limit for one run, then the old one again. */
    temp_files_install_signal_cleanup(); /* SIGXFSZ ignored: the write fails with EFBIG */
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    struct rlimit limit = old;
    limit.rlim_cur = 64 * 1024;
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < limit.rlim_cur)
        limit.rlim_cur = old.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);
    pipeline *q = calloc(1, sizeof *q);
    char *limited[] = {"delphi-gpu", "--pqr", "w.pqr",   "--gsize",   "65",  "--linit", "5",
                       "--dx",       "w.dx",  "--quiet", "--backend", "cpu", NULL};
    const int code = pipeline_execute(q, 12, limited, NULL);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    CHECK(code == EXIT_BAD_INPUT && strstr(q->log.first_error, "File too large"), "exit %d: %s",
          code, q->log.first_error);
    CHECK(temporaries() == 0 && !file_exists("w.dx"));
    pipeline_free(q);
    free(q);

    FILE *full = fopen("/dev/full", "w");
    if (!full) return; /* not Linux */
    q = calloc(1, sizeof *q);
    char *argv[] = {"delphi-gpu", "--pqr", "w.pqr",   "--gsize",   "21",  "--linit", "5",
                    "--dx",       "w.dx",  "--quiet", "--backend", "cpu", NULL};
    CHECK(pipeline_execute(q, 12, argv, full) == EXIT_BAD_INPUT);
    CHECK(strstr(q->log.first_error, "standard output failed") != NULL);
    CHECK(temporaries() == 0 && !file_exists("w.dx"));
    pipeline_free(q);
    free(q);
    fclose(full);
}

/* Item 13: without a GPU, one plain notice before the solve, no CUDA error text.  The grid is
 * above the size for which AUTO picks the CPU without asking for a GPU (backend_choice.h: 71^3
 * on one thread). */
static void backend_notice(pipeline *p) {
    int count = 0;
    if (dg_cuda_device_count(&count) == DG_OK && count > 0) return; /* a GPU: nothing to say */
    char *argv[] = {"delphi-gpu", "--pqr",     "m.pqr", "--scale", "1", "--gsize",
                    "71",         "--threads", "1",     "--linit", "5", NULL};
    CHECK(run_captured(p, argv, 11) == EXIT_OK);
    const char *notice = strstr(out_text, "notice: no usable GPU");
    CHECK(notice != NULL);
    CHECK(notice && strstr(notice + 21, "no usable GPU") == NULL); /* once */
    if (notice && strstr(notice + 21, "no usable GPU")) fputs(out_text, stderr);
    const char *grid = strstr(out_text, "grid  ");
    CHECK(notice && grid && notice < grid); /* before the calculation starts */
    CHECK(strstr(out_text, "CUDA driver version is insufficient") == NULL);
    pipeline_free(p);
}

int main(void) {
    pipeline *p = calloc(1, sizeof *p);
    outputs_over_inputs(p);
    refused_early(p);
    readers_say_everything(p);
    honest_outcome(p);
    staged_outputs();
    backend_notice(p);
    killed_midway(SIGTERM);
    killed_midway(SIGINT);
    killed_midway(SIGSEGV);
    killed_midway(SIGPIPE);
    writes_that_fail();
    free(p);
    CHECK_DONE();
}
