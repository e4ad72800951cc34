"""One electrostatics problem on one grid: what both codes are asked to solve."""

import dataclasses
import math

from . import constants


@dataclasses.dataclass(frozen=True)
class Problem:
    """Molecule, grid and medium.  The grid is explicit (size, spacing, centre) so that
    delphi-gpu and APBS put their points at exactly the same places."""

    name: str
    pqr: str  # path of the PQR file both codes read
    gsize: int  # points per side (odd; for APBS also 16k + 1)
    scale: float  # grid points per Angstrom
    centre: tuple  # (x, y, z) Angstrom
    eps_in: float
    eps_out: float
    salt: float = 0.0  # mol/L of 1:1 salt
    ion_radius: float = 2.0  # Angstrom (DelPhi ionrad, APBS ion radius)
    probe: float = 1.4  # Angstrom (DelPhi prbrad, APBS srad)
    equation: str = "linear"  # "linear" (Poisson / linear PB) or "nonlinear"
    temperature: float = constants.SUITE_TEMPERATURE_K
    bndcon: int = 2  # DelPhi boundary condition (2 = dipolar Debye-Hueckel)
    nonlinear_method: str = "delphi"  # --nonlinear: delphi | newton | newton-polynomial

    def __post_init__(self):
        if self.gsize % 2 != 1 or self.gsize < 5:
            raise ValueError("%s: gsize %d must be odd and >= 5" % (self.name, self.gsize))
        if self.scale <= 0.0:
            raise ValueError("%s: scale must be positive" % self.name)
        if self.equation not in ("linear", "nonlinear"):
            raise ValueError("%s: equation %r" % (self.name, self.equation))
        if self.nonlinear_method not in ("delphi", "newton", "newton-polynomial"):
            raise ValueError("%s: nonlinear_method %r" % (self.name, self.nonlinear_method))
        if self.equation == "nonlinear" and self.salt <= 0.0:
            raise ValueError("%s: nonlinear PB needs salt" % self.name)

    @property
    def spacing(self):
        return 1.0 / self.scale

    @property
    def box_length(self):
        return (self.gsize - 1) / self.scale

    def reference_state(self):
        """The same molecule and grid with eps_in everywhere and no ions: the state whose energy
        is subtracted to get a solvation energy (APBS's second calculation; our second run)."""
        return dataclasses.replace(self, name=self.name + "-ref", eps_out=self.eps_in, salt=0.0,
                                   equation="linear")

    def kappa(self):
        """Inverse Debye length (1/Angstrom), DelPhi's formula; 0 without salt."""
        if self.salt <= 0.0:
            return 0.0
        return 1.0 / constants.delphi_debye_length(self.temperature, self.eps_out, self.salt)

    def describe(self):
        parts = ["grid %d^3" % self.gsize, "h = %.4g A" % self.spacing,
                 "eps %g/%g" % (self.eps_in, self.eps_out)]
        if self.salt > 0:
            parts.append("%g M salt (%s PB)" % (self.salt, self.equation))
        return ", ".join(parts)

    def key(self):
        """Identity of the physics and grid (name excluded): runs with equal keys are shared."""
        d = dataclasses.asdict(self)
        d.pop("name")
        d["centre"] = tuple(round(c, 6) for c in self.centre)
        return tuple(sorted(d.items()))


def fit_gsize(extent, scale, fill, apbs_compatible=True):
    """Smallest grid (odd, 16k+1 for APBS multigrid when asked) whose box holds `extent` Angstrom
    at `fill` (0..1, DelPhi's perfil / 100)."""
    needed = extent / fill * scale + 1.0
    n = int(math.ceil(needed))
    if apbs_compatible:
        k = max(2, int(math.ceil((n - 1) / 16.0)))
        return 16 * k + 1
    return n if n % 2 == 1 else n + 1
