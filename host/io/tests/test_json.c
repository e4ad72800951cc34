/* JSON summary: valid JSON (own validating parser, and Python's json module when present),
 * every key of CLI.md with the right type, NaN -> null, string escaping, atomic write. */
#include "test_util.h"

#include "host_io.h"
#include "json_check.h"

static json_value *load_json(const char *path) {
    char *text = read_text(path);
    if (!text) return NULL;
    char error[256];
    json_value *v = json_parse(text, error, sizeof error);
    if (!v) fprintf(stderr, "%s: invalid JSON: %s\n", path, error);
    free(text);
    return v;
}

/* Required keys (CLI.md) and their JSON types. */
static const struct {
    const char *path;
    json_type type;
} required[] = {
    {"grid.size", JSON_ARRAY},
    {"grid.scale", JSON_NUMBER},
    {"grid.center", JSON_ARRAY},
    {"grid.boundary_points", JSON_NUMBER},
    {"grid.charged_points", JSON_NUMBER},
    {"solver.backend", JSON_STRING},
    {"solver.precision", JSON_STRING},
    {"solver.equation", JSON_STRING},
    {"solver.method", JSON_STRING},
    {"solver.method_reason", JSON_STRING},
    {"solver.iterations", JSON_NUMBER},
    {"solver.converged", JSON_BOOL},
    {"solver.outcome", JSON_STRING},
    {"solver.max_change", JSON_NUMBER},
    {"energies_kT.grid", JSON_NUMBER},
    {"energies_kT.coulombic", JSON_NUMBER},
    {"energies_kT.reaction_field_corrected", JSON_NUMBER},
    {"energies_kT.ionic", JSON_NULL}, /* not computed in this run */
    {"timing_s.setup", JSON_NUMBER},
    {"timing_s.solve", JSON_NUMBER},
    {"timing_s.energies", JSON_NUMBER},
    {"timing_s.total", JSON_NUMBER},
};

static void fill(run_summary *r) {
    run_summary_init(r);
    snprintf(r->version, sizeof r->version, "0.1.0");
    snprintf(r->molecule_file, sizeof r->molecule_file, "1ubq.pqr");
    r->atoms = 1231;
    r->net_charge = 0.0;
    r->grid_size[0] = 65, r->grid_size[1] = 65, r->grid_size[2] = 67;
    r->grid_scale = 2.0;
    r->grid_center[0] = 30.5, r->grid_center[1] = -1.25, r->grid_center[2] = 1e-3;
    r->boundary_points = 12345;
    r->charged_points = 6789;
    snprintf(r->backend, sizeof r->backend, "cpu");
    snprintf(r->precision, sizeof r->precision, "double");
    snprintf(r->equation, sizeof r->equation, "poisson");
    snprintf(r->method, sizeof r->method, "multigrid");
    snprintf(r->method_reason, sizeof r->method_reason,
             "multigrid: solver AUTO, linear equation, 65x65x67 grid");
    r->iterations = 480;
    r->converged = 1;
    snprintf(r->outcome, sizeof r->outcome, "converged");
    r->max_change = 3.5e-5;
    r->energy_grid = 1234.5678901234567;
    r->energy_coulombic = -2345.25;
    r->energy_reaction_field_corrected = -1.0e-300;
    r->time_setup = 0.5, r->time_solve = 2.25, r->time_energies = 0.125, r->time_total = 2.875;
    r->exit_status = 0;
}

static void test_required_keys(void) {
    run_summary r;
    fill(&r);
    io_error err;
    CHECK_OK(run_summary_write("summary.json", &r, &err), err);
    json_value *root = load_json("summary.json");
    CHECK(root != NULL);
    if (!root) return;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        const json_value *v = json_get(root, required[i].path);
        if (!v || v->type != required[i].type)
            fprintf(stderr, "key %s: %s\n", required[i].path, v ? "wrong type" : "missing");
        CHECK(v && v->type == required[i].type);
    }
    const json_value *size = json_get(root, "grid.size");
    CHECK(size && size->count == 3 && size->items[2]->number == 67);
    const json_value *center = json_get(root, "grid.center");
    CHECK(center && center->count == 3 && center->items[1]->number == -1.25);
    CHECK(json_get(root, "energies_kT.grid")->number == 1234.5678901234567); /* %.17g: exact */
    CHECK(json_get(root, "energies_kT.reaction_field_corrected")->number == -1.0e-300);
    CHECK(json_get(root, "solver.converged")->number == 1);
    CHECK(strcmp(json_get(root, "solver.outcome")->string, "converged") == 0);
    CHECK(json_get(root, "energies_kT.solvation_two_run") == NULL); /* absent */
    CHECK(json_get(root, "input.atoms")->number == 1231);
    CHECK(json_get(root, "parameters") == NULL);
    json_free(root);
}

