"""delphi_gpu: Poisson-Boltzmann electrostatics on the GPU (or CPU) from Python.

NumPy in and out over the C library's calculation layer (delphi_gpu_calc.h), through ctypes:

    import delphi_gpu as dg
    atoms = dg.read_pqr("examples/1ubq/1ubq.pqr")
    with dg.Calculation(atoms.positions, atoms.charges, atoms.radii,
                        scale=2, salt=0.15, maxc=1e-4, energies="g,c,s") as calc:
        result = calc.run()          # result.energies: {"grid": ..., "coulombic": ..., ...}
        phi = calc.potential()       # (n, n, n) ndarray, phi[i, j, k] at (x_i, y_j, z_k)

Options use DelPhi's parameter-file names (OPTION_HELP lists them).  The library is found via
DELPHI_GPU_LIBRARY, next to the package, in the source checkout's build/ or on the system path.
"""
from ._version import __version__
from ._library import LibraryNotFoundError, NotInLibraryError, load as load_library
from ._library import openmp_waiting
from .calculation import Binding, Calculation, Grid, Result, solve
from .errors import DelphiGpuError, InvalidInputError, OutOfMemoryError
from .maps import GridMap, read_dx, read_mrc, read_phimap, write_dx, write_mrc, write_phimap
from .options import OPTION_HELP
from .pqr import Atoms, read_pqr, read_pqr_models, write_pqr_models


def library_version():
    """The loaded C library's version string (it matches __version__ for one build)."""
    return load_library().version()


def backend_built(name):
    """Whether the loaded library contains the backend 'cpu' or 'cuda'."""
    from ._ctypes_api import BACKENDS
    return bool(load_library().function("dg_backend_built")(BACKENDS[name]))


def cuda_device_count():
    """Number of usable CUDA devices (0 without a GPU or without the CUDA backend)."""
    import ctypes
    lib = load_library()
    count = ctypes.c_int(0)
    st = lib.function("dg_cuda_device_count")(ctypes.byref(count))
    return count.value if st == 0 else 0


__all__ = [
    "__version__", "Binding", "Calculation", "Grid", "Result", "solve", "DelphiGpuError",
    "InvalidInputError", "OutOfMemoryError", "LibraryNotFoundError", "NotInLibraryError",
    "GridMap", "read_dx", "read_mrc", "read_phimap", "write_dx", "write_mrc", "write_phimap",
    "OPTION_HELP", "Atoms",
    "read_pqr", "read_pqr_models", "write_pqr_models", "library_version", "backend_built",
    "cuda_device_count", "load_library", "openmp_waiting",
]
