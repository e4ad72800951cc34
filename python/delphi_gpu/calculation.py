"""The calculation object: one warm PB calculation, re-run for new coordinates or charges."""
import ctypes
import math
from dataclasses import dataclass, field

import numpy as np

from . import _ctypes_api as api
from ._library import forked_after_load, limit_threads_after_fork, load
from .errors import error_for
from .maps import GridMap
from .options import params_from_options


@dataclass(frozen=True)
class Grid:
    """A cubic grid: ``n`` points per axis, ``scale`` points per Angstrom, ``center`` its middle
    point and ``origin`` the position of point (0, 0, 0), both in Angstrom."""

    n: int
    scale: float
    center: tuple
    origin: tuple

    @property
    def spacing(self):
        return 1.0 / self.scale

    def coordinates(self, axis):
        """Coordinates (Angstrom) of the grid points along axis 0, 1 or 2."""
        return self.origin[axis] + np.arange(self.n) / self.scale


@dataclass
class Result:
    """What one run produced.  ``energies`` holds only the terms that were computed (kT)."""

    grid: Grid
    energies: dict
    outcome: str
    converged: bool
    iterations: int
    solve: dict
    reference_solve: dict
    timing: dict
    boundary_points: int
    charged_points: int
    induced_charge: float
    expected_induced_charge: float
    atoms_outside: int
    backend: str
    notes: list = field(default_factory=list)
    coarse_grid: Grid = None  # focusing in one run (coarse_perfil / coarse_scale), else None
    coarse_solve: dict = None


@dataclass
class Binding:
    """The electrostatic binding of two partners (``Calculation.binding``), in kT.

    ``energy`` is the binding energy: the differences (complex minus both partners) of the
    Coulombic and corrected reaction-field energies, plus ``salt``, the salt's part (the
    difference of each state's grid energy with the salt minus without it; 0 without salt).
    ``grid_energy`` is the difference of the grid energies, DelPhi's one-grid recipe, which
    keeps part of the grid's self energy of the charges at the interface and so approaches
    ``energy`` only slowly as the scale grows.  ``difference`` holds every term's difference,
    ``complex`` the complex's run (a Result, as ``run()`` gives it), and ``partners`` one dict
    per partner: ``atoms``, ``net_charge``, ``energies``, ``salt_share``, ``solve``,
    ``converged`` (every solve of that state: the solve and its reference, salt-free and
    coarse solves), ``timing`` and, focusing in one run, ``coarse_solve``.  ``atom_energies`` (with ``binding(..., atom_energies=True)``,
    else None) holds each atom's part of ``energy``: (1/2) q times the difference, complex minus
    the atom's partner alone, of the Coulombic, reaction-field and salt potentials at it; the
    parts sum to ``energy`` (in a nonlinear run to ``energy`` minus the ionic terms'
    difference), and summed over a residue give its contribution."""

    energy: float
    salt: float
    grid_energy: float
    difference: dict
    complex: Result
    partners: list
    atom_energies: np.ndarray = None


def _energy_dict(e):
    return {name: float(getattr(e, name)) for name, _ in e._fields_
            if not math.isnan(getattr(e, name))}


def _struct_dict(s):
    return {name: getattr(s, name) for name, _ in s._fields_}


def _grid(g):
    return Grid(int(g.n), float(g.scale), tuple(g.center), tuple(g.origin))


def _solve_dict(r):
    d = _struct_dict(r)
    d["outcome"] = api.OUTCOME_NAMES.get(r.outcome, str(r.outcome))
    d["backend"] = api.BACKEND_NAMES.get(r.backend, str(r.backend))
    d["precision"] = api.PRECISION_NAMES.get(r.precision, str(r.precision))
    d["equation"] = api.EQUATION_NAMES.get(r.equation, str(r.equation))
    return d


def _array(value, name, shape_tail, count=None):
    if value is None:
        raise TypeError(f"{name}: None (expected an array of numbers)")
    a = np.ascontiguousarray(value, dtype=np.float64)
    if shape_tail == (3,):
        if a.ndim == 1 and a.size % 3 == 0:
            a = a.reshape(-1, 3)
        if a.ndim != 2 or a.shape[1] != 3:
            raise ValueError(f"{name}: expected shape (N, 3), got {np.shape(value)}")
    elif a.ndim != 1:
        raise ValueError(f"{name}: expected shape (N,), got {np.shape(value)}")
    if count is not None and a.shape[0] != count:
        raise ValueError(f"{name}: {a.shape[0]} entries for {count} atoms")
    return a