static void test_nulls_and_strings(void) {
    run_summary r;
    fill(&r);
    io_notes notes;
    io_notes_clear(&notes);
    io_note(&notes, IO_NOTE_WARNING, "quote \" backslash \\ newline\n tab\t bell\a end");
    io_note(&notes, IO_NOTE_INFO, "bad utf-8 \xff\xfe ok utf-8 \xc3\x85ngstr\xc3\xb6m");
    r.notes = &notes;
    run_settings s;
    settings_defaults(&s);
    r.settings = &s;
    r.has_solvation_two_run = 1;
    r.energy_solvation_two_run = NAN;
    r.energy_coulombic = INFINITY;
    r.converged = 0;
    r.iterations = -1;
    snprintf(r.molecule_file, sizeof r.molecule_file, "dir with \"quotes\"/m.pqr");
    io_error err;
    CHECK_OK(run_summary_write("nulls.json", &r, &err), err);
    json_value *root = load_json("nulls.json");
    CHECK(root != NULL);
    if (!root) return;
    const json_value *v = json_get(root, "energies_kT.solvation_two_run");
    CHECK(v && v->type == JSON_NULL);
    CHECK(json_get(root, "energies_kT.coulombic")->type == JSON_NULL);
    CHECK(json_get(root, "solver.iterations")->type == JSON_NULL);
    CHECK(json_get(root, "solver.converged")->type == JSON_BOOL &&
          json_get(root, "solver.converged")->number == 0);
    CHECK(strcmp(json_get(root, "input.molecule")->string, "dir with \"quotes\"/m.pqr") == 0);
    const json_value *n = json_get(root, "notes");
    CHECK(n && n->type == JSON_ARRAY && n->count == 2);
    if (n && n->count == 2) {
        CHECK(strcmp(n->items[0]->string, "quote \" backslash \\ newline\n tab\t bell\a end") == 0);
        CHECK(strstr(n->items[1]->string, "\xef\xbf\xbd") != NULL);           /* U+FFFD */
        CHECK(strstr(n->items[1]->string, "\xc3\x85ngstr\xc3\xb6m") != NULL); /* kept */
    }
    CHECK(json_get(root, "parameters.indi")->number == 2.0);
    CHECK(json_get(root, "parameters.gsize")->type == JSON_NULL);
    json_free(root);
    CHECK(count_names_containing(".", ".tmp-") == 0);

    /* Python's strict json module agrees (stdlib only), when the interpreter is there. */
    if (file_exists(HOST_IO_PYTHON)) {
        int rc =
            system(HOST_IO_PYTHON " -c 'import json,sys\n"
                                  "for f in sys.argv[1:]: json.load(open(f, encoding=\"utf-8\"))'"
                                  " summary.json nulls.json");
        CHECK(rc == 0);
    }
}

/* The checker itself rejects invalid JSON (so the checks above can fail). */
static void test_checker(void) {
    const char *bad[] = {"{",          "{\"a\":1,}",  "[1 2]",         "nan",
                         "{\"a\":01}", "{\"a\":1} x", "\"tab\there\"", "{a:1}",
                         "[1.]",       "-",           "\"\\x\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char error[128];
        json_value *v = json_parse(bad[i], error, sizeof error);
        CHECK(v == NULL);
        json_free(v);
    }
    char error[128];
    json_value *v =
        json_parse(" {\"a\": [1, -2.5e3, true, null, \"\\u00e5\"]} ", error, sizeof error);
    CHECK(v && json_get(v, "a")->count == 5 && json_get(v, "a")->items[1]->number == -2500);
    json_free(v);
}

int main(void) {
    test_enter_scratch("json");
    test_required_keys();
    test_nulls_and_strings();
    test_checker();
    return test_finish("host_io_json");
}
