/* Energies that have closed forms: Coulombic pairs, grid energy, ionic terms, site potentials. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "energies.h"
#include "physics_constants.h"
#include "test_support.h"

int main(void) {
    const double T = 297.3342, epkt = epkt_at(T);
    const double xyz[9] = {0, 0, 0, 3, 4, 0, 0, 0, 2}, q[3] = {1.0, -0.5, 0.25}, r[3] = {1, 1, 1};
    calc_molecule mol = test_molecule(3, xyz, q, r);
    long coincident = -1;
    const double want =
        epkt / 2.0 * (1.0 * -0.5 / 5.0 + 1.0 * 0.25 / 2.0 + -0.5 * 0.25 / sqrt(9 + 16 + 4));
    CHECK_REL(energy_coulombic(&mol, 2.0, T, &coincident), want, 1e-12);
    CHECK(coincident == 0);
    mol.atoms[2].x = 3, mol.atoms[2].y = 4, mol.atoms[2].z = 0; /* on top of atom 2 */
    energy_coulombic(&mol, 2.0, T, &coincident);
    CHECK(coincident == 1);

    /* Grid energy 1/2 sum phi q, with a repeated index. */
    const double centre[3] = {0, 0, 0};
    phi_map phi;
    CHECK(phi_map_alloc(&phi, 9, 0, 2.0, centre) == 0);
    for (size_t w = 0; w < 729; ++w)
        phi_set(&phi, w, 0.01 * (double)(w % 17));
    long index[3] = {100, 200, 100};
    double value[3] = {0.5, -1.0, 0.25};
    charge_list c = {index, value, 3, 0, 0, 0, 0};
    CHECK_REL(energy_grid(&phi, &c), 0.5 * (0.75 * phi_get(&phi, 100) - 1.0 * phi_get(&phi, 200)),
              1e-12);

    /* Ionic terms for 1:1 salt at uniform phi: -1/2 rho phi = n phi 2 sinh(phi) / 2 ... */
    dg_calc_params s;
    test_default_params(&s);
    s.salt_count = 1, s.salts[0].concentration = 0.15;
    salt_model salt;
    salt_model_from_params(&s, &salt);
    CHECK_NEAR(salt.ionic_strength, 0.15, 1e-15);
    CHECK_NEAR(salt.debye_length, 7.925, 0.001); /* 0.01990076 sqrt(T eps / I) */
    unsigned char *open = malloc(729);
    memset(open, 1, 729);
    const double p0 = 0.3;
    for (size_t w = 0; w < 729; ++w)
        phi_set(&phi, w, p0);
    ionic_energy ion;
    energy_ionic(&phi, open, &salt, 0, 0, &ion);
    /* the trapezoid rule's weights on 9^3 points (faces 1/2, edges 1/4, corners 1/8): 8^3
       points' worth, at 8 points per A^3 */
    const double n_ions = 0.15 * IONS_PER_A3_PER_MOLAR, volume = 512 / 8.0;
    const double p = (float)p0;
    CHECK_REL(ion.rho_phi_half, n_ions * p * 2.0 * sinh(p) / 2.0 * volume, 1e-6);
    CHECK_REL(ion.osmotic, -2.0 * n_ions * (cosh(p) - 1.0) * volume, 1e-6);
    CHECK_NEAR(ion.total, ion.rho_phi_half + ion.osmotic, 1e-12);
    /* Periodic along x, y and z: the faces are images, the 7^3 interior points one period. */
    ionic_energy periodic;
    energy_ionic(&phi, open, &salt, 0, DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, &periodic);
    CHECK_REL(periodic.total, ion.total * 343.0 / 512.0, 1e-9);
    /* Periodic along z only: 8 x 8 x 7 points' worth. */
    energy_ionic(&phi, open, &salt, 0, DG_PERIODIC_Z, &periodic);
    CHECK_REL(periodic.total, ion.total * 7.0 / 8.0, 1e-9);
    /* DelPhi's equation (the charge density to phi^5): its terms, as stock DelPhi computes them,
       at phi = 4 kT/e where they differ from the Boltzmann ones by about 10 %. */
    const double p4 = 4.0;
    for (size_t w = 0; w < 729; ++w)
        phi_set(&phi, w, p4);
    ionic_energy poly, full;
    energy_ionic(&phi, open, &salt, 1, 0, &poly);
    energy_ionic(&phi, open, &salt, 0, 0, &full);
    const double series = p4 + p4 * p4 * p4 / 6 + pow(p4, 5) / 120;
    const double integral = p4 * p4 + pow(p4, 4) / 12 + pow(p4, 6) / 360;
    CHECK_REL(poly.rho_phi_half, n_ions * series * p4 * volume, 1e-12);
    CHECK_REL(poly.osmotic, -n_ions * integral * volume, 1e-12);
    CHECK(fabs(poly.total - full.total) > 0.05 * fabs(full.total));
    /* The sums do not depend on the number of threads (a varying potential, some points
       closed to the ions). */
    for (size_t w = 0; w < 729; ++w) {
        phi_set(&phi, w, 0.37 * sin(0.1 * (double)w) + 0.01 * (double)(w % 7));
        open[w] = (unsigned char)(w % 5 != 0);
    }
    ionic_energy by_one, by_three;
    omp_set_num_threads(1);
    energy_ionic(&phi, open, &salt, 0, 0, &by_one);
    omp_set_num_threads(3);
    energy_ionic(&phi, open, &salt, 0, 0, &by_three);
    CHECK(by_one.rho_phi_half == by_three.rho_phi_half && by_one.osmotic == by_three.osmotic);
    CHECK(by_one.rho_phi_half != ion.rho_phi_half && by_one.rho_phi_half > 0.0);
    /* A 2:1 salt: ionic strength 3c. */
    s.salts[0].cation_valence = 2;
    salt_model_from_params(&s, &salt);
    CHECK_NEAR(salt.ionic_strength, 0.45, 1e-12);
    /* A 2:2 and a 4:2 salt count their reduced formula units (MgSO4: c of each ion, 4c; M X2 of
       valences 4 and 2: c and 2c, 12c), as the solver's medium counts them (it used 8c and 24c
       for the boundary values while the solver used 4c and 12c). */
    s.salts[0].anion_valence = 2;
    salt_model_from_params(&s, &salt);
    CHECK_NEAR(salt.ionic_strength, 0.6, 1e-12);
    CHECK_NEAR(salt.ions[0].number_density, salt.ions[1].number_density, 1e-18);
    s.salts[0].cation_valence = 4;
    salt_model_from_params(&s, &salt);
    CHECK_NEAR(salt.ionic_strength, 0.15 * 12, 1e-12);
    s.salts[0].cation_valence = 2, s.salts[0].anion_valence = 1;
    s.salts[0].concentration = 0;
    salt_model_from_params(&s, &salt);
    CHECK(salt.salt_count == 0 && isinf(salt.debye_length));

    /* Site potentials: trilinear interpolation is exact for a linear field; NaN outside. */
    for (int z = 0; z < 9; ++z)
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 9; ++x)
                phi_set(&phi, (size_t)(x + 9 * (y + 9 * z)),
                        1.0 + 0.5 * (x - 4) / 2.0 - 0.25 * (y - 4) / 2.0 + 2.0 * (z - 4) / 2.0);
    const double sites[6] = {0.3, -1.1, 0.7, 5.0, 0, 0};
    double v[2];
    CHECK(site_potentials(&phi, sites, 2, v) == 1);
    CHECK_NEAR(v[0], 1.0 + 0.5 * 0.3 + 0.25 * 1.1 + 2.0 * 0.7, 1e-5);
    CHECK(isnan(v[1]));
    free(open);
    phi_map_free(&phi);
    test_molecule_free(&mol);
    CHECK_DONE();
}
