/* Batch runs (see batch.h). */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "app_mpi.h"
#include "io_molecule.h"
#include "io_settings.h"
#include "io_text.h"
#include "pipeline.h"
#include "temp_files.h"

/* Files of a batch by their canonical names (path_identity.h): for the outputs, how many runs
 * write each and whether an earlier run reads it; for the inputs, the names alone. */
typedef struct batch_files {
    char **name;
    int *writers, *read_before;
    int count, capacity;
} batch_files;

/* The entry of a name, added (no writers, not read) when new; -1 when out of memory. */
static int file_entry(batch_files *f, const char *name) {
    for (int i = 0; i < f->count; ++i)
        if (!strcmp(f->name[i], name)) return i;
    if (f->count == f->capacity) {
        const int grown = f->capacity ? 2 * f->capacity : 16;
        char **names = realloc(f->name, (size_t)grown * sizeof *names);
        if (names) f->name = names;
        int *writers = realloc(f->writers, (size_t)grown * sizeof *writers);
        if (writers) f->writers = writers;
        int *read = realloc(f->read_before, (size_t)grown * sizeof *read);
        if (read) f->read_before = read;
        if (!names || !writers || !read) return -1;
        f->capacity = grown;
    }
    char *copy = malloc(strlen(name) + 1);
    if (!copy) return -1;
    strcpy(copy, name);
    f->name[f->count] = copy, f->writers[f->count] = f->read_before[f->count] = 0;
    return f->count++;
}

static int file_known(const batch_files *f, const char *name) {
    for (int i = 0; i < f->count; ++i)
        if (!strcmp(f->name[i], name)) return 1;
    return 0;
}

/* Keep the outputs that get the runs' tags: those that several runs write (each keeps its
 * own), and those that an earlier run reads (its input stays as it was). */
static void keep_tagged(batch_files *f) {
    int kept = 0;
    for (int i = 0; i < f->count; ++i) {
        if (f->writers[i] > 1 || f->read_before[i])
            f->name[kept++] = f->name[i];
        else
            free(f->name[i]);
    }
    f->count = kept;
}

static void files_free(batch_files *f) {
    for (int i = 0; i < f->count; ++i)
        free(f->name[i]);
    free(f->name), free(f->writers), free(f->read_before);
    memset(f, 0, sizeof *f);
}

typedef struct batch_plan {
    char **common; /* argv without batch options and parameter files */
    int common_count;
    char **inputs; /* parameter files (owned strings); none = one run without a file */
    int input_count, input_capacity;
    const char *list_file, *jsonl_file;
    int frames, is_batch;
    int *models;         /* runs of each input (its models with --frames, else 1) */
    batch_files outputs; /* after planning, the outputs that get the runs' tags */
    batch_files read;    /* the input files of the runs planned so far */
    batch_files taken;   /* files no run may write: the --jsonl, list and parameter files, and
                            what the runs so far wrote */
} batch_plan;

static int add_input(batch_plan *b, const char *path) {
    if (b->input_count == b->input_capacity) {
        const int grown = b->input_capacity ? 2 * b->input_capacity : 16;
        char **more = realloc(b->inputs, (size_t)grown * sizeof *more);
        if (!more) return -1;
        b->inputs = more, b->input_capacity = grown;
    }
    char *copy = malloc(strlen(path) + 1);
    if (!copy) return -1;
    strcpy(copy, path);
    b->inputs[b->input_count++] = copy;
    return 0;
}

static void plan_free(batch_plan *b) {
    for (int i = 0; i < b->input_count; ++i)
        free(b->inputs[i]);
    free(b->inputs), free(b->common), free(b->models);
    files_free(&b->outputs), files_free(&b->read), files_free(&b->taken);
    memset(b, 0, sizeof *b);
}

/* "--name VALUE" or "--name=VALUE" at argv[i]: the value, and how many entries it used. */
static const char *option_value(int argc, char **argv, int i, const char *name, int *used) {
    const size_t len = strlen(name);
    if (strncmp(argv[i], name, len) != 0) return NULL;
    if (argv[i][len] == '=') return *used = 1, argv[i] + len + 1;
    if (argv[i][len] == '\0' && i + 1 < argc) return *used = 2, argv[i + 1];
    return NULL;
}

/* Parameter files of a --batch list: one per line; blank lines and # comments skipped. */
static int read_list(batch_plan *b, const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "delphi-gpu: error: --batch: cannot open %s\n", path);
        return -1;
    }
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        char *text = line;
        while (*text == ' ' || *text == '\t')
            ++text;
        size_t n = strlen(text);
        while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
            text[--n] = '\0';
        if (n && text[0] != '#') rc = add_input(b, text);
    }
    fclose(fp);
    return rc;
}

