/* The public calculation layer (delphi_gpu_calc.h) on the CPU: defaults and parameter checks
 * (messages name the field), call order, and re-runs on one handle (new positions, new
 * charges, new parameters) against fresh handles computing the same thing from scratch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calculation.h"
#include "check.h"
#include "test_support.h"

/* Four atoms: a small charged cluster. */
static const double xyz[12] = {0, 0, 0, 1.6, 0.2, 0, -0.4, 1.5, 0.3, 0.5, -0.6, 1.4};
static const double charge[4] = {0.5, -0.4, 0.3, -0.6}, radius[4] = {1.7, 1.5, 1.6, 0};

static void fixed_grid_params(dg_calc_params *p) {
    dg_calc_default_params(p);
    p->grid_size = 33, p->scale = 3.0, p->perfil = 0;
    p->center_mode = DG_CENTER_ABSOLUTE; /* the grid stays put whatever the atoms */
    p->center[0] = 0.3, p->center[1] = 0.4, p->center[2] = 0.5;
    p->boundary = DG_BOUNDARY_COULOMBIC;
    p->energies = DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
    p->solver.backend = DG_BACKEND_CPU;
    p->solver.max_change_tol = 1e-7;
}

/* A fresh handle's run on the given atoms. */
static int fresh_run(const dg_calc_params *p, const double *pos, const double *q,
                     dg_calc_result *r) {
    dg_calc c = NULL;
    int st = dg_calc_create(&c, p);
    const dg_atoms atoms = {4, pos, q, radius};
    if (st == DG_OK) st = dg_calc_set_atoms(c, &atoms);
    if (st == DG_OK) st = dg_calc_run(c, r);
    if (st != DG_OK) fprintf(stderr, "fresh run: %s\n", dg_calc_last_error(c));
    dg_calc_destroy(c);
    return st;
}

static void same_energies(const dg_calc_result *a, const dg_calc_result *b) {
    CHECK_REL(a->energies.grid, b->energies.grid, 1e-12);
    CHECK_REL(a->energies.coulombic, b->energies.coulombic, 1e-12);
    CHECK_REL(a->energies.reaction_field, b->energies.reaction_field, 1e-12);
    CHECK(a->solve.iterations == b->solve.iterations);
    CHECK(a->boundary_points == b->boundary_points && a->charged_points == b->charged_points);
}

static void check_params(void) {
    dg_calc_params p;
    dg_calc_default_params(&p);
    CHECK(p.struct_size == (int)sizeof p && p.version == DG_CALC_PARAMS_VERSION);
    CHECK(p.scale == 2.0 && p.perfil == 80.0 && p.epsilon_in == 2.0 && p.epsilon_out == 80.0);
    CHECK(p.boundary == DG_BOUNDARY_DIPOLAR && p.energies == DG_ENERGY_GRID);
    CHECK(p.solver.struct_size == (int)sizeof p.solver);
    dg_calc c = NULL;
    p.epsilon_in = -1;
    CHECK(dg_calc_create(&c, &p) == DG_ERR_INVALID_ARGUMENT && c != NULL);
    CHECK(strstr(dg_calc_last_error(c), "epsilon_in") != NULL);
    CHECK(dg_calc_run(c, NULL) == DG_ERR_STATE); /* a failed handle refuses work */
    dg_calc_destroy(c);
    dg_calc_default_params(&p);
    p.salt_count = 1, p.salts[0].concentration = 0.1, p.salts[0].anion_valence = 7;
    CHECK(dg_calc_create(&c, &p) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "salts[0]") != NULL);
    dg_calc_destroy(c);
    dg_calc_default_params(&p);
    p.boundary = 9;
    CHECK(dg_calc_create(&c, &p) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "boundary = 9") != NULL);
    dg_calc_destroy(c);
    dg_calc_default_params(&p);
    p.struct_size = 8;
    CHECK(dg_calc_create(&c, &p) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "struct_size") != NULL);
    dg_calc_destroy(c);
    CHECK(strlen(dg_calc_last_error(NULL)) > 0);
}

/* dg_calc_reaction_potentials_at and dg_calc_coulombic_potentials_at: their order of calls,
 * argument checks, and their sums at the atoms against the energies. */
