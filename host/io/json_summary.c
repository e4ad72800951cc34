/* JSON summary writer.  Strings are escaped (invalid UTF-8 becomes U+FFFD), non-finite numbers
 * become null, and the file is written atomically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_settings.h"
#include "io_summary.h"

void run_summary_init(run_summary *r) {
    memset(r, 0, sizeof *r);
    const double unset = NAN;
    r->atoms = r->boundary_points = r->charged_points = r->iterations = -1;
    r->net_charge = r->grid_scale = unset;
    for (int k = 0; k < 3; k++) {
        r->grid_size[k] = -1;
        r->grid_center[k] = unset;
    }
    r->converged = -1;
    r->max_change = r->rms_change = r->spectral_radius = r->omega = unset;
    r->energy_grid = r->energy_coulombic = r->energy_reaction_field_corrected = unset;
    r->energy_ionic = r->energy_self_reaction = r->energy_total_reaction_field = unset;
    r->energy_solvation_two_run = unset;
    r->time_setup = r->time_solve = r->time_energies = r->time_total = unset;
    r->time_read = r->time_grid = r->time_surface = r->time_medium = unset;
    r->time_charges = r->time_boundary = r->time_reference = r->time_coarse = unset;
    r->exit_status = -1;
}

/* Length of a valid UTF-8 sequence at s, or 0. */
static int utf8_length(const unsigned char *s) {
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5) return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    /* Overlong forms, UTF-16 surrogates and code points above U+10FFFF are invalid too. */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

static void put_string(FILE *fp, const char *text) {
    if (!text || !text[0]) {
        fputs("null", fp);
        return;
    }
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', fp);
            fputc(*p++, fp);
        } else if (*p == '\n') {
            fputs("\\n", fp);
            p++;
        } else if (*p == '\t') {
            fputs("\\t", fp);
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(fp, "\\u%04x", *p++);
        } else if (*p < 0x80) {
            fputc(*p++, fp);
        } else {
            int n = utf8_length(p);
            if (n == 0) {
                fputs("\\ufffd", fp);
                p++;
            } else {
                fwrite(p, 1, (size_t)n, fp);
                p += n;
            }
        }
    }
    fputc('"', fp);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double. */
static void put_number(FILE *fp, double v) {
    if (!isfinite(v)) {
        fputs("null", fp);
        return;
    }
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    fputs(text, fp);
}

static void put_count(FILE *fp, long v) {
    if (v >= 0)
        fprintf(fp, "%ld", v);
    else
        fputs("null", fp);
}

static void key(FILE *fp, int indent, const char *name, int *first) {
    fprintf(fp, "%s\n%*s\"%s\": ", *first ? "" : ",", indent, "", name);
    *first = 0;
}

static void put_parameters(FILE *fp, const run_settings *s) {
    int f = 1;
    fputc('{', fp);
    key(fp, 4, "gsize", &f);
    put_count(fp, s->gsize_given ? s->gsize : -1);
    key(fp, 4, "scale", &f);
    put_number(fp, s->scale_given ? s->scale : NAN);
    key(fp, 4, "perfil", &f);
    put_number(fp, s->perfil_given ? s->perfil : NAN);
    key(fp, 4, "indi", &f);
    put_number(fp, s->indi);
    key(fp, 4, "exdi", &f);
    put_number(fp, s->exdi);
    key(fp, 4, "prbrad", &f);
    put_number(fp, s->prbrad);
    key(fp, 4, "ionrad", &f);
    put_number(fp, s->ionrad);
    key(fp, 4, "salt", &f);
    put_number(fp, s->salt);
    key(fp, 4, "salt2", &f);
    put_number(fp, s->salt2);
    key(fp, 4, "temperature_K", &f);
    put_number(fp, s->temperature);
    key(fp, 4, "bndcon", &f);
    fprintf(fp, "%d", s->bndcon);
    key(fp, 4, "surface", &f);
    put_string(fp, s->surface == SURFACE_VDW ? "vdw" : "molecular");
    key(fp, 4, "coarse_scale", &f);
    put_number(fp, s->coarse_scale > 0.0 ? s->coarse_scale : NAN);
    key(fp, 4, "coarse_perfil", &f);
    put_number(fp, s->coarse_perfil > 0.0 ? s->coarse_perfil : NAN);
    fprintf(fp, "\n  }");
}

