"""ctypes mirrors of the C structs of delphi_gpu_types.h and delphi_gpu_calc.h.

Field names and order are the C ones; python/tests/test_layout.py checks every size and offset
against the C compiler through a small probe library built with the tests.  Function pointers
(progress callbacks) are mirrored as void pointers and always left NULL.
"""
import ctypes

c_int = ctypes.c_int
c_long = ctypes.c_long
c_double = ctypes.c_double
c_void_p = ctypes.c_void_p


class DgOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_int),
        ("version", c_int),
        ("backend", c_int),
        ("precision", c_int),
        ("device", c_int),
        ("num_threads", c_int),
        ("block_x", c_int),
        ("block_y", c_int),
        ("autotune", c_int),
        ("equation", c_int),
        ("omega", c_double),
        ("spectral_radius", c_double),
        ("iterations", c_int),
        ("run_until_converged", c_int),
        ("max_iterations", c_int),
        ("check_interval", c_int),
        ("check_stride", c_int),
        ("rms_change_tol", c_double),
        ("max_change_tol", c_double),
        ("norm_change_tol", c_double),
        ("nonlinear_blocks", c_int),
        ("relpar", c_double),
        ("qfact", c_double),
        ("divergence_checks", c_int),
        ("divergence_factor", c_double),
        ("progress", c_void_p),
        ("progress_user_data", c_void_p),
        ("solver", c_int),
        ("nonlinear_method", c_int),
        ("nonlinear_term", c_int),
        ("mpi_comm", c_void_p),
        ("periodic", c_int),
    ]


class DgSalt(ctypes.Structure):
    _fields_ = [
        ("concentration", c_double),
        ("cation_valence", c_int),
        ("anion_valence", c_int),
    ]


class DgCalcParams(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_int),
        ("version", c_int),
        ("scale", c_double),
        ("perfil", c_double),
        ("grid_size", c_int),
        ("center_mode", c_int),
        ("center", c_double * 3),
        ("epsilon_in", c_double),
        ("epsilon_out", c_double),
        ("probe_radius", c_double),
        ("ion_radius", c_double),
        ("surface", c_int),
        ("temperature", c_double),
        ("salts", DgSalt * 2),
        ("salt_count", c_int),
        ("boundary", c_int),
        ("energies", c_int),
        ("solvation_two_run", c_int),
        ("solver", DgOptions),
        ("stage_progress", c_void_p),
        ("stage_progress_user_data", c_void_p),
        ("coarse_scale", c_double),
        ("coarse_perfil", c_double),
    ]


class DgAtoms(ctypes.Structure):
    _fields_ = [
        ("count", c_long),
        ("position", c_void_p),
        ("charge", c_void_p),
        ("radius", c_void_p),
    ]


class DgCalcGrid(ctypes.Structure):
    _fields_ = [
        ("n", c_int),
        ("scale", c_double),
        ("center", c_double * 3),
        ("origin", c_double * 3),
    ]


class DgResult(ctypes.Structure):
    _fields_ = [
        ("outcome", c_int),
        ("iterations", c_int),
        ("linear_iterations", c_int),
        ("nonlinear_blocks", c_int),
        ("checks", c_int),
        ("max_change", c_double),
        ("rms_change", c_double),
        ("norm_change", c_double),
        ("spectral_radius", c_double),
        ("omega", c_double),
        ("final_relpar", c_double),
        ("estimated_iterations", c_int),
        ("backend", c_int),
        ("precision", c_int),
        ("equation", c_int),
        ("setup_seconds", c_double),
        ("solve_seconds", c_double),
        ("total_seconds", c_double),
        ("solver", c_int),
    ]


class DgCalcEnergies(ctypes.Structure):
    _fields_ = [
        ("grid", c_double),
        ("coulombic", c_double),
        ("reaction_field", c_double),
        ("self_reaction", c_double),
        ("total_reaction_field", c_double),
        ("ionic_rho_phi", c_double),
        ("ionic_osmotic", c_double),
        ("ionic_total", c_double),
        ("grid_reference", c_double),
        ("solvation_two_run", c_double),
    ]


class DgCalcTiming(ctypes.Structure):
    _fields_ = [
        (name, c_double)
        for name in ("grid", "surface", "medium", "charges", "boundary", "solve", "energies",
                     "reference", "coarse", "total")
    ]