static void check_site_sums(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    double v[5];
    CHECK(dg_calc_coulombic_potentials_at(c, xyz, 1, v) == DG_ERR_STATE);
    CHECK(strstr(dg_calc_last_error(c), "no atoms") != NULL);
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 1, v) == DG_ERR_STATE);
    const dg_atoms atoms = {4, xyz, charge, radius};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    /* The Coulombic potential needs the atoms only; far away it is epkt/eps_in sum q/r. */
    const double far[3] = {40.0, -25.0, 7.0};
    CHECK(dg_calc_coulombic_potentials_at(c, far, 1, v) == DG_OK);
    double direct = 0.0;
    for (int i = 0; i < 4; ++i)
        direct += charge[i] / sqrt(pow(far[0] - xyz[3 * i], 2) + pow(far[1] - xyz[3 * i + 1], 2) +
                                   pow(far[2] - xyz[3 * i + 2], 2));
    CHECK_REL(v[0], 166804.4928 / p.temperature / p.epsilon_in * direct, 1e-13);
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 1, v) == DG_ERR_STATE); /* no run yet */
    dg_calc_result r;
    CHECK(dg_calc_run(c, &r) == DG_OK);
    /* At the atoms, half the charge-weighted sums are the energies. */
    double rp[4], cp[4];
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 4, rp) == DG_OK);
    CHECK(dg_calc_coulombic_potentials_at(c, xyz, 4, cp) == DG_OK);
    double rsum = 0.0, csum = 0.0;
    for (int i = 0; i < 4; ++i)
        rsum += 0.5 * charge[i] * rp[i], csum += 0.5 * charge[i] * cp[i];
    CHECK_REL(rsum, r.energies.reaction_field, 1e-12);
    CHECK_REL(csum, r.energies.coulombic, 1e-12);
    /* The induced charges themselves: their count, total, and potential at the first atom. */
    long count = -1;
    CHECK(dg_calc_induced_charges(c, &count, NULL, NULL) == DG_OK);
    CHECK(count == r.boundary_points && count > 0);
    double *where = malloc((size_t)(3 * count + 1) * sizeof *where);
    double *sigma = malloc((size_t)(count + 1) * sizeof *sigma);
    CHECK(where && sigma && dg_calc_induced_charges(c, &count, where, sigma) == DG_OK);
    double total = 0.0, at_first = 0.0;
    for (long k = 0; where && sigma && k < count; ++k) {
        total += sigma[k];
        at_first +=
            sigma[k] / sqrt(pow(xyz[0] - where[3 * k], 2) + pow(xyz[1] - where[3 * k + 1], 2) +
                            pow(xyz[2] - where[3 * k + 2], 2));
    }
    CHECK_REL(total, r.induced_charge, 1e-12);
    CHECK_REL(166804.4928 / p.temperature * at_first, rp[0], 1e-12);
    free(where), free(sigma);
    CHECK(dg_calc_induced_charges(c, NULL, NULL, NULL) == DG_ERR_INVALID_ARGUMENT);
    /* Far away (well outside the grid: the sums are analytic) the induced charges act as their
       total at the molecule (their dipole, about 7 A times the total, adds 0.5 % at 1 400 A). */
    const double away[3] = {1200.0, -700.0, 250.0};
    CHECK(dg_calc_reaction_potentials_at(c, away, 1, v) == DG_OK);
    const double distance = sqrt(pow(away[0] - 0.425, 2) + pow(away[1] - 0.275, 2) +
                                 pow(away[2] - 0.425, 2)); /* from the atoms' centroid */
    printf("reaction potential far away %.6f kT/e; its total induced charge %.6f e gives %.6f\n",
           v[0], r.induced_charge, 166804.4928 / p.temperature * r.induced_charge / distance);
    CHECK_REL(v[0], 166804.4928 / p.temperature * r.induced_charge / distance, 0.01);
    /* Arguments: NULL output, negative count, a non-finite coordinate named; zero points. */
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 1, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_calc_coulombic_potentials_at(c, NULL, 2, v) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_calc_coulombic_potentials_at(c, xyz, -1, v) == DG_ERR_INVALID_ARGUMENT);
    const double bad[6] = {0, 0, 0, 1, 2, INFINITY};
    CHECK(dg_calc_reaction_potentials_at(c, bad, 2, v) == DG_ERR_NONFINITE_INPUT);
    CHECK(strstr(dg_calc_last_error(c), "point 2: coordinate z") != NULL);
    CHECK(dg_calc_coulombic_potentials_at(c, bad, 2, v) == DG_ERR_NONFINITE_INPUT);
    CHECK(dg_calc_reaction_potentials_at(c, NULL, 0, v) == DG_OK);
    /* New charges: no completed run until the next one. */
    CHECK(dg_calc_set_charges(c, charge) == DG_OK);
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 1, v) == DG_ERR_STATE);
    /* A run without the reaction-field energy has no induced charges to sum. */
    p.energies = DG_ENERGY_GRID;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(dg_calc_reaction_potentials_at(c, xyz, 1, v) == DG_ERR_STATE);
    CHECK(strstr(dg_calc_last_error(c), "DG_ENERGY_REACTION_FIELD") != NULL);
    CHECK(dg_calc_induced_charges(c, &count, NULL, NULL) == DG_ERR_STATE);
    CHECK(dg_calc_coulombic_potentials_at(c, xyz, 4, v) == DG_OK);
    CHECK(memcmp(v, cp, sizeof cp) == 0);
    dg_calc_destroy(c);
}