/* Split the arguments: batch options out, parameter files listed, the rest common. */
static int plan_batch(int argc, char **argv, batch_plan *b) {
    memset(b, 0, sizeof *b);
    char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
    b->common = malloc((size_t)(argc + 2) * sizeof *b->common);
    if (!rest || !b->common) return free(rest), -1;
    int n = 0, done = 0;
    for (int i = 0; i < argc; ++i) {
        int used = 0;
        const char *v;
        if (i > 0 && !done && !strcmp(argv[i], "--")) done = 1;
        if (i > 0 && !done && (v = option_value(argc, argv, i, "--batch", &used))) {
            b->list_file = v, i += used - 1, b->is_batch = 1;
        } else if (i > 0 && !done && (v = option_value(argc, argv, i, "--jsonl", &used))) {
            b->jsonl_file = v, i += used - 1, b->is_batch = 1;
        } else if (i > 0 && !done && !strcmp(argv[i], "--frames")) {
            b->frames = b->is_batch = 1;
        } else {
            rest[n++] = argv[i];
        }
    }
    rest[n] = NULL;
    int index[1], count = 0;
    io_error err;
    io_error_clear(&err);
    int *positions = malloc((size_t)(n + 1) * sizeof *positions);
    int rc = positions ? 0 : -1;
    if (rc == 0 && settings_list_positional(n, rest, positions, n, &count, &err) != IO_OK) {
        count = 0; /* the single run reports the bad option */
        (void)index;
    }
    for (int i = 0, k = 0; rc == 0 && i < n; ++i) {
        if (k < count && positions[k] == i) {
            rc = add_input(b, rest[i]), ++k;
            continue;
        }
        b->common[b->common_count++] = rest[i];
    }
    b->common[b->common_count] = NULL;
    if (count > 1) b->is_batch = 1;
    if (rc == 0 && b->list_file) rc = read_list(b, b->list_file);
    free(positions), free(rest);
    return rc;
}

/* One input's runs: every model with --frames, else the first (model 0); its outputs, each
 * written once per run, and its inputs into the plan (in run order, so that an output can be
 * seen to be an earlier run's input).  An input whose statements and options do not read
 * counts one run and no files (its run says what is wrong).  -1 when out of memory. */
static int plan_input(batch_plan *b, int argc, char **argv) {
    run_settings *s = calloc(1, sizeof *s);
    io_notes *notes = calloc(1, sizeof *notes);
    path_identity *id = malloc(SETTINGS_INPUT_IDENTITIES * sizeof *id);
    io_error err;
    io_error_clear(&err);
    int models = s && notes && id ? 1 : -1;
    /* the models of the located molecule file; the files as named (an input that an earlier
       run writes need not be there yet) */
    int read = models > 0 && settings_load(s, argc, argv, notes, &err) == IO_OK;
    if (read && b->frames) {
        const char *path = s->pqr_file[0] ? s->pqr_file : s->pdb_file;
        if (molecule_count_models(path, &models, &err) != IO_OK || models < 1) models = 1;
    }
    if (!read && models > 0) read = settings_read(s, argc, argv, notes, &err) == IO_OK;
    if (read) {
        char *paths[SETTINGS_MAX_OUTPUTS + 16];
        size_t sizes[SETTINGS_MAX_OUTPUTS + 16];
        const int n = pipeline_output_paths(s, paths, sizes, SETTINGS_MAX_OUTPUTS + 16);
        for (int i = 0; i < n && models > 0; ++i) {
            path_identity_of(paths[i], &id[0]);
            if (!id[0].canonical[0]) continue; /* no such directory: its run says so */
            const int e = file_entry(&b->outputs, id[0].canonical);
            if (e < 0) {
                models = -1;
                break;
            }
            b->outputs.writers[e] += models;
            if (file_known(&b->read, id[0].canonical)) b->outputs.read_before[e] = 1;
        }
        const int m = settings_input_identities(s, id, SETTINGS_INPUT_IDENTITIES);
        for (int i = 0; i < m && models > 0; ++i)
            if (id[i].canonical[0] && file_entry(&b->read, id[i].canonical) < 0) models = -1;
    }
    free(s), free(notes), free(id);
    return models;
}

static void put_json_string(FILE *fp, const char *text) {
    fputc('"', fp);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(fp, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(fp, "\\u%04x", *c);
        else
            fputc(*c, fp);
    }
    fputc('"', fp);
}

/* One JSON line: the run, its input and model, exit status, and its summary (the summary
 * file's JSON on one line: raw newlines only occur between tokens). */
