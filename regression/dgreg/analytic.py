"""Analytic electrostatic solvation energies of spheres (the suite's own derivations).

All energies are in units of kT when `epkt` (Angstrom kT / e^2) is given as DelPhi's
constants.delphi_epkt(T); charges in e, lengths in Angstrom.

"Solvation energy" throughout means the change of electrostatic free energy when the medium outside
the sphere changes from eps_in (no ions) to eps_out (with ions, if any): the quantity DelPhi prints
as the corrected reaction-field energy and the difference of two grid energies computed on one grid.

Derivations (standard; written out so that a reader can check them):

* Born ion, charge q at the centre of a sphere of radius a:
      W = (epkt q^2 / 2a) (1/eps_out - 1/eps_in).

* Kirkwood sphere, point charges q_i at r_i (|r_i| < a) inside a sphere eps_in, eps_out outside,
  no salt.  Inside, the potential of q_i is q_i/(eps_in |r - r_i|) plus a reaction field that is
  regular at the origin.  Matching potential and normal displacement at r = a term by term in the
  Legendre expansion gives the reaction-field potential at r_j:
      phi_rf(r_j) = sum_i q_i sum_n c_n (r_i r_j)^n / a^(2n+1) P_n(cos g_ij),
      c_n = (n+1)(eps_in - eps_out) / (eps_in ((n+1) eps_out + n eps_in)),
  with g_ij the angle between r_i and r_j, and W = (epkt/2) sum_j q_j phi_rf(r_j) (i = j
  included).  n = 0 gives the Born term.  The series converges like (r_i r_j / a^2)^n.

* Debye-Hueckel sphere: charge q at the centre of a sphere of radius a (eps_in), solvent eps_out
  outside, mobile ions (inverse Debye length kappa) only beyond the ion-exclusion radius
  b = a + ion radius.  Potential: q/(eps_in r) + C (r < a); q/(eps_out r) + D (a < r < b);
  A exp(-kappa r)/r (r > b).  Continuity of phi and eps dphi/dr at b and a gives
      A = q exp(kappa b) / (eps_out (1 + kappa b)),  D = -q kappa / (eps_out (1 + kappa b)),
      C = (q/a)(1/eps_out - 1/eps_in) - q kappa / (eps_out (1 + kappa b)),
  and W = (epkt/2) q C.  kappa = 0 (or b = a, kappa = 0) gives the Born energy.
"""

import math


def born_energy(charge, radius, eps_in, eps_out, epkt):
    """Solvation energy of a Born ion (kT when epkt is in Angstrom kT/e^2)."""
    if radius <= 0.0:
        raise ValueError("Born radius must be positive, got %r" % radius)
    return epkt * charge * charge / (2.0 * radius) * (1.0 / eps_out - 1.0 / eps_in)


def _legendre_series(x, t, coefficient, max_terms, rel_tol):
    """sum_n coefficient(n) t^n P_n(x) for |t| < 1, summed until the terms are negligible."""
    p_prev, p_cur = 1.0, x  # P_0, P_1
    total = coefficient(0)  # t^0 P_0
    t_power = 1.0
    for n in range(1, max_terms):
        t_power *= t
        total += coefficient(n) * t_power * p_cur  # p_cur is P_n here
        # |P_n| <= 1 and |c_n| <= 1/eps_in: the tail is bounded by a geometric series.
        if abs(t_power) * abs(coefficient(n)) / max(1e-300, 1.0 - abs(t)) <= rel_tol * abs(total):
            return total
        p_prev, p_cur = p_cur, ((2 * n + 1) * x * p_cur - n * p_prev) / (n + 1)
    raise ArithmeticError("Kirkwood series did not converge in %d terms (t = %g)" % (max_terms, t))


