/* dg_calc_params: defaults and the checks dg_calc_create makes (every field, by name). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calc_checks.h"
#include "physics_constants.h"
#include "solver_internal.h"

void dg_calc_default_params(dg_calc_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->struct_size = (int)sizeof *p;
    p->version = DG_CALC_PARAMS_VERSION;
    p->scale = 2.0;
    p->perfil = 80.0;
    p->center_mode = DG_CENTER_BOX;
    p->epsilon_in = 2.0, p->epsilon_out = 80.0;
    p->probe_radius = 1.4, p->ion_radius = 2.0;
    p->surface = DG_SURFACE_MOLECULAR;
    p->temperature = DEFAULT_TEMPERATURE;
    for (int k = 0; k < 2; ++k)
        p->salts[k].cation_valence = p->salts[k].anion_valence = 1;
    p->boundary = DG_BOUNDARY_DIPOLAR;
    p->energies = DG_ENERGY_GRID;
    dg_default_options(&p->solver);
}

#define REJECT(status, ...) return snprintf(msg, size, __VA_ARGS__), (status)

static int check_positive(const char *name, double v, char *msg, size_t size) {
    if (!isfinite(v)) REJECT(DG_ERR_NONFINITE_INPUT, "%s = %g (must be finite)", name, v);
    if (!(v > 0.0)) REJECT(DG_ERR_INVALID_ARGUMENT, "%s = %g (must be > 0)", name, v);
    return DG_OK;
}

static int check_salts(const dg_calc_params *p, char *msg, size_t size) {
    if (p->salt_count < 0 || p->salt_count > 2)
        REJECT(DG_ERR_INVALID_ARGUMENT, "salt_count = %d (must be 0, 1 or 2)", p->salt_count);
    for (int k = 0; k < p->salt_count; ++k) {
        const dg_salt *s = &p->salts[k];
        if (!isfinite(s->concentration))
            REJECT(DG_ERR_NONFINITE_INPUT, "salts[%d].concentration = %g", k, s->concentration);
        if (s->concentration < 0.0)
            REJECT(DG_ERR_INVALID_ARGUMENT, "salts[%d].concentration = %g (must be >= 0)", k,
                   s->concentration);
        if (s->cation_valence < 1 || s->cation_valence > 4 || s->anion_valence < 1 ||
            s->anion_valence > 4)
            REJECT(DG_ERR_INVALID_ARGUMENT, "salts[%d] valences %d:%d (must be 1..4)", k,
                   s->cation_valence, s->anion_valence);
    }
    return DG_OK;
}

/* Focusing in one run: one of coarse_scale and coarse_perfil, with boundary values of its own
 * on the coarse grid and no periodic axis. */
static int check_coarse(const dg_calc_params *p, char *msg, size_t size) {
    if (!isfinite(p->coarse_scale) || p->coarse_scale < 0.0)
        REJECT(DG_ERR_INVALID_ARGUMENT, "coarse_scale = %g (must be >= 0; 0 = none)",
               p->coarse_scale);
    if (!(p->coarse_perfil >= 0.0 && p->coarse_perfil < 100.0))
        REJECT(DG_ERR_INVALID_ARGUMENT, "coarse_perfil = %g (must be in (0, 100); 0 = none)",
               p->coarse_perfil);
    if (p->coarse_scale == 0.0 && p->coarse_perfil == 0.0) return DG_OK;
    if (p->coarse_scale > 0.0 && p->coarse_perfil > 0.0)
        REJECT(DG_ERR_INVALID_ARGUMENT,
               "coarse_scale = %g and coarse_perfil = %g: give one of them", p->coarse_scale,
               p->coarse_perfil);
    if (p->boundary == DG_BOUNDARY_FOCUSING)
        REJECT(DG_ERR_INVALID_ARGUMENT,
               "boundary = %d (focusing from a map) with coarse_%s (focusing from a coarse "
               "solve): the coarse grid needs boundary values of its own (1 zero, 2 dipolar, 4 "
               "Coulombic)",
               p->boundary, p->coarse_scale > 0.0 ? "scale" : "perfil");
    if (p->solver.periodic)
        REJECT(DG_ERR_UNSUPPORTED,
               "coarse_%s (focusing) with periodic axes (solver.periodic = %d): a coarse grid "
               "has another period",
               p->coarse_scale > 0.0 ? "scale" : "perfil", p->solver.periodic);
    return DG_OK;
}

