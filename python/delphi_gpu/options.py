"""Calculation options under the names of DelPhi's parameter-file statements.

``params_from_options(lib, **options)`` starts from the library's defaults
(dg_calc_default_params) and applies the given options; the library validates the values when
the calculation is created, and its message names the field.
"""
import math

import numpy as np

from . import _ctypes_api as api

# --nonlinear of the program: (dg_nonlinear_method, dg_nonlinear_term).
NONLINEAR_CHOICES = {"newton": (1, 0), "newton-polynomial": (1, 1), "delphi": (0, 0)}

# name -> (description, handler).  Handlers take (params, value, state).
OPTION_HELP = {
    "scale": "grid points per Angstrom (default 2)",
    "perfil": "percent of the grid the molecule fills (default 80)",
    "gsize": "points per axis, odd (default: from scale and perfil)",
    "acenter": "grid centre (x, y, z) in Angstrom",
    "center": "grid centre offset (x, y, z) in grid units from the molecule's box centre",
    "indi": "solute relative permittivity (default 2)",
    "exdi": "solvent relative permittivity (default 80)",
    "prbrad": "probe radius, Angstrom (default 1.4)",
    "ionrad": "ion exclusion radius, Angstrom (default 2)",
    "surface": "'molecular' (default) or 'vdw'",
    "temperature": "temperature in K (default 297.3342)",
    "temper": "temperature in Celsius (DelPhi's temper statement)",
    "salt": "concentration (mol/L) of the first salt",
    "valence": "(cation, anion) valences of the first salt (default (1, 1))",
    "salt2": "concentration (mol/L) of the second salt",
    "valence2": "(cation, anion) valences of the second salt (default (1, 1))",
    "bndcon": "boundary values: 1 zero, 2 dipolar, 3 focusing, 4 coulombic (or the names)",
    "energies": "energy terms: names grid, coulombic, reaction_field, ionic, or DelPhi's "
                "letters 'g,c,s,ion' (default: grid)",
    "solvation_two_run": "also solve the reference and report the grid-energy difference",
    "coarse_perfil": "focusing in one run: first solve on a grid of the same size that the "
                     "molecule fills this percent of (e.g. 20), bndcon on its faces, and take "
                     "the grid's boundary values from it",
    "coarse_scale": "focusing in one run: the coarse grid's scale instead (below scale)",
    "maxc": "stop when the max change <= maxc (kT/e)",
    "rmsc": "stop when the rms change <= rmsc",
    "normc": "stop when the norm change <= normc",
    "linit": "linear iterations (switches DelPhi's automatic mode off)",
    "autoc": "with linit: go on until the criterion is met",
    "conint": "convergence check every conint iterations (default 10)",
    "confra": "stride over the grid in convergence checks (default 1)",
    "nonit": "nonlinear PB blocks (> 0 with salt: nonlinear PB; 1..20 become 30, as DelPhi)",
    "relpar": "fixed nonlinear relaxation factor (default adaptive)",
    "relfac": "Gauss-Seidel spectral radius (default: estimated)",
    "max_iterations": "hard cap on iterations (default: max(2000, 20 x estimate))",
    "backend": "'auto' (default), 'cpu' or 'cuda'",
    "precision": "'double' (default), 'float' or 'mixed'",
    "device": "CUDA device ordinal (default 0)",
    "threads": "CPU threads (default: OpenMP's)",
    "solver": "'sor' (default), 'multigrid' or 'auto' (docs/MULTIGRID.md)",
    "nonlinear": "nonlinear PB method: 'newton' (default; exact sinh term), 'newton-polynomial' "
                 "(DelPhi's polynomial) or 'delphi' (DelPhi's nitit scheme)",
    "nonlinear_method": "the same as nonlinear",
    "equation": "'auto' (default), 'linear' or 'nonlinear'",
    "periodic": "periodic axes: 'none' (default) or letters of x, y, z, e.g. 'z' or 'xyz' "
                "(docs/PERIODIC.md); solved by the SOR or multigrid (Newton's steps too)",
    "pbx": "True: x periodic (DelPhi's pbx; the same as 'x' in periodic)",
    "pby": "True: y periodic (DelPhi's pby)",
    "pbz": "True: z periodic (DelPhi's pbz)",
}

PERIODIC_BITS = {"x": 1, "y": 2, "z": 4}


