/* Default run settings: DelPhi's plus the module's own. */
#include <string.h>

#include "io_settings.h"

void settings_defaults(run_settings *s) {
    memset(s, 0, sizeof *s);

    /* Grid: gsize is derived from scale and perfil unless given. */
    s->gsize = 0;
    s->scale = 1.2;
    s->perfil = 80.0;
    s->center_mode = 0;

    /* Medium. */
    s->indi = 2.0;
    s->exdi = 80.0;
    s->prbrad = 1.4;
    s->ionrad = 2.0;
    s->salt = 0.0;
    s->salt2 = 0.0;
    for (int i = 0; i < 4; i++)
        s->valence[i] = 1;
    s->temperature = 297.3342;
    s->surface = SURFACE_MOLECULAR;

    s->bndcon = BC_DIPOLAR;

    /* Solver: automatic iteration count, no stopping criterion, adaptive relaxation. */
    s->linit = 0;
    s->nonit = 0;
    s->maxc = s->rmsc = s->normc = 0.0;
    s->relfac = 0.0;
    s->relpar = 1.0;
    s->conint = 10;
    s->confra = 1;
    s->backend = 0;   /* DG_BACKEND_AUTO */
    s->precision = 0; /* DG_PRECISION_DOUBLE */
    s->device = 0;
    s->threads = 0;
    s->solver = SETTINGS_DEFAULT_SOLVER;
    s->nonlinear_method = NONLINEAR_NEWTON;
    s->autoc = 1;
    s->grdcon = 0.0;
    s->atpods = 0.5;

    /* No energies requested until energy(...) or --energy says so. */
    s->energy_grid = s->energy_solvation = s->energy_coulombic = s->energy_ionic = 0;
}

const char *io_map_format_name(int format) {
    switch (format) {
    case MAP_DELPHI:
        return "delphi";
    case MAP_DX:
        return "dx";
    case MAP_CUBE:
        return "cube";
    case MAP_MRC:
        return "mrc";
    default:
        return "unknown";
    }
}
