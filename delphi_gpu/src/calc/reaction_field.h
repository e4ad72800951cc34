/* Corrected reaction-field energy from the induced charges at the dielectric-boundary points,
 * as DelPhi reports it.
 *
 * Derivation (h = 1/scale, eps' = eps/epkt, phi in kT/e): the finite-difference equation at a
 * point is sum_f eps'_f (phi_f - phi_0) = -4 pi scale q_free.  The total (vacuum) charge a
 * point holds is what the same stencil with eps' = 1/epkt gives:
 *     Q_k = -sum_f (phi_f - phi_k) / (4 pi scale epkt) = 6 (phi_k - mean_6) / (4 pi scale epkt).
 * In a uniform eps_in region Q_k = q_k / eps_in exactly, so the charge induced by the
 * dielectric jump, relative to the uniform eps_in reference, is
 *     sigma_k = Q_k - q_k / eps_in      (q_k: the free grid charge at k, usually 0),
 * and it is non-zero only at dielectric-boundary points (away from salt).  Placed at s_k, the
 * boundary point projected onto the molecular surface, it gives the reaction field at the
 * atoms and the energy (epkt/2) sum_k sigma_k sum_i q_i / |s_k - r_i|.  For a Born ion every
 * s_k lies at the radius a, so the energy is (epkt/2) q (sum sigma) / a: exact when the total
 * induced charge obeys Gauss's law, sum sigma = q (1/eps_out - 1/eps_in). */
#ifndef HOST_REACTION_FIELD_H
#define HOST_REACTION_FIELD_H

#include <stddef.h>

#include "charges.h"
#include "delphi_gpu/delphi_gpu.h"
#include "grid.h"
#include "calc_atoms.h"
#include "phi_map.h"
#include "surface.h"

typedef struct reaction_field {
    size_t boundary_points;
    double total_induced_charge;    /* e, sum sigma_k */
    double expected_induced_charge; /* e, Gauss: (net charge in the box) (1/eps_out - 1/eps_in) */
    double energy;                  /* kT, corrected reaction field energy */
    size_t unprojected;             /* boundary points with no atom in reach (left in place) */
    double time_sites;              /* s, induced charges and surface sites (host threads) */
    double time_sums;               /* s, the boundary points x atoms sums (solve's backend) */
    /* The induced charges themselves, kept for the reaction potential at other points
       (reaction_field_potentials) and the program's out(scrg) (freed by reaction_field_free):
       sigma_k in e, s_k in A, and each one's part of the energy,
       (epkt/2) sigma_k sum_i q_i / |s_k - r_i| in kT (their sum is `energy` up to rounding). */
    double *sigma;  /* [boundary_points] */
    double *site;   /* [3 * boundary_points] */
    double *shares; /* [boundary_points] */
    int *owner;     /* [boundary_points] the molecule's atom whose surface each site is on (the
                       least distance minus radius from the boundary point), -1 if unprojected */
} reaction_field;

/* boundary: 0-based full indices of the dielectric-boundary points (all interior).  The
 * boundary points x atoms sums run on the solver's backend (NULL: a temporary CPU handle). */
int reaction_field_compute(const phi_map *phi, const grid_spec *g, const long *boundary,
                           size_t boundary_count, const charge_list *charges,
                           const surface_model *sm, const calc_molecule *mol, double eps_in,
                           double eps_out, double temperature, dg_solver solver,
                           reaction_field *out, char *msg, size_t msg_size);

/* The reaction field's potential (kT/e) at points (3 per point, A): the potential of the kept
 * induced charges in vacuum, epkt sum_k sigma_k / |x - s_k|, pairs closer than 1e-9 A left out
 * (as in the energy).  At the charged atoms, (1/2) sum_i q_i of it is the corrected energy.
 * On the solver's backend (NULL: a temporary CPU handle).  Returns a dg_status (msg says why). */
int reaction_field_potentials(const reaction_field *rf, double temperature, dg_solver solver,
                              const double *points, long count, double *out, char *msg,
                              size_t msg_size);

/* DelPhi's reaction-field force on each atom of mol (out[3 * mol->count], kT/A): the force of
 * the induced charges on the atom's charge, epkt q_i sum_k sigma_k (r_i - s_k) / |r_i - s_k|^3,
 * plus the force of all the atoms' charges on the induced charges the atom owns,
 * epkt sum_{k owned by i} sigma_k sum_j q_j (s_k - r_j) / |s_k - r_j|^3.  The two parts are the
 * same pairs seen from either side, so the forces sum to zero over the molecule (but for the
 * induced charges of unprojected boundary points, which no atom owns).  Field sums on the
 * solver's backend (NULL: the host's threads).  Returns a dg_status (msg says why). */
int reaction_field_forces(const reaction_field *rf, const calc_molecule *mol, double temperature,
                          dg_solver solver, double *out, char *msg, size_t msg_size);

/* Free the kept induced charges and clear *rf. */
void reaction_field_free(reaction_field *rf);

#endif /* HOST_REACTION_FIELD_H */
