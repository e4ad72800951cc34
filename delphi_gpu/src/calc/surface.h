/* The molecular surface model: atoms (radius > 0) as spheres, the solvent-accessible (SAS)
 * spheres of radius r + probe, each atom's SAS neighbours, and dots on the accessible parts of
 * the circles where two SAS spheres meet.  A probe centre is accessible when it lies at
 * >= r + probe from every atom centre.
 *
 * Solvent-excluded surface (SES): a point is outside the molecule exactly when some accessible
 * probe centre lies within `probe` of it.  The accessible probe centres nearest to a point near
 * the molecule lie on the SAS: on one sphere (a "face": then it is the radial projection of the
 * point onto that sphere, tested exactly), on an arc where two spheres meet, or at a vertex
 * where three meet (both found through the arc dots).  The contact (single-sphere) part is
 * exact; the rest is as exact as the dots are dense.
 *
 * Dot density: each circle is sampled at 256 equally spaced angles, whatever its radius
 * (DelPhi samples 384: 12 per circle halved five times along the accessible arcs).  Along an arc
 * that is within about (pi rho / 256)^2 / (2 probe) of the exact SES, but an arc's last dot stops
 * up to one step (about 0.07 A) short of the arc's end, where a third sphere cuts it (a vertex);
 * near a vertex the nearest probe centre is the vertex itself, so the SES there is placed
 * slightly inside the exact one, as DelPhi places it.  Measured against DelPhi v4 on the same
 * grid (scale 2, perfil 70): the corrected reaction-field energy of ubiquitin is 0.014 % and of
 * the HIV-1 protease dimer 0.018 % from DelPhi's (384 angles: 0.008 % and 0.013 %; 192: 0.034 %
 * and 0.056 %; the former 0.2 A spacing: 0.16 % and 0.21 %; exact vertices, the converged SES:
 * 0.03-0.07 %).  256 keeps within the 0.05 % goal at two thirds of the dots (and of the dot
 * tests, the surface model's largest cost) of 384. */
#ifndef HOST_SURFACE_H
#define HOST_SURFACE_H

#include <stddef.h>

#include "calc_atoms.h"
#include "cell_list.h"
#include "delphi_gpu/delphi_gpu.h"

#define SURFACE_CIRCLE_DOTS 256 /* dots (equally spaced angles) on each SAS intersection circle */
#define SURFACE_DOT_CELL    0.5 /* Angstrom, smallest cell side of the cell lists */
#define SURFACE_MAX_REACH   8.0 /* Angstrom, the largest reach surface_project searches */
#define SURFACE_MAX_NEIGHBORS                                                                      \
    10000 /* atoms within reach of one atom's surface: real molecules                              \
          have about 100; more means overlapping copies */

typedef struct surface_model {
    int kind;           /* enum surface_kind (settings.h) */
    double probe;       /* probe radius (0 for the van der Waals surface) */
    int count;          /* atoms with radius > 0 */
    int *atom_index;    /* [count] index into the molecule */
    double *xyz;        /* [3*count] */
    double *radius;     /* [count] van der Waals radius */
    double *sas_radius; /* [count] radius + probe */
    double max_radius, max_sas_radius;
    cell_list atoms;     /* cells of side max(max_sas_radius / 2, SURFACE_DOT_CELL) */
    int *neighbor_start; /* [count+1] CSR: atoms whose SAS spheres intersect atom i's, the
                            deepest overlap first */
    int *neighbors;
    unsigned char *exposed;  /* [count] 1 if some of the atom's SAS sphere is accessible */
    cell_list exposed_atoms; /* the exposed atoms only, same cells */
    int dot_count;           /* accessible arc dots (SES only) */
    double *dots;            /* [3*dot_count] */
    cell_list dot_cells;     /* cells of side max(SURFACE_DOT_CELL, probe / 4) */
} surface_model;

/* Build the model.  kind: DG_SURFACE_MOLECULAR or DG_SURFACE_VDW; circle_dots: the angles sampled
 * on each SAS intersection circle (SES; at least 8 are used).
 * Returns 0, or -1 with a message (negative or non-finite radius, out of memory). */
int surface_model_build(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                        int circle_dots, char *msg, size_t msg_size);

/* The same with the arc dots found by the solver's backend when it has an arc-dot operation
 * (CUDA; the same dots), else on the host threads; solver may be NULL.  Returns DG_OK, or with a
 * message DG_ERR_INVALID_ARGUMENT (a radius, the probe, a crowded atom), DG_ERR_OUT_OF_MEMORY or
 * the backend's status. */
int surface_model_build_on(surface_model *sm, const calc_molecule *mol, int kind, double probe,
                           int circle_dots, dg_solver solver, char *msg, size_t msg_size);

void surface_model_free(surface_model *sm);

/* The circle where the SAS spheres of atoms i and j meet: centre m, radius rho, orthonormal
 * e1, e2 spanning its plane.  Returns 0 when the spheres do not cross (apart, or one inside the
 * other). */
int surface_circle(const surface_model *sm, int i, int j, double m[3], double *rho, double e1[3],
                   double e2[3]);

/* The circle's point at the angle whose cosine and sine are c and s (the arc dots' expression,
 * dg_sp_circle_point). */
void surface_circle_point(const double m[3], double rho, const double e1[3], const double e2[3],
                          double c, double s, double p[3]);

/* 1 if the probe centre p, on atom i's SAS sphere, is accessible: outside the SAS spheres of
 * i's neighbours other than `skip` (-1: none skipped; p on sphere skip too). */
int surface_accessible_near(const surface_model *sm, int i, int skip, const double p[3]);

/* What decided the last shell query (-1: nothing yet): the exposed atom whose contact probe
 * came nearest, and the arc dot that decided it.  Nearby points usually share them, so they are
 * tried first; the answers stay the same. */
typedef struct surface_hint {
    int atom, dot;
} surface_hint;

/* For a point outside every van der Waals sphere: 1 if it is outside the SES (solvent), 0 if
 * it is in a re-entrant pocket of the molecule.  Always 1 for the van der Waals surface.
 * hint may be NULL (start it at {-1, -1}). */
int surface_shell_point_outside(const surface_model *sm, const double x[3], surface_hint *hint);

/* 1 if x is inside the molecule (the SES, or the van der Waals volume), else 0.  Slow path for
 * single points (tests); the medium builder marks whole grids faster. */
int surface_point_inside(const surface_model *sm, const double x[3]);

/* Nearest point s on the surface to x (x near the surface, within `reach` of it).  Molecular
 * surface: x projected onto the probe sphere of its nearest accessible probe centre; van der
 * Waals surface (or no accessible centre in reach): onto the nearest atom sphere.
 * Returns 0, or -1 when no atom is within reach (s = x then). */
int surface_project(const surface_model *sm, const double x[3], double reach, double s[3]);

#endif /* HOST_SURFACE_H */
