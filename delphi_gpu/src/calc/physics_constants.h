/* Physical constants as DelPhi uses them, shared by the host physics. */
#ifndef HOST_PHYSICS_CONSTANTS_H
#define HOST_PHYSICS_CONSTANTS_H

#include <math.h>

/* epkt = EPKT_NUMERATOR / T: e^2 / (4 pi eps0 * 1 Angstrom * kT), 561.0 at the default T. */
#define EPKT_NUMERATOR      166804.4928
#define DEFAULT_TEMPERATURE 297.3342 /* K */
/* A: the radius DelPhi gives a charged atom of radius 0 (its radpolext), in the self-reaction
   energy and the atomic site potential. */
#define POINT_CHARGE_RADIUS 1.0
/* Debye length = DEBYE_CONSTANT * sqrt(T * eps_out / I) Angstrom (I in mol/L). */
#define DEBYE_CONSTANT 0.01990076
/* Ions per cubic Angstrom in a 1 mol/L solution: N_A / 1e27. */
#define IONS_PER_A3_PER_MOLAR 6.02214076e-4

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static inline double epkt_at(double temperature) {
    return EPKT_NUMERATOR / temperature;
}

#endif /* HOST_PHYSICS_CONSTANTS_H */