def _ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def _params(lib, options):
    """dg_calc_params for the options.  In a process forked after the library was loaded the
    library runs on one thread (_library.limit_threads_after_fork): more threads asked for are
    refused there with a warning."""
    params = params_from_options(lib, **options)
    if forked_after_load():
        limit_threads_after_fork()
        if params.solver.num_threads > 1:
            import warnings
            warnings.warn(
                f"delphi_gpu: threads={params.solver.num_threads} cannot be used in a process "
                "forked after the library started its OpenMP threads (GNU OpenMP cannot start "
                "them again there); this calculation runs on one thread. For several threads "
                "per process, use the 'spawn' or 'forkserver' start method, or run no "
                "calculation before the processes are forked.", RuntimeWarning, stacklevel=3)
            params.solver.num_threads = 1
    return params


class Calculation:
    """A PB calculation on one backend (GPU or CPU), created once and run many times.

    Options have the names of DelPhi's parameter-file statements (``scale``, ``perfil``,
    ``gsize``, ``indi``, ``exdi``, ``prbrad``, ``ionrad``, ``salt``, ``bndcon``, ``maxc``,
    ``linit``, ``nonit``, ...; see ``delphi_gpu.OPTION_HELP``).  Typical use::

        calc = Calculation(positions, charges, radii, scale=2, salt=0.15, maxc=1e-4,
                           energies="g,c,s")
        result = calc.run()                 # result.energies["grid"], ...
        phi = calc.potential()              # ndarray (n, n, n), phi[i, j, k] at (x_i, y_j, z_k)
        for frame in frames:                # MD frames: same atoms, same grid, device state kept
            calc.set_positions(frame)
            result = calc.run()

    Failures raise DelphiGpuError (or a subclass) with the library's message.
    """

    def __init__(self, positions=None, charges=None, radii=None, **options):
        self._lib = load()
        self._handle = ctypes.c_void_p()
        params = _params(self._lib, options)
        self._options = dict(options)
        st = self._lib.function("dg_calc_create")(ctypes.byref(self._handle), params)
        if st != 0:
            err = error_for(st, self._message(), "dg_calc_create")
            self.close()
            raise err
        self._count = None
        self._grid = None
        self._ran = False
        if positions is not None:
            self.set_atoms(positions, charges, radii)
        elif charges is not None or radii is not None:
            raise ValueError("charges and radii need positions")

    # ---- life cycle ------------------------------------------------------------------------
    def close(self):
        """Free the calculation and its device memory (also done when the object is collected)."""
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value:
            self._lib.function("dg_calc_destroy")(handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- helpers ---------------------------------------------------------------------------
    def _message(self):
        text = self._lib.function("dg_calc_last_error")(self._handle)
        return text.decode(errors="replace") if text else ""

    def _check(self, st, call):
        if st != 0:
            raise error_for(st, self._message(), call)

    def _live(self):
        if not self._handle.value:
            raise ValueError("the calculation is closed")
        limit_threads_after_fork()
        return self._handle

    @property
    def atom_count(self):
        return self._count

    @property
    def options(self):
        return dict(self._options)

    def set_options(self, **options):
        """Change options of this calculation (merged with the current ones), e.g. the salt or
        the energies, keeping the handle: the solver is restarted only when the backend,
        precision, device, threads or method change; the atoms stay and the grid is placed
        again from them."""
        merged = dict(self._options)
        merged.update(options)
        params = _params(self._lib, merged)
        self._check(self._lib.function("dg_calc_set_params")(self._live(), params),
                    "dg_calc_set_params")
        self._options = merged
        self._grid = None
        self._ran = False

    # ---- inputs ----------------------------------------------------------------------------
    def set_atoms(self, positions, charges, radii):
        """New atoms (copied): positions (N, 3) Angstrom, charges (N,) e, radii (N,) Angstrom.
        Places the grid from them (unless gsize and acenter fix it)."""
        xyz = _array(positions, "positions", (3,))
        n = xyz.shape[0]
        q = _array(charges, "charges", (), n)
        r = _array(radii, "radii", (), n)
        atoms = api.DgAtoms(n, xyz.ctypes.data, q.ctypes.data, r.ctypes.data)
        self._check(self._lib.function("dg_calc_set_atoms")(self._live(), ctypes.byref(atoms)),
                    "dg_calc_set_atoms")
        self._count = n
        self._grid = None
        self._ran = False

    def set_positions(self, positions):
        """New positions for the same atoms (an MD frame); the grid stays where it is."""
        if self._count is None:
            raise ValueError("set_positions before set_atoms")
        xyz = _array(positions, "positions", (3,), self._count)
        self._check(self._lib.function("dg_calc_set_positions")(self._live(), _ptr(xyz)),
                    "dg_calc_set_positions")
        self._ran = False

    def set_charges(self, charges):
        """New charges for the same atoms (a titration state)."""
        if self._count is None:
            raise ValueError("set_charges before set_atoms")
        q = _array(charges, "charges", (), self._count)
        self._check(self._lib.function("dg_calc_set_charges")(self._live(), _ptr(q)),
                    "dg_calc_set_charges")
        self._ran = False

    def set_focus_map(self, potential, scale=None, center=None):
        """The coarser map for bndcon=3 (focusing): a cubic (n, n, n) array indexed [x, y, z]
        with its scale and center, or a GridMap (``potential_map()`` of a coarser run, or a map
        read by ``read_phimap``, ``read_dx`` or ``read_mrc``)."""
        if isinstance(potential, GridMap):
            if scale is not None or center is not None:
                raise TypeError("set_focus_map: a GridMap carries its own scale and center")
            potential, scale, center = potential.values, potential.scale, potential.center
        elif scale is None or center is None:
            raise TypeError("set_focus_map: give scale and center with an array")
        phi = np.asarray(potential, dtype=np.float64)
        if phi.ndim != 3 or len(set(phi.shape)) != 1:
            raise ValueError(f"potential: expected a cubic (n, n, n) array, got {phi.shape}")
        flat = np.asfortranarray(phi).ravel(order="F")
        c = (ctypes.c_double * 3)(*_vec(center))
        self._check(self._lib.function("dg_calc_set_focus_map")(
            self._live(), _ptr(flat), phi.shape[0], float(scale), c), "dg_calc_set_focus_map")

    # ---- running and outputs ---------------------------------------------------------------
    def run(self):
        """Run the calculation for the current atoms; returns a Result.  A solve that does not
        converge is reported in ``result.outcome`` (not an exception)."""
        r = api.DgCalcResult()
        self._check(self._lib.function("dg_calc_run")(self._live(), ctypes.byref(r)),
                    "dg_calc_run")
        return self._result(r)

    def binding(self, partner, atom_energies=False):
        """The electrostatic binding of two partners of the current atoms: ``partner`` gives
        each atom's partner, 0 or 1 (a sequence of N ints or bools; each partner needs an
        atom).  Runs each partner alone and then the complex, all on the complex's grid; the
        calculation then holds the complex's run (``potential()`` etc. are the complex's).
        Returns a Binding, with each atom's part of the energy when ``atom_energies`` is true;
        bndcon="focusing" is refused (its map is one molecule's), focusing in one run
        (coarse_perfil, coarse_scale) gives each state its own coarse solve."""
        if self._count is None:
            raise ValueError("binding before set_atoms")
        part = np.asarray(partner)
        if part.shape != (self._count,):
            raise ValueError(f"partner: expected shape ({self._count},), got {part.shape}")
        if part.dtype == bool:
            part = part.astype(np.intc)
        elif not np.issubdtype(part.dtype, np.integer):
            raise ValueError(f"partner: expected 0/1 integers or bools, got {part.dtype}")
        # values C's int would wrap (the library names any other value that is not 0 or 1)
        wide = (part < -2**31) | (part > 2**31 - 1)
        if wide.any():
            bad = int(np.flatnonzero(wide)[0])
            raise ValueError(f"partner[{bad}] = {part[bad]} (must be 0 or 1)")
        part = np.ascontiguousarray(part, dtype=np.intc)
        r = api.DgCalcResult()
        b = api.DgCalcBinding()
        per_atom = np.empty(self._count, dtype=np.float64) if atom_energies else None
        fn = "dg_calc_run_binding"
        self._check(self._lib.function(fn)(
            self._live(), part.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), ctypes.byref(r),
            ctypes.byref(b), _ptr(per_atom) if atom_energies else None), fn)
        partners = []
        for k in range(2):
            solve = _solve_dict(b.solve[k])
            partners.append(dict(
                atoms=int(b.atoms[k]), net_charge=float(b.net_charge[k]),
                energies=_energy_dict(b.partner[k]), salt_share=float(b.salt_share[k + 1]),
                # every solve of the partner's state (those that did not run are zeroed: 0)
                solve=solve, converged=all(x.outcome == 0 for x in (
                    b.solve[k], b.reference_solve[k], b.salt_free_solve[k + 1],
                    b.coarse_solve[k], b.coarse_salt_free_solve[k + 1])),
                timing=_struct_dict(b.timing[k]),
                coarse_solve=_solve_dict(b.coarse_solve[k]) if r.coarse_grid.n else None))
        return Binding(energy=float(b.energy), salt=float(b.salt),
                       grid_energy=float(b.grid_energy),
                       difference=_energy_dict(b.difference), complex=self._result(r),
                       partners=partners, atom_energies=per_atom)

    def _result(self, r):
        self._ran = True
        self._grid = _grid(r.grid)
        energies = _energy_dict(r.energies)
        notes = self._lib.function("dg_calc_notes")(self._handle)
        notes = [line for line in (notes.decode(errors="replace") if notes else "").splitlines()
                 if line.strip()]
        solve = _solve_dict(r.solve)
        return Result(
            grid=self._grid,
            energies=energies,
            outcome=solve["outcome"],
            converged=r.solve.outcome == 0,
            iterations=int(r.solve.iterations),
            solve=solve,
            reference_solve=_solve_dict(r.reference_solve) if self._options.get(
                "solvation_two_run") else None,
            timing=_struct_dict(r.timing),
            boundary_points=int(r.boundary_points),
            charged_points=int(r.charged_points),
            induced_charge=float(r.induced_charge),
            expected_induced_charge=float(r.expected_induced_charge),
            atoms_outside=int(r.atoms_outside),
            backend=api.BACKEND_NAMES.get(r.backend, str(r.backend)),
            notes=notes,
            coarse_grid=_grid(r.coarse_grid) if r.coarse_grid.n else None,
            coarse_solve=_solve_dict(r.coarse_solve) if r.coarse_grid.n else None,
        )

    @property
    def grid(self):
        """The grid (after set_atoms)."""
        g = api.DgCalcGrid()
        self._check(self._lib.function("dg_calc_get_grid")(self._live(), ctypes.byref(g)),
                    "dg_calc_get_grid")
        return _grid(g)

    def potential(self, dtype=np.float64):
        """The last run's potential (kT/e) as an (n, n, n) ndarray: ``phi[i, j, k]`` is the
        point (x_i, y_j, z_k) of ``grid.coordinates``.  The array is Fortran-ordered, so its
        memory is x fastest, exactly DelPhi's phimap(igrid, igrid, igrid); faces included."""
        n = self.grid.n
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            out = np.empty(n * n * n, dtype=np.float64)
            fn, ptype = "dg_calc_potential_d", ctypes.c_double
        elif dtype == np.float32:
            out = np.empty(n * n * n, dtype=np.float32)
            fn, ptype = "dg_calc_potential_f", ctypes.c_float
        else:
            raise ValueError(f"dtype {dtype}: float64 or float32")
        self._check(self._lib.function(fn)(self._live(),
                                           out.ctypes.data_as(ctypes.POINTER(ptype))), fn)
        return out.reshape((n, n, n), order="F")

    def potential_map(self, title=""):
        """The last run's potential as a GridMap (for ``write_phimap``, ``write_dx``,
        ``write_mrc``, or another calculation's ``set_focus_map``)."""
        g = self.grid
        return GridMap(self.potential(), g.scale, g.center, title)

    def potentials_at(self, points):
        """Potential (kT/e) at points (M, 3) in Angstrom by trilinear interpolation of the last
        run's map; NaN outside the grid."""
        pts = _array(points, "points", (3,))
        out = np.empty(pts.shape[0], dtype=np.float64)
        self._check(self._lib.function("dg_calc_potentials_at")(
            self._live(), _ptr(pts), pts.shape[0], _ptr(out)), "dg_calc_potentials_at")
        return out

    def _sums_at(self, fn, points):
        pts = _array(points, "points", (3,))
        out = np.empty(pts.shape[0], dtype=np.float64)
        self._check(self._lib.function(fn)(self._live(), _ptr(pts), pts.shape[0], _ptr(out)), fn)
        return out

    def reaction_potentials_at(self, points):
        """Reaction-field potential (kT/e) at points (M, 3) in Angstrom, anywhere: the potential
        of the last run's induced surface charges (DelPhi's site(r)); needs a run with the
        "reaction_field" energy.  At the charged atoms, sum(q * it) / 2 is that energy."""
        return self._sums_at("dg_calc_reaction_potentials_at", points)

    def induced_charges(self):
        """The last run's induced surface charges (DelPhi's out(scrg)): positions (M, 3) in
        Angstrom on the molecular surface and charges (M,) in e; needs the "reaction_field"
        energy.  The reaction-field potential anywhere is their Coulomb potential in vacuum."""
        fn = self._lib.function("dg_calc_induced_charges")
        count = ctypes.c_long(0)
        self._check(fn(self._live(), ctypes.byref(count), None, None), "dg_calc_induced_charges")
        positions = np.empty((count.value, 3), dtype=np.float64)
        charges = np.empty(count.value, dtype=np.float64)
        self._check(fn(self._live(), ctypes.byref(count), _ptr(positions), _ptr(charges)),
                    "dg_calc_induced_charges")
        return positions, charges

    def coulombic_potentials_at(self, points):
        """Coulombic potential (kT/e) at points (M, 3) of the atoms' charges in a uniform
        epsilon_in (DelPhi's site(c)); an atom's own charge at its centre is left out."""
        return self._sums_at("dg_calc_coulombic_potentials_at", points)

    def coulombic_fields_at(self, points):
        """Coulombic field (kT/(e A)) at points (M, 3) of the atoms' charges in a uniform
        epsilon_in, as an (M, 3) array; times a charge at the point it is the Coulombic force
        on it (DelPhi's site(cf)).  An atom's own charge at its centre is left out."""
        pts = _array(points, "points", (3,))
        out = np.empty((pts.shape[0], 3), dtype=np.float64)
        fn = "dg_calc_coulombic_fields_at"
        self._check(self._lib.function(fn)(self._live(), _ptr(pts), pts.shape[0], _ptr(out)), fn)
        return out

    def reaction_forces(self):
        """DelPhi's reaction-field force (kT/A) on each atom after a run with the
        "reaction_field" energy, as an (N, 3) array (site(rf)): the induced surface charges'
        force on the atom's charge plus the charges' force on the surface charges it owns; the
        forces sum to zero over the molecule."""
        if self._count is None:
            raise ValueError("reaction_forces before set_atoms and run")
        out = np.empty((self.atom_count, 3), dtype=np.float64)
        fn = "dg_calc_reaction_forces"
        self._check(self._lib.function(fn)(self._live(), _ptr(out)), fn)
        return out


    def medium_maps(self):
        """The last run's dielectric medium and ion-accessibility map (DelPhi's out(eps)):
        ``solute`` an (n, n, n, 3) bool array, ``solute[i, j, k, a]`` true when the cell-face
        midpoint between point (i, j, k) and its neighbour one step along axis a (0 = x, 1 = y,
        2 = z) lies in the molecule (permittivity indi), false in the solvent (exdi); and
        ``ion_accessible`` an (n, n, n) bool array, true where mobile ions may be (at least
        radius + ionrad from every atom; computed for this call when the run had no salt).
        Fortran-ordered like ``potential()``."""
        n = self.grid.n
        solute = np.empty(3 * n * n * n, dtype=np.uint8)
        ions = np.empty(n * n * n, dtype=np.uint8)
        u8 = ctypes.POINTER(ctypes.c_ubyte)
        fn = "dg_calc_medium_maps"
        self._check(self._lib.function(fn)(self._live(), solute.ctypes.data_as(u8),
                                           ions.ctypes.data_as(u8)), fn)
        return (solute.reshape((n, n, n, 3), order="F") != 0,
                ions.reshape((n, n, n), order="F") != 0)


def _vec(value):
    v = [float(x) for x in value]
    if len(v) != 3:
        raise ValueError(f"expected three numbers, got {value!r}")
    return v


def solve(positions, charges, radii, **options):
    """One calculation: returns (Result, potential ndarray)."""
    with Calculation(positions, charges, radii, **options) as calc:
        result = calc.run()
        return result, calc.potential()