def kirkwood_reaction_potential(charges, point, radius, eps_in, eps_out, max_terms=20000,
                                rel_tol=1e-15):
    """Reaction-field potential (e/Angstrom units: multiply by epkt for kT/e) at `point`.

    charges: sequence of (q, (x, y, z)) with positions relative to the sphere's centre.
    """
    a = float(radius)

    def c_n(n):
        return (n + 1) * (eps_in - eps_out) / (eps_in * ((n + 1) * eps_out + n * eps_in))

    rj = math.sqrt(sum(c * c for c in point))
    if rj >= a:
        raise ValueError("point %r is not inside the sphere of radius %g" % (point, a))
    total = 0.0
    for q, pos in charges:
        ri = math.sqrt(sum(c * c for c in pos))
        if ri >= a:
            raise ValueError("charge at %r is not inside the sphere of radius %g" % (pos, a))
        if ri == 0.0 or rj == 0.0:
            total += q * c_n(0) / a  # only n = 0 survives
            continue
        cos_g = sum(u * v for u, v in zip(pos, point)) / (ri * rj)
        cos_g = max(-1.0, min(1.0, cos_g))
        t = ri * rj / (a * a)
        total += q / a * _legendre_series(cos_g, t, c_n, max_terms, rel_tol)
    return total


def kirkwood_energy(charges, radius, eps_in, eps_out, epkt):
    """Reaction-field (solvation) energy of point charges inside a dielectric sphere, no salt."""
    total = 0.0
    for q_j, pos_j in charges:
        total += q_j * kirkwood_reaction_potential(charges, pos_j, radius, eps_in, eps_out)
    return 0.5 * epkt * total


def debye_huckel_sphere_energy(charge, radius, ion_exclusion_radius, eps_in, eps_out, kappa, epkt):
    """Solvation energy of a central charge in a sphere with a Stern layer, linearised PB.

    kappa: inverse Debye length (1/Angstrom), 0 for no salt.  ion_exclusion_radius >= radius.
    """
    a, b = float(radius), float(ion_exclusion_radius)
    if a <= 0.0 or b < a:
        raise ValueError("need 0 < radius <= ion exclusion radius, got %g, %g" % (a, b))
    q = charge
    c_const = q / a * (1.0 / eps_out - 1.0 / eps_in) - q * kappa / (eps_out * (1.0 + kappa * b))
    return 0.5 * epkt * q * c_const


def conductor_limit_reaction_potential(charge, offset, radius, eps_in):
    """Reaction potential at a charge `offset` from the centre when eps_out -> infinity.

    The exterior is then an equipotential; the image charge -q a/s at a^2/s gives
    phi_rf = -q a / (eps_in (a^2 - s^2)).  Used by the self-test to check the Legendre series
    independently.
    """
    return -charge * radius / (eps_in * (radius * radius - offset * offset))


def _solve_tridiagonal(lower, diag, upper, rhs):
    """Thomas algorithm; lower[0] and upper[-1] are unused."""
    n = len(diag)
    c = [0.0] * n
    d = [0.0] * n
    c[0] = upper[0] / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - lower[i] * c[i - 1]
        c[i] = upper[i] / m if i < n - 1 else 0.0
        d[i] = (rhs[i] - lower[i] * d[i - 1]) / m
    x = [0.0] * n
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


def radial_pb_sphere_energy(charge, radius, ion_exclusion_radius, eps_in, eps_out, kappa, epkt,
                            nonlinear=True, step=0.02, extent_debye=20.0, tol=1e-12,
                            ion_density="exact"):
    """Solvation energy (kT); see radial_pb_sphere."""
    parts = radial_pb_sphere(charge, radius, ion_exclusion_radius, eps_in, eps_out, kappa, epkt,
                             nonlinear, step, extent_debye, tol, ion_density)
    return parts["charge_term"] + parts["ionic_term"]