/* An object of energy terms at the given indent; with_sum adds coulombic_plus_reaction_field. */
static void put_terms(FILE *fp, int indent, const summary_energy_terms *e, int with_sum) {
    int f = 1;
    fputc('{', fp);
    key(fp, indent, "grid", &f);
    put_number(fp, e->grid);
    key(fp, indent, "coulombic", &f);
    put_number(fp, e->coulombic);
    key(fp, indent, "reaction_field_corrected", &f);
    put_number(fp, e->reaction_field_corrected);
    if (with_sum) {
        key(fp, indent, "coulombic_plus_reaction_field", &f);
        put_number(fp, e->coulombic + e->reaction_field_corrected);
    }
    key(fp, indent, "ionic", &f);
    put_number(fp, e->ionic);
    key(fp, indent, "self_reaction", &f);
    put_number(fp, e->self_reaction);
    key(fp, indent, "solvation_two_run", &f);
    put_number(fp, e->solvation_two_run);
    fprintf(fp, "\n%*s}", indent - 2, "");
}

static void put_binding(FILE *fp, const run_summary *r) {
    int f = 1;
    fputc('{', fp);
    key(fp, 4, "energy_kT", &f);
    put_number(fp, r->binding_energy);
    key(fp, 4, "salt_kT", &f);
    put_number(fp, r->binding_salt);
    key(fp, 4, "grid_energy_kT", &f);
    put_number(fp, r->binding_grid_energy);
    key(fp, 4, "difference_kT", &f);
    put_terms(fp, 6, &r->binding_difference, 1);
    key(fp, 4, "partners", &f);
    fputc('[', fp);
    for (int k = 0; k < 2; ++k) {
        const summary_partner *p = &r->binding_partner[k];
        int g = 1;
        fprintf(fp, "%s\n      {", k ? "," : "");
        key(fp, 8, "selection", &g);
        put_string(fp, p->selection);
        key(fp, 8, "atoms", &g);
        put_count(fp, p->atoms);
        key(fp, 8, "net_charge", &g);
        put_number(fp, p->net_charge);
        key(fp, 8, "iterations", &g);
        put_count(fp, p->iterations);
        key(fp, 8, "converged", &g);
        fputs(p->converged ? "true" : "false", fp);
        key(fp, 8, "energies_kT", &g);
        put_terms(fp, 10, &p->energies, 0);
        fprintf(fp, "\n      }");
    }
    fprintf(fp, "\n    ]\n  }");
}

static void put_focusing(FILE *fp, const run_summary *r) {
    int f = 1;
    fputc('{', fp);
    key(fp, 4, "coarse_grid", &f);
    fprintf(fp, "{\"size\": [%d, %d, %d], \"scale\": ", r->coarse_size, r->coarse_size,
            r->coarse_size);
    put_number(fp, r->coarse_scale);
    fputs(", \"perfil\": ", fp);
    put_number(fp, r->coarse_perfil);
    fputc('}', fp);
    key(fp, 4, "boundary", &f);
    put_string(fp, r->coarse_boundary);
    key(fp, 4, "iterations", &f);
    put_count(fp, r->coarse_iterations);
    key(fp, 4, "converged", &f);
    fputs(r->coarse_converged ? "true" : "false", fp);
    key(fp, 4, "outcome", &f);
    put_string(fp, r->coarse_outcome);
    fprintf(fp, "\n  }");
}