class DgCalcResult(ctypes.Structure):
    _fields_ = [
        ("grid", DgCalcGrid),
        ("solve", DgResult),
        ("reference_solve", DgResult),
        ("energies", DgCalcEnergies),
        ("timing", DgCalcTiming),
        ("boundary_points", c_long),
        ("charged_points", c_long),
        ("induced_charge", c_double),
        ("expected_induced_charge", c_double),
        ("atoms_outside", c_long),
        ("sites_outside", c_long),
        ("backend", c_int),
        ("coarse_grid", DgCalcGrid),
        ("coarse_solve", DgResult),
    ]


class DgCalcBinding(ctypes.Structure):
    _fields_ = [
        ("atoms", c_long * 2),
        ("net_charge", c_double * 2),
        ("energy", c_double),
        ("salt", c_double),
        ("salt_share", c_double * 3),
        ("grid_energy", c_double),
        ("bound", DgCalcEnergies),
        ("partner", DgCalcEnergies * 2),
        ("difference", DgCalcEnergies),
        ("solve", DgResult * 2),
        ("reference_solve", DgResult * 2),
        ("salt_free_solve", DgResult * 3),
        ("timing", DgCalcTiming * 2),
        ("coarse_solve", DgResult * 2),
        ("coarse_salt_free_solve", DgResult * 3),
    ]


# Every mirrored struct, by its C type name (the layout test walks this table).
STRUCTS = {
    "dg_options": DgOptions,
    "dg_salt": DgSalt,
    "dg_calc_params": DgCalcParams,
    "dg_atoms": DgAtoms,
    "dg_calc_grid": DgCalcGrid,
    "dg_result": DgResult,
    "dg_calc_energies": DgCalcEnergies,
    "dg_calc_timing": DgCalcTiming,
    "dg_calc_result": DgCalcResult,
    "dg_calc_binding": DgCalcBinding,
}

# Enumerations (delphi_gpu_types.h, delphi_gpu_calc.h).
STATUS_NAMES = {
    0: "DG_OK",
    1: "DG_ERR_INVALID_ARGUMENT",
    2: "DG_ERR_INVALID_GRID",
    3: "DG_ERR_NONFINITE_INPUT",
    4: "DG_ERR_INDEX_OUT_OF_RANGE",
    5: "DG_ERR_WRONG_PARITY",
    6: "DG_ERR_COUNT_MISMATCH",
    7: "DG_ERR_BAD_PERMITTIVITY",
    8: "DG_ERR_BAD_OMEGA",
    9: "DG_ERR_BACKEND_NOT_BUILT",
    10: "DG_ERR_NO_DEVICE",
    11: "DG_ERR_DEVICE",
    12: "DG_ERR_OUT_OF_MEMORY",
    13: "DG_ERR_DEVICE_OUT_OF_MEMORY",
    14: "DG_ERR_STATE",
    15: "DG_ERR_UNSUPPORTED",
    16: "DG_ERR_INTERNAL",
}
BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2, "gpu": 2}
BACKEND_NAMES = {0: "auto", 1: "cpu", 2: "cuda"}
PRECISIONS = {"double": 0, "float": 1, "single": 1, "mixed": 2}
PRECISION_NAMES = {0: "double", 1: "float", 2: "mixed"}
EQUATIONS = {"auto": 0, "linear": 1, "nonlinear": 2}
EQUATION_NAMES = {0: "auto", 1: "linear", 2: "nonlinear"}
SOLVERS = {"sor": 0, "multigrid": 1, "auto": 2}
NONLINEAR_METHODS = {"delphi": 0, "newton": 1}
OUTCOME_NAMES = {
    0: "converged",
    1: "completed",
    2: "not_converged",
    3: "diverged",
    4: "stopped",
    5: "float_resolution",
}
BOUNDARIES = {"zero": 1, "dipolar": 2, "focusing": 3, "coulombic": 4}
SURFACES = {"molecular": 0, "vdw": 1}
CENTER_BOX, CENTER_ABSOLUTE, CENTER_OFFSET = 0, 1, 2
ENERGY_FLAGS = {"grid": 1, "coulombic": 2, "reaction_field": 4, "ionic": 8}
# DelPhi's energy() letters: g grid, c coulombic, s (a)n reaction field ("solvation"), ion.
ENERGY_LETTERS = {"g": "grid", "c": "coulombic", "s": "reaction_field", "an": "reaction_field",
                  "ion": "ionic"}