def periodic_bits(options):
    """dg_periodic_axis bits from periodic= and pbx/pby/pbz=."""
    bits = 0
    value = options.get("periodic", "none")
    if not isinstance(value, str):
        raise TypeError(f"periodic={value!r}: expected a string such as 'z' or 'xyz'")
    if value.lower() != "none":
        for letter in value.lower():
            if letter not in PERIODIC_BITS or bits & PERIODIC_BITS[letter]:
                raise ValueError(f"periodic={value!r}: expected 'none' or the letters x, y, z "
                                 f"each at most once")
            bits |= PERIODIC_BITS[letter]
    for name in ("pbx", "pby", "pbz"):
        if _flag(options.get(name), name):
            bits |= PERIODIC_BITS[name[2]]
    return bits


def _choice(table, value, name):
    if isinstance(value, str):
        key = value.lower()
        if key not in table:
            raise ValueError(f"{name}={value!r}: expected one of {sorted(table)}")
        return table[key]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}={value!r}: expected a name or an integer")
    return _int(value, name)


_INT_MIN, _INT_MAX = -2**31, 2**31 - 1
_TRUE_WORDS = ("true", "t", ".true.", "yes", "on", "1")
_FALSE_WORDS = ("false", "f", ".false.", "no", "off", "0")


def _int(value, name):
    """An integer option as C's int takes it: an integral number (41 or 41.0), never a bool,
    a fraction or a value C's int would wrap."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r}: expected an integer")
    if isinstance(value, str):  # '41', as float options take '2.0'
        try:
            value = int(value.strip())
        except ValueError:
            raise ValueError(f"{name}={value!r}: expected an integer") from None
    try:
        number = float(value) if not isinstance(value, (int, np.integer)) else int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}={value!r}: expected an integer") from None
    if isinstance(number, float):
        if not math.isfinite(number) or number != math.floor(number):
            raise ValueError(f"{name}={value!r}: expected an integer")
        number = int(number)
    if not _INT_MIN <= number <= _INT_MAX:
        raise ValueError(f"{name}={value!r}: out of range (a C int: {_INT_MIN} to {_INT_MAX})")
    return number


def _flag(value, name):
    """A yes/no option: a bool, 0 or 1, or DelPhi's words (true/false, t/f, yes/no, on/off)."""
    if isinstance(value, str):
        key = value.strip().lower()
        if key in _TRUE_WORDS:
            return True
        if key in _FALSE_WORDS:
            return False
        raise ValueError(f"{name}={value!r}: expected True or False (or true/false, yes/no, "
                         f"on/off)")
    if value is None:
        return False
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))
                                               and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name}={value!r}: expected True or False")


def _vec3(value, name):
    try:
        vec = [float(v) for v in value]
    except TypeError:
        raise TypeError(f"{name}={value!r}: expected three numbers") from None
    if len(vec) != 3:
        raise ValueError(f"{name}={value!r}: expected three numbers")
    return vec


def _valences(value, name):
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{name}={value!r}: expected (cation, anion) valences") from None
    if len(items) != 2:
        raise ValueError(f"{name}={value!r}: expected (cation, anion) valences")
    return [_int(v, name) for v in items]


def energy_flags(value):
    """dg_energy_flag bits from names or DelPhi letters ('g,s,c')."""
    if isinstance(value, str):
        items = [v.strip() for v in value.replace(";", ",").split(",") if v.strip()]
    else:
        try:
            items = list(value)
        except TypeError:
            raise TypeError(f"energies={value!r}: expected names or letters such as 'g,s,c' "
                            f"(grid, coulombic, reaction_field, ionic)") from None
    flags = 0
    for item in items:
        key = str(item).lower()
        key = api.ENERGY_LETTERS.get(key, key)
        if key not in api.ENERGY_FLAGS:
            raise ValueError(f"energies: unknown term {item!r} (grid, coulombic, reaction_field, "
                             f"ionic or g, c, s, ion)")
        flags |= api.ENERGY_FLAGS[key]
    return flags