int run_summary_write(const char *path, const run_summary *r, io_error *err) {
    atomic_file af;
    int rc = atomic_file_open(&af, path, 0, err);
    if (rc) return rc;
    FILE *fp = af.fp;
    int top = 1, f;

    fputc('{', fp);
    key(fp, 2, "program", &top);
    fprintf(fp, "{\"name\": \"delphi-gpu\", \"version\": ");
    put_string(fp, r->version);
    fputc('}', fp);

    key(fp, 2, "input", &top);
    f = 1;
    fputc('{', fp);
    key(fp, 4, "molecule", &f);
    put_string(fp, r->molecule_file);
    key(fp, 4, "atoms", &f);
    put_count(fp, r->atoms);
    key(fp, 4, "net_charge", &f);
    put_number(fp, r->net_charge);
    fprintf(fp, "\n  }");

    if (r->settings) {
        key(fp, 2, "parameters", &top);
        put_parameters(fp, r->settings);
    }

    key(fp, 2, "grid", &top);
    f = 1;
    fputc('{', fp);
    key(fp, 4, "size", &f);
    if (r->grid_size[0] > 0)
        fprintf(fp, "[%d, %d, %d]", r->grid_size[0], r->grid_size[1], r->grid_size[2]);
    else
        fputs("null", fp);
    key(fp, 4, "scale", &f);
    put_number(fp, r->grid_scale);
    key(fp, 4, "center", &f);
    fputc('[', fp);
    for (int k = 0; k < 3; k++) {
        put_number(fp, r->grid_center[k]);
        if (k < 2) fputs(", ", fp);
    }
    fputc(']', fp);
    key(fp, 4, "boundary_points", &f);
    put_count(fp, r->boundary_points);
    key(fp, 4, "charged_points", &f);
    put_count(fp, r->charged_points);
    fprintf(fp, "\n  }");

    key(fp, 2, "focusing", &top);
    if (r->has_focusing)
        put_focusing(fp, r);
    else
        fputs("null", fp);

    key(fp, 2, "solver", &top);
    f = 1;
    fputc('{', fp);
    key(fp, 4, "backend", &f);
    put_string(fp, r->backend);
    key(fp, 4, "backend_reason", &f);
    put_string(fp, r->backend_reason);
    key(fp, 4, "precision", &f);
    put_string(fp, r->precision);
    key(fp, 4, "equation", &f);
    put_string(fp, r->equation);
    key(fp, 4, "periodic", &f);
    put_string(fp, r->periodic);
    key(fp, 4, "method", &f);
    put_string(fp, r->method); /* null when unknown */
    key(fp, 4, "method_reason", &f);
    put_string(fp, r->method_reason);
    key(fp, 4, "iterations", &f);
    put_count(fp, r->iterations);
    key(fp, 4, "converged", &f);
    fputs(r->converged < 0 ? "null" : r->converged ? "true" : "false", fp);
    key(fp, 4, "outcome", &f);
    put_string(fp, r->outcome);
    key(fp, 4, "max_change", &f);
    put_number(fp, r->max_change);
    key(fp, 4, "rms_change", &f);
    put_number(fp, r->rms_change);
    key(fp, 4, "spectral_radius", &f);
    put_number(fp, r->spectral_radius);
    key(fp, 4, "omega", &f);
    put_number(fp, r->omega);
    fprintf(fp, "\n  }");

    key(fp, 2, "energies_kT", &top);
    f = 1;
    fputc('{', fp);
    key(fp, 4, "grid", &f);
    put_number(fp, r->energy_grid);
    key(fp, 4, "coulombic", &f);
    put_number(fp, r->energy_coulombic);
    key(fp, 4, "reaction_field_corrected", &f);
    put_number(fp, r->energy_reaction_field_corrected);
    key(fp, 4, "ionic", &f);
    put_number(fp, r->energy_ionic);
    key(fp, 4, "self_reaction", &f);
    put_number(fp, r->energy_self_reaction);
    key(fp, 4, "total_reaction_field", &f);
    put_number(fp, r->energy_total_reaction_field);
    if (r->has_solvation_two_run) {
        key(fp, 4, "solvation_two_run", &f);
        put_number(fp, r->energy_solvation_two_run);
    }
    fprintf(fp, "\n  }");

    key(fp, 2, "binding", &top);
    if (r->has_binding)
        put_binding(fp, r);
    else
        fputs("null", fp);

    key(fp, 2, "timing_s", &top);
    f = 1;
    fputc('{', fp);
    const char *names[12] = {"setup",   "solve",  "energies", "total",    "read",      "grid",
                             "surface", "medium", "charges",  "boundary", "reference", "coarse"};
    const double times[12] = {r->time_setup,   r->time_solve,    r->time_energies,  r->time_total,
                              r->time_read,    r->time_grid,     r->time_surface,   r->time_medium,
                              r->time_charges, r->time_boundary, r->time_reference, r->time_coarse};
    for (int i = 0; i < 12; i++) {
        key(fp, 4, names[i], &f);
        put_number(fp, times[i]);
    }
    fprintf(fp, "\n  }");

    key(fp, 2, "exit_status", &top);
    if (r->exit_status >= 0)
        fprintf(fp, "%d", r->exit_status);
    else
        fputs("null", fp);

    key(fp, 2, "notes", &top);
    fputc('[', fp);
    if (r->notes) {
        for (int i = 0; i < r->notes->count; i++) {
            fprintf(fp, "%s\n    ", i ? "," : "");
            put_string(fp, r->notes->text[i]);
        }
        if (r->notes->dropped)
            fprintf(fp, "%s\n    \"(%d more notes were not kept)\"", r->notes->count ? "," : "",
                    r->notes->dropped);
        if (r->notes->count || r->notes->dropped) fprintf(fp, "\n  ");
    }
    fprintf(fp, "]\n}\n");
    return atomic_file_commit(&af, err);
}