static void write_json_line(FILE *jsonl, int run, const char *input, int model, const pipeline *p,
                            const char *summary) {
    const char *error = p->message[0] ? p->message : p->log.first_error;
    fprintf(jsonl, "{\"run\": %d, \"input\": ", run);
    if (input)
        put_json_string(jsonl, input);
    else
        fputs("null", jsonl);
    fprintf(jsonl, ", \"model\": %d, \"exit_status\": %d, \"error\": ", model, p->exit_code);
    if (error[0])
        put_json_string(jsonl, error);
    else
        fputs("null", jsonl);
    fputs(", \"summary\": ", jsonl);
    FILE *fp = summary && summary[0] ? fopen(summary, "r") : NULL;
    if (!fp) {
        fputs("null", jsonl);
    } else {
        int c, line_start = 0;
        while ((c = fgetc(fp)) != EOF) {
            if (c == '\n') {
                line_start = 1;
                continue;
            }
            if (line_start && c == ' ') continue;
            line_start = 0;
            fputc(c, jsonl);
        }
        fclose(fp);
    }
    fputs("}\n", jsonl);
    fflush(jsonl);
}

/* One run of the batch. */
static int run_one(batch_plan *b, int k, int model, int models, dg_calc *calc, FILE *jsonl, int run,
                   FILE *out) {
    const char *input = b->input_count ? b->inputs[k] : NULL;
    char **argv = malloc((size_t)(b->common_count + 2) * sizeof *argv);
    pipeline *p = calloc(1, sizeof *p);
    if (!argv || !p) {
        free(argv), free(p);
        fprintf(stderr, "delphi-gpu: error: out of memory\n");
        return EXIT_SOLVER_FAILED;
    }
    int argc = b->common_count;
    memcpy(argv, b->common, (size_t)argc * sizeof *argv);
    if (input) argv[argc++] = (char *)input;
    argv[argc] = NULL;
    char tag[64] = "", summary[SETTINGS_PATH_MAX] = "";
    if (b->input_count > 1) snprintf(tag, sizeof tag, "%d", k + 1);
    if (models > 1)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag), "%sm%d", tag[0] ? "." : "", model);
    if (jsonl) snprintf(summary, sizeof summary, "%s.run%d.tmp", b->jsonl_file, run);
    if (out && models > 1)
        fprintf(out, "== run %d: %s, model %d ==\n", run, input ? input : "(no parameter file)",
                model);
    else if (out)
        fprintf(out, "== run %d: %s ==\n", run, input ? input : "(no parameter file)");
    pipeline_batch how = {calc,
                          models > 1 ? model : 0,
                          tag,
                          jsonl ? summary : NULL,
                          (const char *const *)b->outputs.name,
                          b->outputs.count,
                          (const char *const *)b->taken.name,
                          b->taken.count,
                          (const char *const *)b->read.name,
                          b->read.count};
    const int status = pipeline_execute_batch(p, argc, argv, out, &how);
    if (status == EXIT_OK || status == EXIT_NOT_CONVERGED) { /* what it wrote stays */
        char *paths[SETTINGS_MAX_OUTPUTS + 16];
        size_t sizes[SETTINGS_MAX_OUTPUTS + 16];
        const int n = pipeline_output_paths(&p->settings, paths, sizes, SETTINGS_MAX_OUTPUTS + 16);
        path_identity id;
        for (int i = 0; i < n; ++i) {
            path_identity_of(paths[i], &id);
            if (id.canonical[0] && strcmp(paths[i], summary) != 0)
                file_entry(&b->taken, id.canonical);
        }
    }
    if (jsonl) {
        const char *written = p->settings.json_file[0] ? p->settings.json_file : summary;
        const int wrote = status == EXIT_OK || status == EXIT_NOT_CONVERGED;
        write_json_line(jsonl, run, input, how.model, p, wrote ? written : NULL);
        if (p->summary_private) remove(summary);
    }
    pipeline_free(p);
    free(p), free(argv);
    return status;
}

/* The batch's own files (the --batch list, --jsonl, the parameter files) into taken: no run
 * writes them.  EXIT_OK, or EXIT_SOLVER_FAILED (out of memory, said). */
static int protect_own_files(batch_plan *b) {
    path_identity id;
    const char *own[2] = {b->list_file, b->jsonl_file};
    for (int i = 0; i < 2 + b->input_count; ++i) {
        const char *path = i < 2 ? own[i] : b->inputs[i - 2];
        if (!path) continue;
        path_identity_of(path, &id);
        if (id.canonical[0] && file_entry(&b->taken, id.canonical) < 0) {
            fprintf(stderr, "delphi-gpu: error: out of memory planning the batch\n");
            return EXIT_SOLVER_FAILED;
        }
    }
    return EXIT_OK;
}

/* --jsonl, checked as any output (writable, not a directory or device) and against the batch's
 * inputs, parameter files and list, opened under a temporary name that no run's stage removes
 * (renamed when the batch ends, removed by a signal).  EXIT_OK, or EXIT_BAD_INPUT (said). */
