/* Energies as DelPhi reports them, all in kT: grid energy, Coulombic energy, the nonlinear ionic
 * terms, and potentials at sites.  The corrected reaction field is in reaction_field.h. */
#ifndef HOST_ENERGIES_H
#define HOST_ENERGIES_H

#include <stddef.h>

#include "charges.h"
#include "calc_atoms.h"
#include "delphi_gpu/delphi_gpu.h"
#include "phi_map.h"
#include "salt.h"

/* 1/2 sum phi q over the charged grid points (repeated indices simply add). */
double energy_grid(const phi_map *phi, const charge_list *charges);

/* Charged atoms closer than this (A) to each other, or to a point where their potential is
 * asked, are left out: an atom's own charge at its centre, coincident atoms. */
#define COULOMB_MIN_DISTANCE 1e-6

/* Charged atoms closer than this (A) to a point where their potential or field is asked are
 * left out, as DelPhi leaves them out of its site columns (squared distance 1e-6 A^2): the
 * site's own atom, also when the site's position is that atom's rounded (a site file with 3
 * decimals, the atoms read as real*4). */
#define COULOMB_SITE_DISTANCE 1e-3

/* sum_{i<j} q_i q_j / (eps_in r_ij) * epkt.  Pairs closer than COULOMB_MIN_DISTANCE are
 * skipped and counted in *coincident (may be NULL). */
double energy_coulombic(const calc_molecule *mol, double eps_in, double temperature,
                        long *coincident);

/* The same on a solver's backend (NULL: a temporary CPU handle), through the library's pair
 * sums (row sums over the later atoms, summed serially here in double).  Returns NaN with a
 * message when the backend fails. */
double energy_coulombic_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                           double temperature, long *coincident, char *msg, size_t msg_size);

/* Coulombic potential (kT/e) of the charged atoms in a uniform eps_in at points (3 per point,
 * A): epkt / eps_in sum_i q_i / |x - r_i|, atoms closer than COULOMB_SITE_DISTANCE to a point
 * left out and counted in *close (may be NULL).  At the charged atoms themselves,
 * (1/2) sum_i q_i of it is the Coulombic energy.  On the solver's backend (NULL: a temporary
 * CPU handle).  Returns a dg_status (msg says why). */
int coulombic_potentials_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                            double temperature, const double *points, long count, double *out,
                            long *close, char *msg, size_t msg_size);

/* Coulombic field (kT/(e A)) of the charged atoms in a uniform eps_in at points (3 per point,
 * A; out 3 per point): epkt / eps_in sum_i q_i (x - r_i) / |x - r_i|^3, atoms closer than
 * COULOMB_SITE_DISTANCE left out.  A charge q at the point feels the force q times it (kT/A).
 * On the solver's backend (NULL: the host's threads). */
int coulombic_fields_on(dg_solver solver, const calc_molecule *mol, double eps_in,
                        double temperature, const double *points, long count, double *out,
                        char *msg, size_t msg_size);

typedef struct ionic_energy {
    double rho_phi_half; /* -1/2 sum rho_ion phi h^3 over the ion-accessible points */
    double osmotic;      /* -sum kT sum_i n_i (e^(-z_i phi) - 1) h^3 (osmotic pressure term) */
    double total;        /* their sum: the nonlinear correction to the grid energy */
} ionic_energy;

/* Nonlinear PB ionic terms of the equation the solve used: polynomial 0, the full Boltzmann
 * densities of the ions; 1, DelPhi's truncated series (each ion's e^(-z phi) by its Taylor
 * polynomial: the charge density to phi^5, as the solver's source, and the osmotic excess, its
 * integral, to phi^6), whose terms are the energy of that equation.  Summed over the
 * ion-accessible points by the trapezoid rule: a point on a face of a non-periodic axis weighs
 * 1/2 per such coordinate (as stock DelPhi), one on a face of a periodic axis (dg_periodic_axis
 * bits) nothing (an image of an interior point). */
void energy_ionic(const phi_map *phi, const unsigned char *ion_accessible, const salt_model *salt,
                  int polynomial, unsigned periodic, ionic_energy *out);

/* Potential (kT/e) at each position (trilinear interpolation); NaN outside the grid.
 * Returns the number of positions outside. */
size_t site_potentials(const phi_map *phi, const double *xyz, size_t count, double *out);

#endif /* HOST_ENERGIES_H */