def radial_pb_sphere(charge, radius, ion_exclusion_radius, eps_in, eps_out, kappa, epkt,
                     nonlinear=True, step=0.02, extent_debye=20.0, tol=1e-12, ion_density="exact"):
    """Solvation energy (kT) of a central charge in a sphere with a Stern layer, 1:1 salt, by the
    full (nonlinear=True) or linearised Poisson-Boltzmann equation solved in one dimension.

    Spherical symmetry reduces the problem to r >= b (= ion_exclusion_radius): with the reduced
    potential psi (kT/e) and u = r psi, u'' = kappa^2 r sinh(u / r) (or kappa^2 u linearised),
    Gauss's law fixing psi'(b) = -epkt q / (eps_out b^2), and the screened tail u' = -kappa u far
    out.  Second-order finite differences on a uniform mesh, Newton's method.  Inside b the
    potential is Coulombic plus constants, as in debye_huckel_sphere_energy.  The free energy of
    the nonlinear equation (the functional APBS and DelPhi evaluate) is
        G = 1/2 q C + c  int_{r>b} [psi sinh psi - 2 (cosh psi - 1)] 4 pi r^2 dr,
    c = kappa^2 eps_out / (8 pi epkt) ions of each sign per A^3, C the reaction potential at the
    centre; for the linearised equation the integral vanishes identically.
    ion_density: "exact" solves with sinh psi (the Poisson-Boltzmann equation, as APBS does);
    "delphi" with DelPhi's quintic Taylor polynomial psi + psi^3/6 + psi^5/120 (DelPhi's
    nonlinear source uses the chi2..chi5 terms), which DelPhi and delphi-gpu solve; the energy is
    evaluated with the full exponentials in both, as both programs do.
    Returns {'charge_term': 1/2 q C, 'ionic_term': the integral term, 'surface_potential': psi(b)}.
    """
    if ion_density not in ("exact", "delphi"):
        raise ValueError("ion_density %r" % ion_density)
    a, b, q = float(radius), float(ion_exclusion_radius), float(charge)
    if kappa <= 0.0:
        return {"charge_term": born_energy(q, a, eps_in, eps_out, epkt), "ionic_term": 0.0,
                "surface_potential": epkt * q / (eps_out * b)}
    n = int(math.ceil(extent_debye / kappa / step)) + 1
    h = extent_debye / kappa / (n - 1)
    r = [b + i * h for i in range(n)]
    dpsi_b = -epkt * q / (eps_out * b * b)
    k2 = kappa * kappa
    # Start from the linearised (Debye-Hueckel) solution.
    amp = epkt * q * math.exp(kappa * b) / (eps_out * (1.0 + kappa * b))
    u = [amp * math.exp(-kappa * x) for x in r]
    for _ in range(100):
        lower, diag, upper, res = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
        for i in range(n):
            x = r[i]
            psi = u[i] / x
            if nonlinear and ion_density == "exact":
                f, df = k2 * x * math.sinh(psi), k2 * math.cosh(psi)
            elif nonlinear:
                p2 = psi * psi
                f = k2 * x * psi * (1.0 + p2 / 6.0 + p2 * p2 / 120.0)
                df = k2 * (1.0 + p2 / 2.0 + p2 * p2 / 24.0)
            else:
                f, df = k2 * u[i], k2
            if i == 0:  # ghost point u[-1] = u[1] - 2h u'(b), u'(b) = u/b + b psi'(b)
                ghost_coef = 2.0 * h / b
                res[i] = (2.0 * u[1] - 2.0 * u[0] - ghost_coef * u[0] - 2.0 * h * b * dpsi_b) \
                    / (h * h) - f
                diag[i] = (-2.0 - ghost_coef) / (h * h) - df
                upper[i] = 2.0 / (h * h)
            elif i == n - 1:  # ghost point u[n] = u[n-2] - 2h kappa u[n-1]
                res[i] = (2.0 * u[i - 1] - 2.0 * u[i] - 2.0 * h * kappa * u[i]) / (h * h) - f
                diag[i] = (-2.0 - 2.0 * h * kappa) / (h * h) - df
                lower[i] = 2.0 / (h * h)
            else:
                res[i] = (u[i - 1] - 2.0 * u[i] + u[i + 1]) / (h * h) - f
                lower[i] = upper[i] = 1.0 / (h * h)
                diag[i] = -2.0 / (h * h) - df
        delta = _solve_tridiagonal(lower, diag, upper, [-v for v in res])
        u = [x + d for x, d in zip(u, delta)]
        if max(abs(d) for d in delta) <= tol * max(1.0, abs(u[0])):
            break
    else:
        raise ArithmeticError("radial Poisson-Boltzmann Newton iteration did not converge")
    psi_b = u[0] / b
    psi_a = epkt * q / (eps_out * a) + psi_b - epkt * q / (eps_out * b)
    reaction = psi_a - epkt * q / (eps_in * a)
    ionic = 0.0
    if nonlinear:
        c = k2 * eps_out / (8.0 * math.pi * epkt)
        integrand = []
        for x, ux in zip(r, u):
            psi = ux / x
            integrand.append((psi * math.sinh(psi) - 2.0 * (math.cosh(psi) - 1.0)) * x * x)
        integral = h * (sum(integrand) - 0.5 * (integrand[0] + integrand[-1]))
        ionic = c * 4.0 * math.pi * integral
    return {"charge_term": 0.5 * q * reaction, "ionic_term": ionic, "surface_potential": psi_b}