/* DelPhi's ion-accessibility rule at a grid point: radius + ion radius from every atom with a
 * radius; the Debye fraction at p is its trilinear interpolation over the surrounding cell. */
static double debye_by_rule(const dg_calc_params *p, const double at[3]) {
    const int n = p->grid_size;
    double g[3], sum = 0.0;
    int base[3];
    for (int a = 0; a < 3; ++a) {
        g[a] = (at[a] - p->center[a]) * p->scale + 0.5 * (n - 1);
        base[a] = (int)floor(g[a]);
    }
    for (int k = 0; k < 8; ++k) {
        const int d[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
        double w = 1.0, point[3];
        for (int a = 0; a < 3; ++a) {
            const double f = g[a] - base[a];
            w *= d[a] ? f : 1.0 - f;
            point[a] = p->center[a] + (base[a] + d[a] - 0.5 * (n - 1)) / p->scale;
        }
        int open = 1;
        for (int i = 0; i < 4; ++i)
            if (radius[i] > 0.0 &&
                sqrt(pow(point[0] - xyz[3 * i], 2) + pow(point[1] - xyz[3 * i + 1], 2) +
                     pow(point[2] - xyz[3 * i + 2], 2)) < radius[i] + p->ion_radius)
                open = 0;
        sum += w * open;
    }
    return sum;
}

/* The program's salt and Debye-fraction site columns (calc_set_sites): in a linear run the salt
 * is -sum c z^2 phi, in a nonlinear one sum c z exp(-z phi), without salt 0; the fraction is the
 * ion-accessibility rule interpolated, the same whether the run has salt (its own map) or not
 * (a map built for the column); NaN outside the grid. */
static void check_salt_and_debye_sites(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    p.salt_count = 1;
    p.salts[0] = (dg_salt){0.15, 1, 1};
    const double sites[12] = {0, 0, 0, 5.0, 4.5, 5.0, 4.145, -1.073, 2.036, 20.0, 0, 0};
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = {4, xyz, charge, radius};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    CHECK(calc_set_sites(c, sites, 4, CALC_SITE_SALT | CALC_SITE_DEBYE) == DG_OK);
    dg_calc_result r;
    CHECK(dg_calc_run(c, &r) == DG_OK);
    const calc_result *s = calc_state(c);
    CHECK(s->site_count == 4 && s->site_salt && s->site_debye && !s->site_reaction);
    if (!s->site_salt || !s->site_debye) {
        dg_calc_destroy(c);
        return;
    }
    double debye[4];
    memcpy(debye, s->site_debye, sizeof debye);
    printf("Debye fractions %.6f %.6f %.6f (rule %.6f)\n", debye[0], debye[1], debye[2],
           debye_by_rule(&p, sites + 6));
    CHECK(debye[0] == 0.0 && debye[1] == 1.0);
    CHECK(debye[2] > 0.0 && debye[2] < 1.0);
    CHECK_NEAR(debye[2], debye_by_rule(&p, sites + 6), 1e-12);
    for (int i = 0; i < 3; ++i)
        CHECK_REL(s->site_salt[i], -0.3 * s->site_potential[i], 1e-14);
    CHECK(isnan(s->site_salt[3]) && isnan(s->site_debye[3]));
    /* Without salt: no salt column values, the same fractions from a map of their own. */
    p.salt_count = 0;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    s = calc_state(c);
    CHECK(s->site_debye && memcmp(s->site_debye, debye, 3 * sizeof(double)) == 0);
    CHECK(s->site_salt && s->site_salt[0] == 0.0 && s->site_salt[2] == 0.0);
    /* Nonlinear: the ions' Boltzmann distribution. */
    p.salt_count = 1;
    p.solver.equation = DG_EQUATION_NONLINEAR_PB;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    s = calc_state(c);
    for (int i = 0; s->site_salt && i < 3; ++i) {
        const double phi = s->site_potential[i];
        CHECK_REL(s->site_salt[i], 0.15 * (exp(-phi) - exp(phi)), 1e-12);
    }
    CHECK(s->site_debye && memcmp(s->site_debye, debye, 3 * sizeof(double)) == 0);
    dg_calc_destroy(c);
}

/* The Coulombic field at sites (CALC_SITE_COULOMBIC_FIELD): the direct formula at a point away
 * from the atoms; at the atoms themselves (each one's own charge left out) the forces q E sum
 * to zero, pair by pair (Newton's third law). */
static void check_coulombic_field_sites(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    double sites[15];
    memcpy(sites, xyz, sizeof xyz);
    sites[12] = 3.5, sites[13] = -2.0, sites[14] = 4.0;
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = {4, xyz, charge, radius};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    CHECK(calc_set_sites(c, sites, 5, CALC_SITE_COULOMBIC_FIELD) == DG_OK);
    dg_calc_result r;
    CHECK(dg_calc_run(c, &r) == DG_OK);
    const double *e = calc_state(c)->site_coulombic_field;
    CHECK(e != NULL);
    if (!e) {
        dg_calc_destroy(c);
        return;
    }
    const double factor = 166804.4928 / p.temperature / p.epsilon_in;
    for (int a = 0; a < 3; ++a) {
        double direct = 0.0;
        for (int i = 0; i < 4; ++i) {
            const double d[3] = {sites[12] - xyz[3 * i], sites[13] - xyz[3 * i + 1],
                                 sites[14] - xyz[3 * i + 2]};
            const double r3 = pow(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 3);
            direct += charge[i] * d[a] / r3;
        }
        CHECK_REL(e[12 + a], factor * direct, 1e-12);
    }
    double total[3] = {0, 0, 0}, scale = 0.0;
    for (int i = 0; i < 4; ++i)
        for (int a = 0; a < 3; ++a)
            total[a] += charge[i] * e[3 * i + a], scale += fabs(charge[i] * e[3 * i + a]);
    printf("Coulombic forces on the atoms sum to %.3g %.3g %.3g kT/A (of %.3g)\n", total[0],
           total[1], total[2], scale);
    for (int a = 0; a < 3; ++a)
        CHECK(fabs(total[a]) <= 1e-12 * scale);
    /* The public call gives the same fields; its arguments are checked. */
    double fields[15];
    CHECK(dg_calc_coulombic_fields_at(c, sites, 5, fields) == DG_OK);
    CHECK(memcmp(fields, e, sizeof fields) == 0);
    CHECK(dg_calc_coulombic_fields_at(c, sites, 5, NULL) == DG_ERR_INVALID_ARGUMENT);
    const double bad[3] = {0, NAN, 0};
    CHECK(dg_calc_coulombic_fields_at(c, bad, 1, fields) == DG_ERR_NONFINITE_INPUT);
    CHECK(strstr(dg_calc_last_error(c), "point 1: coordinate y") != NULL);
    dg_calc_destroy(c);
}

/* DelPhi's reaction-field force on the atoms (CALC_SITE_REACTION_FORCE): the induced charges'
 * force on each atom's charge and the atoms' force on the induced charges each atom owns are the
 * same pairs seen from both sides, so the forces sum to zero; a lone ion owns all its surface
 * charges, so its force is zero too. */
static void check_reaction_forces(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    for (int lone = 0; lone < 2; ++lone) {
        const long count = lone ? 1 : 4;
        dg_calc c = NULL;
        CHECK(dg_calc_create(&c, &p) == DG_OK);
        const dg_atoms atoms = {count, xyz, charge, radius};
        CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
        CHECK(calc_set_sites(c, xyz, (size_t)count, CALC_SITE_REACTION_FORCE) == DG_OK);
        dg_calc_result r;
        CHECK(dg_calc_run(c, &r) == DG_OK);
        const calc_result *s = calc_state(c);
        const double *f = s->atom_reaction_force;
        CHECK(f != NULL && s->rf.unprojected == 0 && s->rf.owner != NULL);
        double total[3] = {0, 0, 0}, scale = 0.0;
        for (long i = 0; f && i < count; ++i)
            for (int a = 0; a < 3; ++a)
                total[a] += f[3 * i + a], scale += fabs(f[3 * i + a]);
        /* the scale of either part: the induced charges' field at the first atom times its
           charge (the lone ion's own parts cancel exactly in exact arithmetic) */
        double part = 0.0;
        for (size_t k = 0; k < s->rf.boundary_points; ++k) {
            const double *q = s->rf.site + 3 * k;
            const double d =
                sqrt(pow(q[0] - xyz[0], 2) + pow(q[1] - xyz[1], 2) + pow(q[2] - xyz[2], 2));
            part += fabs(s->rf.sigma[k]) / (d * d);
        }
        part *= 166804.4928 / p.temperature * fabs(charge[0]);
        printf("reaction-field forces (%ld atoms): sum %.3g %.3g %.3g kT/A (sum |F| %.3g, "
               "one part %.3g)\n",
               count, total[0], total[1], total[2], scale, part);
        for (int a = 0; a < 3; ++a)
            CHECK(fabs(total[a]) <= 1e-10 * part);
        if (!lone) CHECK(scale > 1e-3 * part); /* a real force between atoms */
        /* The same through the public call. */
        double forces[12];
        CHECK(dg_calc_reaction_forces(c, forces) == DG_OK);
        CHECK(f && memcmp(forces, f, (size_t)(3 * count) * sizeof *f) == 0);
        /* Without the reaction-field energy (and no site column asking for it) there are no
           induced charges to take. */
        dg_calc_params q = p;
        q.energies = DG_ENERGY_GRID;
        CHECK(calc_set_sites(c, NULL, 0, 0) == DG_OK);
        CHECK(dg_calc_set_params(c, &q) == DG_OK && dg_calc_run(c, &r) == DG_OK);
        CHECK(dg_calc_reaction_forces(c, forces) == DG_ERR_STATE);
        CHECK(dg_calc_reaction_forces(c, NULL) != DG_OK);
        dg_calc_destroy(c);
    }
}

/* dg_calc_medium_maps: the run's own maps (the solute face counts the medium stage made); the
 * ion map of a run with salt, and the same map built for the call after a run without; none
 * before a run or after new positions. */
static void check_medium_maps(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    p.salt_count = 1;
    p.salts[0] = (dg_salt){0.15, 1, 1};
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = {4, xyz, charge, radius};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    const size_t points = 33 * 33 * 33;
    unsigned char *maps = malloc(8 * points);
    CHECK(maps != NULL);
    if (!maps) return;
    CHECK(dg_calc_medium_maps(c, maps, maps + 3 * points) == DG_ERR_STATE);
    dg_calc_result r;
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(dg_calc_medium_maps(c, NULL, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_calc_medium_maps(c, maps, maps + 3 * points) == DG_OK);
    const calc_result *s = calc_state(c);
    size_t solute[3] = {0, 0, 0}, ions = 0;
    for (int a = 0; a < 3; ++a) {
        CHECK(memcmp(maps + a * points, s->medium.face[a], points) == 0);
        for (size_t i = 0; i < points; ++i)
            solute[a] += maps[a * points + i] == 1;
        CHECK(solute[a] == s->medium.solute_faces[a] && solute[a] > 100);
    }
    for (size_t i = 0; i < points; ++i)
        ions += maps[3 * points + i] == 1;
    CHECK(ions == s->medium.ion_accessible_points && ions > 0 && ions < points);
    /* Without salt: the run has no ion map; the call builds the same one. */
    p.salt_count = 0;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(calc_state(c)->medium.ion_accessible == NULL);
    CHECK(dg_calc_medium_maps(c, NULL, maps + 7 * points) == DG_OK);
    CHECK(memcmp(maps + 7 * points, maps + 3 * points, points) == 0);
    CHECK(dg_calc_medium_maps(c, maps + 4 * points, NULL) == DG_OK);
    CHECK(memcmp(maps + 4 * points, maps, 3 * points) == 0);
    /* New positions: no completed run for them. */
    double moved[12];
    for (int i = 0; i < 12; ++i)
        moved[i] = xyz[i] + 0.25;
    CHECK(dg_calc_set_positions(c, moved) == DG_OK);
    CHECK(dg_calc_medium_maps(c, maps, NULL) == DG_ERR_STATE);
    free(maps);
    dg_calc_destroy(c);
}

/* A progress callback that calls its own running handle: every call is refused with
   DG_ERR_STATE (destroy does nothing) and the run's result is a plain run's, bit for bit. */
static dg_calc reentry_calc;
static int reentry_mode, reentry_status[2];

static void reentry_call(int slot) {
    if (reentry_status[slot] != -1) return; /* once per callback kind */
    dg_calc_params p;
    fixed_grid_params(&p);
    p.scale = 4.0;
    const double moved[12] = {0.2, 0, 0, 1.6, 0.2, 0, -0.4, 1.5, 0.3, 0.5, -0.6, 1.4};
    const dg_atoms other = {4, moved, charge, radius};
    const double at[3] = {0, 0, 0};
    double v = 0.0;
    dg_calc_result r;
    int st = DG_OK;
    switch (reentry_mode) {
    case 0:
        st = dg_calc_run(reentry_calc, &r);
        break;
    case 1:
        st = dg_calc_set_atoms(reentry_calc, &other);
        break;
    case 2:
        st = dg_calc_set_params(reentry_calc, &p);
        break;
    case 3:
        st = dg_calc_set_positions(reentry_calc, moved);
        break;
    case 4:
        st = dg_calc_potentials_at(reentry_calc, at, 1, &v);
        break;
    case 5:
        dg_calc_destroy(reentry_calc);
        st = strstr(dg_calc_last_error(reentry_calc), "does nothing") ? DG_ERR_STATE : DG_OK;
        break;
    }
    reentry_status[slot] = st;
}
static int reentry_solver_progress(const dg_progress *pr, void *user) {
    (void)pr, (void)user;
    reentry_call(0);
    return 0;
}
static void reentry_stage_progress(const char *stage, double fraction, void *user) {
    (void)fraction, (void)user;
    if (!strcmp(stage, "medium")) reentry_call(1);
}

static void check_reentry(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    const dg_atoms atoms = {4, xyz, charge, radius};
    dg_calc_result plain;
    CHECK(fresh_run(&p, xyz, charge, &plain) == DG_OK);
    p.solver.progress = reentry_solver_progress;
    p.stage_progress = reentry_stage_progress;
    for (reentry_mode = 0; reentry_mode < 6; ++reentry_mode) {
        reentry_status[0] = reentry_status[1] = -1;
        CHECK(dg_calc_create(&reentry_calc, &p) == DG_OK);
        CHECK(dg_calc_set_atoms(reentry_calc, &atoms) == DG_OK);
        dg_calc_result r;
        CHECK(dg_calc_run(reentry_calc, &r) == DG_OK);
        CHECK(reentry_status[0] == DG_ERR_STATE && reentry_status[1] == DG_ERR_STATE);
        CHECK(!dg_calc_last_error(reentry_calc)[0]); /* the run succeeded */
        CHECK(r.energies.grid == plain.energies.grid &&
              r.energies.reaction_field == plain.energies.reaction_field &&
              r.solve.iterations == plain.solve.iterations);
        /* After the run the handle takes calls again. */
        dg_calc_grid g;
        CHECK(dg_calc_get_grid(reentry_calc, &g) == DG_OK && g.scale == 3.0);
        dg_calc_destroy(reentry_calc);
    }
    /* The same from dg_calc_run_binding's runs. */
    reentry_mode = 0, reentry_status[0] = reentry_status[1] = -1;
    CHECK(dg_calc_create(&reentry_calc, &p) == DG_OK);
    CHECK(dg_calc_set_atoms(reentry_calc, &atoms) == DG_OK);
    const int partner[4] = {0, 0, 1, 1};
    dg_calc_binding b;
    CHECK(dg_calc_run_binding(reentry_calc, partner, NULL, &b, NULL) == DG_OK);
    CHECK(reentry_status[0] == DG_ERR_STATE && reentry_status[1] == DG_ERR_STATE);
    dg_calc_destroy(reentry_calc);
}

/* Linear PB depends on the salts through the ionic strength alone: 0.05 M of a 2:2 salt (its
   ions at 0.05 M each, 0.2 M) is 0.2 M of a 1:1 salt, in the equation and in the Debye-Hueckel
   boundary values (which took 0.4 M for the 2:2 salt while the equation took 0.2 M). */
static void check_salt_valences(void) {
    dg_calc_params p;
    fixed_grid_params(&p);
    p.boundary = DG_BOUNDARY_DIPOLAR;
    p.salt_count = 1, p.salts[0] = (dg_salt){0.05, 2, 2};
    dg_calc_result two, one;
    CHECK(fresh_run(&p, xyz, charge, &two) == DG_OK);
    p.salts[0] = (dg_salt){0.2, 1, 1};
    CHECK(fresh_run(&p, xyz, charge, &one) == DG_OK);
    CHECK_REL(two.energies.grid, one.energies.grid, 1e-12);
    CHECK_REL(two.energies.reaction_field, one.energies.reaction_field, 1e-12);
}

int main(void) {
    check_reentry();
    check_salt_valences();
    check_params();
    check_medium_maps();
    check_reaction_forces();
    check_site_sums();
    check_salt_and_debye_sites();
    check_coulombic_field_sites();
    dg_calc_params p;
    fixed_grid_params(&p);
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    dg_calc_result r, fresh;
    CHECK(dg_calc_run(c, &r) == DG_ERR_STATE); /* atoms first */
    const dg_atoms atoms = {4, xyz, charge, radius};
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    dg_calc_grid g;
    CHECK(dg_calc_get_grid(c, &g) == DG_OK && g.n == 33 && g.scale == 3.0);
    CHECK_NEAR(g.origin[0], 0.3 - 16.0 / 3.0, 1e-12);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(r.solve.outcome == DG_OUTCOME_CONVERGED && r.backend == DG_BACKEND_CPU);
    CHECK(fresh_run(&p, xyz, charge, &fresh) == DG_OK);
    same_energies(&r, &fresh);
    CHECK(isnan(r.energies.solvation_two_run) && isnan(r.energies.ionic_total));
    CHECK(r.timing.total >= r.timing.solve && r.timing.solve > 0);
    CHECK(dg_calc_notes(c) != NULL);

    /* New positions (an MD frame): the grid stays; the same as a fresh handle on them. */
    double moved[12];
    for (int i = 0; i < 12; ++i)
        moved[i] = xyz[i] + 0.13 * ((i % 3) - 1);
    CHECK(dg_calc_set_positions(c, moved) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(fresh_run(&p, moved, charge, &fresh) == DG_OK);
    same_energies(&r, &fresh);
    /* New charges (a titration state): the medium is kept. */
    const double other[4] = {-0.2, 0.4, 0.1, 0.9};
    CHECK(dg_calc_set_charges(c, other) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(r.timing.surface == 0.0 && r.timing.medium == 0.0);
    CHECK(fresh_run(&p, moved, other, &fresh) == DG_OK);
    same_energies(&r, &fresh);
    /* A position outside the grid interior is refused, naming the atom. */
    double away[12];
    memcpy(away, moved, sizeof away);
    away[7] = 40.0;
    CHECK(dg_calc_set_positions(c, away) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "atom 3") != NULL);
    away[7] = NAN;
    CHECK(dg_calc_set_positions(c, away) == DG_ERR_NONFINITE_INPUT);

    /* New parameters on the same handle (batch): two-run solvation, Poisson. */
    p.solvation_two_run = 1;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    CHECK(fresh_run(&p, moved, other, &fresh) == DG_OK);
    same_energies(&r, &fresh);
    CHECK(r.reference_solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK_NEAR(r.energies.solvation_two_run, r.energies.grid - r.energies.grid_reference, 1e-12);
    CHECK_REL(r.energies.solvation_two_run, fresh.energies.solvation_two_run, 1e-12);
    /* Parameters that fail change nothing: solver options that dg_calc_create refuses (also
       when the solver would be kept), a grid the held atoms cannot have; the handle keeps its
       grid and its last run, and takes valid parameters again. */
    dg_calc_params bad = p;
    bad.scale = 1e-300;
    CHECK(dg_calc_set_params(c, &bad) == DG_ERR_INVALID_ARGUMENT &&
          strstr(dg_calc_last_error(c), "grid"));
    bad = p, bad.solver.max_change_tol = NAN;
    CHECK(dg_calc_set_params(c, &bad) != DG_OK && strstr(dg_calc_last_error(c), "max_change_tol"));
    bad = p, bad.solver.check_interval = 0;
    CHECK(dg_calc_set_params(c, &bad) != DG_OK && strstr(dg_calc_last_error(c), "check_interval"));
    bad = p, bad.solver.omega = 5.0;
    CHECK(dg_calc_set_params(c, &bad) != DG_OK && strstr(dg_calc_last_error(c), "omega"));
    CHECK(dg_calc_get_grid(c, &g) == DG_OK && g.n == 33 && g.scale == 3.0);
    double kept_phi[1];
    const double centre[3] = {0.3, 0.4, 0.5};
    CHECK(dg_calc_potentials_at(c, centre, 1, kept_phi) == DG_OK && isfinite(kept_phi[0]));
    /* Atoms whose grid cannot be placed change nothing either (a wrapper counting the atoms it
       handed over stays right): 2 atoms 1e6 A apart at a fixed scale. */
    const double far_xyz[6] = {0, 0, 0, 1e6, 0, 0}, far_q[2] = {1, -1}, far_r[2] = {1, 1};
    dg_calc_params sized = p;
    sized.grid_size = 0, sized.center_mode = DG_CENTER_BOX;
    CHECK(dg_calc_set_params(c, &sized) == DG_OK);
    const dg_atoms far = {2, far_xyz, far_q, far_r};
    CHECK(dg_calc_set_atoms(c, &far) == DG_ERR_INVALID_ARGUMENT);
    double four_forces[12];
    CHECK(dg_calc_set_params(c, &p) == DG_OK && dg_calc_run(c, &r) == DG_OK);
    CHECK(dg_calc_reaction_forces(c, four_forces) == DG_OK); /* four atoms, not two */
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &r) == DG_OK);
    same_energies(&r, &fresh);

    /* Potentials: the map at a grid point and the interpolation there agree. */
    double *phi = malloc(33 * 33 * 33 * sizeof *phi);
    float *phi_f = malloc(33 * 33 * 33 * sizeof *phi_f);
    CHECK(phi && phi_f && dg_calc_potential_d(c, phi) == DG_OK);
    CHECK(dg_calc_potential_f(c, phi_f) == DG_OK);
    const double at[6] = {
        g.origin[0] + 10 / 3.0, g.origin[1] + 12 / 3.0, g.origin[2] + 14 / 3.0, 100, 0, 0};
    double v[2];
    CHECK(dg_calc_potentials_at(c, at, 2, v) == DG_OK);
    CHECK_REL(v[0], phi[10 + 33 * (12 + 33 * 14)], 1e-9);
    CHECK_REL(phi_f[10 + 33 * (12 + 33 * 14)], phi[10 + 33 * (12 + 33 * 14)], 1e-6);
    CHECK(isnan(v[1]));
    /* A coordinate that is not a number is no point of the grid (it was clamped to a face). */
    const double nan_at[9] = {NAN, 0.4, 0.5, 0.3, NAN, NAN, 0.3, 0.4, 0.5};
    double w[3];
    CHECK(dg_calc_potentials_at(c, nan_at, 3, w) == DG_OK);
    CHECK(isnan(w[0]) && isnan(w[1]) && isfinite(w[2]));
    free(phi), free(phi_f);
    dg_calc_destroy(c);
    CHECK_DONE();
}
