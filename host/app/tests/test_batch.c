/* Batch runs in one process (batch.h): two parameter files and a --batch list, the models of a
 * multi-model file (--frames), JSON lines; each run's numbers equal a single run's.  Outputs
 * that several runs write get each run's tag, one that a single run writes keeps its name:
 * DelPhi's focusing in two parameter files (the coarse run's phimap read by the focused run)
 * works as a batch and gives the energies of focusing in one run (--coarse-scale); an output
 * that an earlier run read gets the tag, so the input stays as it was. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "app_test.h"
#include "batch.h"
#include "io_summary.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    if (fp) fputs(text, fp), fclose(fp);
}

/* Lines of a file, and whether every one holds the text. */
static int count_lines(const char *path, const char *text, int *with_text) {
    FILE *fp = fopen(path, "r");
    char line[65536];
    int n = 0;
    *with_text = 0;
    while (fp && fgets(line, sizeof line, fp))
        ++n, *with_text += strstr(line, text) != NULL;
    if (fp) fclose(fp);
    return n;
}

/* The "grid" energy of a JSON summary (text search; the summary puts it first). */
static double grid_energy(const char *path) {
    FILE *fp = fopen(path, "r");
    char text[65536] = "";
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    if (fp) fclose(fp);
    text[n] = '\0';
    const char *at = strstr(text, "\"energies_kT\"");
    at = at ? strstr(at, "\"grid\":") : NULL;
    return at ? atof(at + 7) : NAN;
}

static int run_batch(int verbose, char **argv) {
    int argc = 0;
    while (argv[argc])
        ++argc;
    return batch_execute(argc, argv, verbose ? stdout : NULL);
}