def params_from_options(lib, **options):
    """A filled DgCalcParams; TypeError for an unknown option name."""
    unknown = sorted(set(options) - set(OPTION_HELP))
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; known: "
                        f"{', '.join(sorted(OPTION_HELP))}")
    p = api.DgCalcParams()
    lib.function("dg_calc_default_params")(p)
    o = p.solver
    get = options.get
    if "scale" in options:
        p.scale = float(get("scale"))
    if "perfil" in options:
        p.perfil = float(get("perfil"))
    if "gsize" in options:
        p.grid_size = _int(get("gsize"), "gsize")
        if "perfil" in options and "scale" not in options:
            p.scale = 0.0  # DelPhi: gsize and perfil give the scale
    if "acenter" in options and "center" in options:
        raise ValueError("give acenter or center, not both")
    if "acenter" in options:
        p.center_mode = api.CENTER_ABSOLUTE
        p.center[:] = _vec3(get("acenter"), "acenter")
    if "center" in options:
        p.center_mode = api.CENTER_OFFSET
        p.center[:] = _vec3(get("center"), "center")
    for name, field in (("indi", "epsilon_in"), ("exdi", "epsilon_out"),
                        ("prbrad", "probe_radius"), ("ionrad", "ion_radius"),
                        ("temperature", "temperature")):
        if name in options:
            setattr(p, field, float(options[name]))
    if "temper" in options:
        if "temperature" in options:
            raise ValueError("give temperature (K) or temper (Celsius), not both")
        p.temperature = float(get("temper")) + 273.15
    if "surface" in options:
        p.surface = _choice(api.SURFACES, get("surface"), "surface")
    salts = []
    for conc_name, val_name in (("salt", "valence"), ("salt2", "valence2")):
        conc = float(options.get(conc_name, 0.0) or 0.0)
        if val_name in options and conc_name not in options:
            raise ValueError(f"{val_name} given without {conc_name}")
        if conc != 0.0 or not math.isfinite(conc):
            salts.append((conc, _valences(options.get(val_name, (1, 1)), val_name)))
    p.salt_count = len(salts)
    for k, (conc, (zp, zm)) in enumerate(salts):
        p.salts[k].concentration = conc
        p.salts[k].cation_valence = zp
        p.salts[k].anion_valence = zm
    if "bndcon" in options:
        p.boundary = _choice(api.BOUNDARIES, get("bndcon"), "bndcon")
    if "energies" in options:
        p.energies = energy_flags(get("energies"))
    if "solvation_two_run" in options:
        p.solvation_two_run = 1 if _flag(get("solvation_two_run"), "solvation_two_run") else 0
    if "coarse_perfil" in options:
        p.coarse_perfil = float(get("coarse_perfil"))
    if "coarse_scale" in options:
        p.coarse_scale = float(get("coarse_scale"))

    # The solve, as the delphi-gpu program maps DelPhi's statements.
    if "backend" in options:
        o.backend = _choice(api.BACKENDS, get("backend"), "backend")
    if "precision" in options:
        o.precision = _choice(api.PRECISIONS, get("precision"), "precision")
    if "device" in options:
        o.device = _int(get("device"), "device")
    if "threads" in options:
        o.num_threads = _int(get("threads"), "threads")
    if "solver" in options:
        o.solver = _choice(api.SOLVERS, get("solver"), "solver")
    # The nonlinear PB method, as the program's --nonlinear (default: Newton's method on the
    # exact ionic term); nonlinear_method is the library's field name for the same choice.
    key = "nonlinear" if "nonlinear" in options else "nonlinear_method"
    o.periodic = periodic_bits(options)
    value = get(key, "newton")
    if isinstance(value, str):
        o.nonlinear_method, o.nonlinear_term = _choice(NONLINEAR_CHOICES, value, key)
    else:
        o.nonlinear_method, o.nonlinear_term = _choice({}, value, key), 0
    if "relfac" in options:
        o.spectral_radius = float(get("relfac"))
    if "linit" in options:
        o.iterations = _int(get("linit"), "linit")
        o.run_until_converged = 1 if _flag(get("autoc"), "autoc") else 0
    elif "autoc" in options:
        raise ValueError("autoc only applies with linit")
    if "conint" in options:
        o.check_interval = _int(get("conint"), "conint")
    if "confra" in options:
        o.check_stride = _int(get("confra"), "confra")
    for name, field in (("rmsc", "rms_change_tol"), ("maxc", "max_change_tol"),
                        ("normc", "norm_change_tol")):
        if name in options:
            setattr(o, field, float(options[name]))
    if "relpar" in options:
        o.relpar = float(get("relpar"))
    if "max_iterations" in options:
        o.max_iterations = _int(get("max_iterations"), "max_iterations")
    nonit = _int(get("nonit", 0) or 0, "nonit")
    if "equation" in options:
        o.equation = _choice(api.EQUATIONS, get("equation"), "equation")
    elif nonit > 0 and salts:
        o.equation = api.EQUATIONS["nonlinear"]
    if nonit > 0:
        o.nonlinear_blocks = 30 if nonit <= 20 else nonit
    return p