int calc_check_params(const dg_calc_params *p, char *msg, size_t size) {
    if (!p) REJECT(DG_ERR_INVALID_ARGUMENT, "params is NULL");
    if (p->struct_size != (int)sizeof *p)
        REJECT(DG_ERR_INVALID_ARGUMENT,
               "struct_size = %d (expected %d: use dg_calc_default_params)", p->struct_size,
               (int)sizeof *p);
    if (p->version != DG_CALC_PARAMS_VERSION)
        REJECT(DG_ERR_INVALID_ARGUMENT, "version = %d (this library has %d)", p->version,
               DG_CALC_PARAMS_VERSION);
    if (!isfinite(p->scale) || p->scale < 0.0)
        REJECT(DG_ERR_INVALID_ARGUMENT, "scale = %g (must be > 0)", p->scale);
    if (p->scale == 0.0 && p->grid_size <= 0)
        REJECT(DG_ERR_INVALID_ARGUMENT, "scale = 0 (derived from grid_size) needs grid_size > 0");
    if (!(p->perfil >= 0.0 && p->perfil <= 100.0))
        REJECT(DG_ERR_INVALID_ARGUMENT, "perfil = %g (must be in (0, 100])", p->perfil);
    if (p->grid_size < 0 || (p->grid_size > 0 && p->grid_size < DG_MIN_GRID_SIZE))
        REJECT(DG_ERR_INVALID_GRID, "grid_size = %d (0, or at least %d)", p->grid_size,
               DG_MIN_GRID_SIZE);
    if (p->center_mode < DG_CENTER_BOX || p->center_mode > DG_CENTER_OFFSET)
        REJECT(DG_ERR_INVALID_ARGUMENT, "center_mode = %d (0 box, 1 absolute, 2 offset)",
               p->center_mode);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(p->center[a]))
            REJECT(DG_ERR_NONFINITE_INPUT, "center[%d] = %g", a, p->center[a]);
    int st;
    if ((st = check_positive("epsilon_in", p->epsilon_in, msg, size)) != DG_OK) return st;
    if ((st = check_positive("epsilon_out", p->epsilon_out, msg, size)) != DG_OK) return st;
    if ((st = check_positive("temperature", p->temperature, msg, size)) != DG_OK) return st;
    if (!isfinite(p->probe_radius) || p->probe_radius < 0.0)
        REJECT(DG_ERR_INVALID_ARGUMENT, "probe_radius = %g (must be >= 0)", p->probe_radius);
    if (!isfinite(p->ion_radius) || p->ion_radius < 0.0)
        REJECT(DG_ERR_INVALID_ARGUMENT, "ion_radius = %g (must be >= 0)", p->ion_radius);
    if (p->surface != DG_SURFACE_MOLECULAR && p->surface != DG_SURFACE_VDW)
        REJECT(DG_ERR_INVALID_ARGUMENT, "surface = %d (0 molecular, 1 van der Waals)", p->surface);
    if ((st = check_salts(p, msg, size)) != DG_OK) return st;
    if (p->boundary < DG_BOUNDARY_ZERO || p->boundary > DG_BOUNDARY_COULOMBIC)
        REJECT(DG_ERR_INVALID_ARGUMENT,
               "boundary = %d (1 zero, 2 dipolar, 3 focusing, 4 Coulombic)", p->boundary);
    if (p->energies &
        ~(DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD | DG_ENERGY_IONIC))
        REJECT(DG_ERR_INVALID_ARGUMENT, "energies = %d (bits of dg_energy_flag)", p->energies);
    if (p->solvation_two_run != 0 && p->solvation_two_run != 1)
        REJECT(DG_ERR_INVALID_ARGUMENT, "solvation_two_run = %d (0 or 1)", p->solvation_two_run);
    /* The solver's options as dg_create checks them, so that dg_calc_set_params, which may keep
       the solver, refuses what dg_calc_create refuses. */
    char solver_msg[512];
    const int solver_st = dg_validate_options(&p->solver, solver_msg, sizeof solver_msg);
    if (solver_st != DG_OK) REJECT(solver_st, "solver: %s", solver_msg);
    return check_coarse(p, msg, size);
}