int main(void) {
    const char *prm = EXAMPLES_DIR "/born/run.prm";
    write_text("born_ion.pqr",
               "ATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    /* One run for reference, as a batch makes it: under AUTO's plain rule (a single run of this
       small grid would take the CPU where the batch takes a GPU: backend_choice.h). */
    pipeline *p = calloc(1, sizeof *p);
    char *reference[] = {"delphi-gpu", (char *)prm, "--quiet", "--json", "single.json", NULL};
    pipeline_batch alone = {NULL, 0, "", NULL, NULL, 0, NULL, 0, NULL, 0};
    CHECK(pipeline_execute_batch(p, 5, reference, NULL, &alone) == EXIT_OK);
    pipeline_free(p);
    free(p);
    const double single = grid_energy("single.json");
    CHECK(isfinite(single));

    /* Two parameter files on the command line plus one from a list: three runs, tagged. */
    write_text("list.txt", "# runs\n\n" EXAMPLES_DIR "/born/run.prm\n");
    char *two[] = {"delphi-gpu", (char *)prm, "--quiet", (char *)prm, "--batch", "list.txt",
                   "--json",     "b.json",    "--jsonl", "b.jsonl",   NULL};
    CHECK(run_batch(0, two) == EXIT_OK);
    CHECK(file_exists("b.1.json") && file_exists("b.2.json") && file_exists("b.3.json"));
    CHECK(file_exists("born.1.phi") && file_exists("born.3.phi") && !file_exists("b.json"));
    CHECK(grid_energy("b.1.json") == single && grid_energy("b.3.json") == single);
    int ok = 0;
    CHECK(count_lines("b.jsonl", "\"exit_status\": 0", &ok) == 3 && ok == 3);
    count_lines("b.jsonl", "\"energies_kT\"", &ok);
    CHECK(ok == 3);

    /* Every model of a two-model file, JSON lines only (no summary files left behind). */
    write_text("two.pqr",
               "MODEL 1\nATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n"
               "ENDMDL\nMODEL 2\n"
               "ATOM      1  NA  ION     1       0.500   0.000   0.000  1.0000 2.0000\n"
               "ATOM      2  CL  ION     2       3.500   0.000   0.000 -1.0000 2.0000\nENDMDL\n");
    char *frames[] = {"delphi-gpu", "--pqr",   "two.pqr", "--scale", "2",       "--frames",
                      "--jsonl",    "f.jsonl", "--phi",   "f.phi",   "--quiet", NULL};
    CHECK(run_batch(0, frames) == EXIT_OK);
    CHECK(file_exists("f.m1.phi") && file_exists("f.m2.phi"));
    CHECK(count_lines("f.jsonl", "\"atoms\": 1,", &ok) == 2 && ok == 1);
    count_lines("f.jsonl", "\"model\": 2,", &ok);
    CHECK(ok == 1);
    CHECK(!file_exists("f.jsonl.run1.tmp") && !file_exists("f.jsonl.run2.tmp"));
    /* An empty model is a run that fails; the models after it still run. */
    write_text("gap.pqr",
               "MODEL 1\nATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n"
               "ENDMDL\nMODEL 2\nENDMDL\nMODEL 3\n"
               "ATOM      1  NA  ION     1       0.500   0.000   0.000  1.0000 2.0000\nENDMDL\n");
    char *gap[] = {"delphi-gpu", "--pqr",   "gap.pqr", "--scale", "2",
                   "--frames",   "--jsonl", "g.jsonl", "--quiet", NULL};
    CHECK(run_batch(0, gap) == EXIT_BAD_INPUT);
    CHECK(count_lines("g.jsonl", "\"run\"", &ok) == 3);
    count_lines("g.jsonl", "\"model\": 3, \"exit_status\": 0", &ok);
    CHECK(ok == 1);
    /* Model 2 alone equals the batch's second run. */
    p = calloc(1, sizeof *p);
    char *one[] = {"delphi-gpu", "--pqr",   "two.pqr", "--scale", "2",
                   "--json",     "m2.json", "--quiet", NULL};
    pipeline_batch how = {NULL, 2, "", NULL, NULL, 0, NULL, 0, NULL, 0};
    CHECK(pipeline_execute_batch(p, 8, one, NULL, &how) == EXIT_OK);
    CHECK(p->mol.count == 2);
    pipeline_free(p);
    free(p);

    /* DelPhi's focusing in two parameter files: coarse.phi, which only the coarse run writes,
       keeps its name and the focused run reads it; the JSON that the option names for both runs
       gets each run's tag. */
    write_text("coarse.prm", "in(pqr,file=\"born_ion.pqr\")\ngsize=33\nscale=0.5\nbndcon=4\n"
                             "out(phi,file=\"coarse.phi\")\n");
    write_text("fine.prm", "in(pqr,file=\"born_ion.pqr\")\ngsize=33\nscale=2\nbndcon=3\n"
                           "in(phi,file=\"coarse.phi\")\nenergy(g,s)\n");
    remove("coarse.phi");
    char *focus[] = {"delphi-gpu", "coarse.prm", "fine.prm", "--json", "fc.json", "--quiet", NULL};
    CHECK(run_batch(0, focus) == EXIT_OK);
    CHECK(file_exists("coarse.phi") && !file_exists("coarse.1.phi"));
    CHECK(file_exists("fc.1.json") && file_exists("fc.2.json") && !file_exists("fc.json"));
    p = calloc(1, sizeof *p);
    char *in_one[] = {"delphi-gpu", "--pqr",    "born_ion.pqr", "--gsize", "33",
                      "--scale",    "2",        "--bndcon",     "4",       "--coarse-scale",
                      "0.5",        "--energy", "g,s",          "--json",  "fc1.json",
                      "--quiet",    NULL};
    CHECK(pipeline_execute_batch(p, 16, in_one, NULL, &alone) == EXIT_OK);
    pipeline_free(p);
    free(p);
    printf("focusing in two parameter files: grid energy %.9f kT, in one run %.9f kT\n",
           grid_energy("fc.2.json"), grid_energy("fc1.json"));
    CHECK_REL(grid_energy("fc.2.json"), grid_energy("fc1.json"), 1e-7);
    /* The other order: the focused run reads coarse.phi first, then the coarse run would
       overwrite that input; it writes coarse.2.phi instead and coarse.phi stays as it was. */
    remove("coarse.2.phi");
    struct stat before, after; /* outputs are renamed into place: a rewrite is a new inode */
    CHECK(stat("coarse.phi", &before) == 0);
    char *reverse[] = {"delphi-gpu", "fine.prm", "coarse.prm", "--quiet", NULL};
    CHECK(run_batch(0, reverse) == EXIT_OK);
    CHECK(stat("coarse.phi", &after) == 0 && after.st_ino == before.st_ino &&
          after.st_mtime == before.st_mtime);
    CHECK(file_exists("coarse.2.phi"));

    /* A failed run does not stop the batch; the status is the first failure's. */
    write_text("bad.prm", "in(pqr,file=\"missing.pqr\")\n");
    char *bad[] = {"delphi-gpu", "bad.prm", (char *)prm, "--quiet", "--jsonl", "x.jsonl", NULL};
    CHECK(run_batch(0, bad) == EXIT_BAD_INPUT);
    CHECK(count_lines("x.jsonl", "\"run\"", &ok) == 2 && ok == 2);
    count_lines("x.jsonl", "\"exit_status\": 1,", &ok);
    CHECK(ok == 1);
    count_lines("x.jsonl", "missing.pqr", &ok); /* the failed run's error is its line's */
    CHECK(ok == 1);

    /* The batch's own files are never outputs: --jsonl naming an input, a parameter file or
       the --batch list is refused before any run, and nothing is written over them. */
    struct stat was, now;
    CHECK(stat("born_ion.pqr", &was) == 0);
    char *over_input[] = {"delphi-gpu", "coarse.prm", "--quiet", "--jsonl", "born_ion.pqr", NULL};
    CHECK(run_batch(0, over_input) == EXIT_BAD_INPUT);
    char *over_prm[] = {"delphi-gpu", "coarse.prm", "--quiet", "--jsonl", "coarse.prm", NULL};
    CHECK(run_batch(0, over_prm) == EXIT_BAD_INPUT);
    char *over_list[] = {"delphi-gpu", "--batch",  "list.txt", "--quiet",
                         "--jsonl",    "list.txt", NULL};
    CHECK(run_batch(0, over_list) == EXIT_BAD_INPUT);
    CHECK(stat("born_ion.pqr", &now) == 0 && now.st_size == was.st_size &&
          now.st_mtime == was.st_mtime);
    char *list = read_file("list.txt"), *coarse = read_file("coarse.prm");
    CHECK(list && strstr(list, "born/run.prm") && coarse && strstr(coarse, "gsize=33"));
    free(list), free(coarse);
    /* ... nor a run's output over them: the run fails, the file stays. */
    char *json_over_list[] = {"delphi-gpu", "--batch",  "list.txt", "--quiet",
                              "--json",     "list.txt", NULL};
    CHECK(run_batch(0, json_over_list) == EXIT_BAD_INPUT);
    char *json_over_jsonl[] = {"delphi-gpu", "coarse.prm", "--quiet",  "--jsonl",
                               "same.out",   "--json",     "same.out", NULL};
    CHECK(run_batch(0, json_over_jsonl) == EXIT_BAD_INPUT);
    list = read_file("list.txt");
    CHECK(list && strstr(list, "born/run.prm"));
    free(list);
    char *same = read_file("same.out"); /* the JSON lines, not a summary */
    CHECK(same && strstr(same, "\"run\": 1") && strstr(same, "same.out"));
    free(same);
    /* A tagged output that is an input of the batch (run 2's frc, tagged, is its molecule),
       and a tagged output that an earlier run wrote: those runs fail, the files stay. */
    write_text("t1.pqr", "ATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    write_text("t2.pqr", "ATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    write_text("t.2.pqr",
               "ATOM      1  NA  ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    write_text("ta.prm", "in(pqr,file=\"t1.pqr\")\ngsize=17\nscale=1\nout(frc,file=\"t.pqr\")\n"
                         "site(p)\nin(frc,file=\"self\")\n");
    write_text("tb.prm", "in(pqr,file=\"t.2.pqr\")\ngsize=17\nscale=1\nout(frc,file=\"t.pqr\")\n"
                         "site(p)\nin(frc,file=\"self\")\n");
    char *tagged_input[] = {"delphi-gpu", "ta.prm", "tb.prm", "--quiet", NULL};
    CHECK(run_batch(0, tagged_input) == EXIT_BAD_INPUT);
    char *t2 = read_file("t.2.pqr");
    CHECK(t2 && strstr(t2, "ATOM      1  NA") && file_exists("t.1.pqr"));
    free(t2);
    write_text("xa.prm", "in(pqr,file=\"t1.pqr\")\ngsize=17\nscale=1\nout(phi,file=\"x.phi\")\n"
                         "out(frc,file=\"x.2.phi\")\nsite(p)\nin(frc,file=\"self\")\n");
    write_text("xb.prm", "in(pqr,file=\"t2.pqr\")\ngsize=17\nscale=1\nout(phi,file=\"x.phi\")\n");
    char *tagged_written[] = {"delphi-gpu", "xa.prm", "xb.prm", "--quiet", NULL};
    CHECK(run_batch(0, tagged_written) == EXIT_BAD_INPUT);
    char *frc = read_file("x.2.phi"); /* run 1's frc file, not run 2's map */
    CHECK(frc && strstr(frc, "DELPHI SITE POTENTIAL FILE"));
    free(frc);
    CHECK_DONE();
}