static int open_jsonl(const batch_plan *b, atomic_file *af) {
    io_error err;
    io_error_clear(&err);
    int rc = path_check_output(b->jsonl_file, "--jsonl", &err);
    path_identity jsonl_id, other;
    path_identity_of(b->jsonl_file, &jsonl_id);
    const char *clash = NULL;
    for (int i = 0; rc == IO_OK && !clash && i < b->read.count; ++i)
        if (!strcmp(jsonl_id.canonical, b->read.name[i])) clash = "an input file of a run";
    for (int i = -1; rc == IO_OK && !clash && i < b->input_count; ++i) {
        const char *path = i < 0 ? b->list_file : b->inputs[i];
        if (!path) continue;
        path_identity_of(path, &other);
        if (path_identity_same(&jsonl_id, &other))
            clash = i < 0 ? "the --batch list" : "a parameter file of the batch";
    }
    if (rc == IO_OK && clash)
        rc = io_fail(&err, IO_ERR_INPUT, NULL, 0, NULL, "--jsonl '%s' would overwrite %s (%s)",
                     b->jsonl_file, clash, jsonl_id.canonical);
    if (rc == IO_OK && (rc = atomic_file_open(af, b->jsonl_file, 0, &err)) == IO_OK)
        temp_files_hold(af->temp_path);
    if (rc == IO_OK) return EXIT_OK;
    fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
    return EXIT_BAD_INPUT;
}

int batch_execute(int argc, char **argv, FILE *out) {
    batch_plan b;
    if (plan_batch(argc, argv, &b) != 0) {
        plan_free(&b);
        fprintf(stderr, "delphi-gpu: error: cannot read the batch arguments\n");
        return EXIT_BAD_INPUT;
    }
    if (!b.is_batch) { /* a single run, exactly as always */
        plan_free(&b);
        pipeline *p = calloc(1, sizeof *p);
        if (!p) return EXIT_SOLVER_FAILED;
        const int status = pipeline_execute(p, argc, argv, out);
        pipeline_free(p);
        free(p);
        return status;
    }
    if (app_mpi_rank() != 0) b.jsonl_file = NULL; /* under mpirun only rank 0 writes */
    /* Each input's runs and files, before any run: an output that only one run writes keeps
       its name (a later run may read it, as DelPhi's focused run reads the coarse run's
       phimap); one that several write, or that an earlier run read, gets each run's tag. */
    const int inputs = b.input_count ? b.input_count : 1;
    b.models = malloc((size_t)inputs * sizeof *b.models);
    char **argv_k = malloc((size_t)(b.common_count + 2) * sizeof *argv_k);
    for (int k = 0; b.models && argv_k && k < inputs; ++k) {
        int argc_k = b.common_count;
        memcpy(argv_k, b.common, (size_t)argc_k * sizeof *argv_k);
        if (b.input_count) argv_k[argc_k++] = b.inputs[k];
        argv_k[argc_k] = NULL;
        b.models[k] = plan_input(&b, argc_k, argv_k);
    }
    free(argv_k);
    int planned = b.models && argv_k;
    for (int k = 0; planned && k < inputs; ++k)
        planned = b.models[k] > 0;
    if (!planned) {
        fprintf(stderr, "delphi-gpu: error: out of memory planning the batch\n");
        plan_free(&b);
        return EXIT_SOLVER_FAILED;
    }
    keep_tagged(&b.outputs);
    atomic_file jsonl_file = {0};
    FILE *jsonl = NULL;
    int opened = protect_own_files(&b);
    if (opened == EXIT_OK && b.jsonl_file) opened = open_jsonl(&b, &jsonl_file);
    if (opened != EXIT_OK) {
        plan_free(&b);
        return opened;
    }
    if (b.jsonl_file) jsonl = jsonl_file.fp;
    dg_calc calc = NULL; /* one handle for the whole batch */
    int status = EXIT_OK, run = 0;
    for (int k = 0; k < inputs; ++k) {
        const int models = b.models[k];
        for (int m = 1; m <= models; ++m) {
            const int st = run_one(&b, k, m, models, &calc, jsonl, ++run, out);
            if (status == EXIT_OK) status = st;
            /* under mpirun the next run may read what rank 0 just wrote (DelPhi's focusing in
               two parameter files): every rank waits for the others; a rank that failed alone
               and is left waiting ends the job */
            if (!app_mpi_all_here(st != EXIT_OK && st != EXIT_NOT_CONVERGED)) app_mpi_abort(st);
        }
    }
    dg_calc_destroy(calc);
    io_error err;
    io_error_clear(&err);
    if (jsonl && atomic_file_commit(&jsonl_file, &err) != IO_OK) {
        fprintf(stderr, "delphi-gpu: error: --jsonl: %s\n", err.message);
        if (status == EXIT_OK) status = EXIT_BAD_INPUT;
    }
    if (out) fprintf(out, "== batch: %d runs, exit status %d ==\n", run, status);
    plan_free(&b);
    return status;
}
