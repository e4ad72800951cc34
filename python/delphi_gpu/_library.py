"""Finding and loading libdelphi_gpu, and the prototypes of the C functions used.

The library is looked for, in order:
  1. the file named by the environment variable DELPHI_GPU_LIBRARY;
  2. next to this package (``pip install`` copies it there when it finds a build), or where
     ``cmake --install`` put it (DG_INSTALL_PYTHON);
  3. the build tree of the source checkout this package sits in (``build/delphi_gpu/``);
  4. the system's library path (``libdelphi_gpu.so.<major>``, then ``libdelphi_gpu.so``).
It is loaded on first use, so the map readers and writers work without it.
"""
import ctypes
import ctypes.util
import glob
import os
import threading
import time

from . import _ctypes_api as api

_lock = threading.Lock()
_loaded = None


class LibraryNotFoundError(OSError):
    """libdelphi_gpu could not be found or loaded."""


class NotInLibraryError(NotImplementedError):
    """The loaded libdelphi_gpu lacks a function this package needs (an older or partial build)."""


def _candidates():
    env = os.environ.get("DELPHI_GPU_LIBRARY")
    if env:
        yield env, "DELPHI_GPU_LIBRARY"
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "libdelphi_gpu.so*"))):
        yield path, "next to the package"
    try:  # written by `cmake --install` with DG_INSTALL_PYTHON
        from ._library_installed import LIBRARY
        yield LIBRARY, "the CMake install"
    except ImportError:
        pass
    checkout = os.path.dirname(os.path.dirname(here))
    path = os.path.join(checkout, "build", "delphi_gpu", "libdelphi_gpu.so")
    if os.path.exists(path):
        yield path, "the source checkout's build tree"
    found = ctypes.util.find_library("delphi_gpu")
    if found:
        yield found, "the system library path"


def _places_looked():
    """Where _candidates() looks, each with what it found there (for the not-found message)."""
    env = os.environ.get("DELPHI_GPU_LIBRARY")
    if env:
        return [f"DELPHI_GPU_LIBRARY={env}"]
    here = os.path.dirname(os.path.abspath(__file__))
    places = [f"next to the package ({os.path.join(here, 'libdelphi_gpu.so*')}: none)"]
    try:
        from ._library_installed import LIBRARY
        places.append(f"the CMake install ({LIBRARY})")
    except ImportError:
        places.append("the CMake install (this package was not installed by cmake --install)")
    checkout = os.path.dirname(os.path.dirname(here))
    path = os.path.join(checkout, "build", "delphi_gpu", "libdelphi_gpu.so")
    places.append(f"the source checkout's build tree ({path}"
                  f"{'' if os.path.exists(path) else ': absent'})")
    places.append("the system library path (ldconfig's cache and LD_LIBRARY_PATH"
                  f"{'' if ctypes.util.find_library('delphi_gpu') else ': none'})")
    return places


class Library:
    """The loaded shared library with its function prototypes."""

    def __init__(self, handle, path):
        self.handle = handle
        self.path = path
        self._functions = {}

    def function(self, name):
        """The C function `name` with its prototype; NotInLibraryError when the library lacks it."""
        fn = self._functions.get(name)
        if fn is not None:
            return fn
        proto = _PROTOTYPES.get(name)
        if proto is None:
            raise KeyError(f"no prototype for {name}")
        try:
            fn = getattr(self.handle, name)
        except AttributeError:
            raise NotInLibraryError(
                f"{self.path} has no {name}: this build of libdelphi_gpu does not contain the "
                f"function (rebuild the library from the same source as this package)") from None
        fn.restype, fn.argtypes = proto
        self._functions[name] = fn
        return fn

    def has(self, name):
        return hasattr(self.handle, name)

    def version(self):
        return self.function("dg_version_string")().decode()


# OpenMP's wait policy.  The OpenMP runtime spins its idle threads between parallel regions;
# with several processes side by side (a multiprocessing pool) their spinning threads take each
# other's cores (docs/PERFORMANCE.md run 57: 16 runs on 16 cores, 32 s spinning against 0.34 s
# passive).  The runtime reads its settings once, when it is loaded, which here is with the
# library.  So, as the delphi-gpu program does at its start (delphi_gpu_start.h), the package
# looks at the machine just before it loads the library: unless the environment chooses, the
# process is an MPI rank or an OpenMP runtime is already loaded, another runnable task or a
# one-minute load of at least 1 sets OMP_WAIT_POLICY=passive for this process.
_WAIT_CHOSEN = "DELPHI_GPU_WAIT_POLICY_CHOSEN"
_WAIT_USER = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")
_MPI_RANK = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")
_wait_choice = None  # "spin R L" when the package kept spinning; passive is in the environment


def _mapped_files():
    """The files mapped into this process (/proc/self/maps), or None when unreadable."""
    try:
        with open("/proc/self/maps") as maps:
            return {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        return None


def _openmp_loaded():
    """Whether an OpenMP runtime is mapped into this process already (None: unknown)."""
    files = _mapped_files()
    if files is None:
        return None
    return any(name in path for path in files for name in ("libgomp", "libomp.so", "libiomp"))


def _machine_load():
    """(runnable tasks now, one-minute load) from /proc/loadavg, or None."""
    try:
        with open("/proc/loadavg") as f:
            fields = f.read().split()
        return int(fields[3].split("/")[0]), float(fields[0])
    except (OSError, IndexError, ValueError):
        return None


def _choose_wait_policy():
    global _wait_choice
    env = os.environ
    if any(name in env for name in (_WAIT_CHOSEN,) + _WAIT_USER + _MPI_RANK):
        return
    if _openmp_loaded() is not False:
        return
    seen = _machine_load()
    if seen is not None and seen[0] > 1 and seen[1] < 1.0:
        time.sleep(0.002)  # a task that starts beside this one may soon wait: look again
        seen = _machine_load()
    if seen is not None and seen[0] <= 1 and seen[1] < 1.0:
        _wait_choice = f"spin {seen[0]} {seen[1]:.2f}"
        return
    env["OMP_WAIT_POLICY"] = "passive"
    env[_WAIT_CHOSEN] = "passive -1 -1" if seen is None else f"passive {seen[0]} {seen[1]:.2f}"


# A process forked after the library was loaded (a multiprocessing pool with the "fork" start
# method, started after a first calculation in the parent) inherits a GNU OpenMP runtime whose
# threads did not survive the fork: a parallel loop on several threads there waits for them
# forever.  So in such a child every thread that calls the library first sets its OpenMP team
# size to one (a pool's workers are the parallelism then), and a calculation that asks for more
# threads is given one, with a warning.
_forked_after_load = False
_gnu_openmp = None
_thread_state = threading.local()


def _gnu_openmp_runtime():
    """The GNU OpenMP runtime mapped into this process (ctypes), or None."""
    for path in sorted(path for path in _mapped_files() or () if "libgomp" in path):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def _after_fork_in_child():
    global _forked_after_load, _gnu_openmp, _thread_state
    _thread_state = threading.local()
    if _loaded is None:
        return
    _gnu_openmp = _gnu_openmp_runtime()
    _forked_after_load = _gnu_openmp is not None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def forked_after_load():
    """Whether this process was forked after the library (and GNU OpenMP) was loaded."""
    return _forked_after_load


def limit_threads_after_fork():
    """In a process forked after the library was loaded: the calling thread's OpenMP loops run
    on one thread (see above).  Nothing elsewhere."""
    if not _forked_after_load or getattr(_thread_state, "limited", False):
        return
    _gnu_openmp.omp_set_num_threads(1)
    _thread_state.limited = True


def openmp_waiting():
    """How this process's OpenMP threads wait between parallel regions, and why (text).

    The package chooses when it loads the library (passive on a busy machine, else the
    runtime's spinning) unless the environment chooses (OMP_WAIT_POLICY, GOMP_SPINCOUNT,
    KMP_BLOCKTIME); before the library is loaded nothing has been chosen yet."""
    chosen = os.environ.get(_WAIT_CHOSEN)
    choice = chosen or _wait_choice
    if choice:
        how, _, seen = choice.partition(" ")
        running, _, load = seen.partition(" ")
        what = "passive" if how == "passive" else "spinning"
        if running.startswith("-"):
            return f"{what} (chosen at start; the machine's load unknown)"
        tasks = "task" if running == "1" else "tasks"
        return (f"{what} (chosen at start: {running} runnable {tasks}, load {load}; "
                f"OMP_WAIT_POLICY=active or passive decides)")
    for name in _WAIT_USER:
        if name in os.environ:
            return f"{name}={os.environ[name]} (the environment's)"
    if _loaded is None:
        return "not chosen yet (the library is not loaded)"
    return "the OpenMP runtime's default (an MPI rank, or a runtime loaded before this package)"


def load():
    """The library (loaded once per process)."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        _choose_wait_policy()
        tried = []
        for path, where in _candidates():
            try:
                handle = ctypes.CDLL(path)
            except OSError as exc:
                tried.append(f"{path} ({where}): {exc}")
                continue
            _loaded = Library(handle, getattr(handle, "_name", path))
            return _loaded
        detail = ("could not load: " + "; ".join(tried) + "; ") if tried else ""
        raise LibraryNotFoundError(
            "libdelphi_gpu not found (" + detail + "looked in: " + "; ".join(_places_looked()) +
            "). Build it (scripts/configure.sh) and set "
            "DELPHI_GPU_LIBRARY=/path/to/libdelphi_gpu.so, or install the package with "
            "`pip install ./python` after the build.")


_P = ctypes.POINTER
_dbl_p = _P(ctypes.c_double)
_flt_p = _P(ctypes.c_float)
_calc = ctypes.c_void_p

_PROTOTYPES = {
    "dg_version_string": (ctypes.c_char_p, []),
    "dg_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "dg_outcome_string": (ctypes.c_char_p, [ctypes.c_int]),
    "dg_backend_built": (ctypes.c_int, [ctypes.c_int]),
    "dg_cuda_device_count": (ctypes.c_int, [_P(ctypes.c_int)]),
    "dg_default_options": (None, [_P(api.DgOptions)]),
    "dg_calc_default_params": (None, [_P(api.DgCalcParams)]),
    "dg_calc_create": (ctypes.c_int, [_P(_calc), _P(api.DgCalcParams)]),
    "dg_calc_set_params": (ctypes.c_int, [_calc, _P(api.DgCalcParams)]),
    "dg_calc_destroy": (None, [_calc]),
    "dg_calc_last_error": (ctypes.c_char_p, [_calc]),
    "dg_calc_notes": (ctypes.c_char_p, [_calc]),
    "dg_calc_set_atoms": (ctypes.c_int, [_calc, _P(api.DgAtoms)]),
    "dg_calc_set_positions": (ctypes.c_int, [_calc, _dbl_p]),
    "dg_calc_set_charges": (ctypes.c_int, [_calc, _dbl_p]),
    "dg_calc_set_focus_map": (ctypes.c_int,
                              [_calc, _dbl_p, ctypes.c_int, ctypes.c_double, _dbl_p]),
    "dg_calc_run": (ctypes.c_int, [_calc, _P(api.DgCalcResult)]),
    "dg_calc_run_binding": (ctypes.c_int, [_calc, _P(ctypes.c_int), _P(api.DgCalcResult),
                                           _P(api.DgCalcBinding), _dbl_p]),
    "dg_calc_get_grid": (ctypes.c_int, [_calc, _P(api.DgCalcGrid)]),
    "dg_calc_potential_f": (ctypes.c_int, [_calc, _flt_p]),
    "dg_calc_potential_d": (ctypes.c_int, [_calc, _dbl_p]),
    "dg_calc_potentials_at": (ctypes.c_int, [_calc, _dbl_p, ctypes.c_long, _dbl_p]),
    "dg_calc_reaction_potentials_at": (ctypes.c_int, [_calc, _dbl_p, ctypes.c_long, _dbl_p]),
    "dg_calc_coulombic_potentials_at": (ctypes.c_int, [_calc, _dbl_p, ctypes.c_long, _dbl_p]),
    "dg_calc_coulombic_fields_at": (ctypes.c_int, [_calc, _dbl_p, ctypes.c_long, _dbl_p]),
    "dg_calc_reaction_forces": (ctypes.c_int, [_calc, _dbl_p]),
    "dg_calc_induced_charges": (ctypes.c_int, [_calc, ctypes.POINTER(ctypes.c_long), _dbl_p,
                                               _dbl_p]),
    "dg_calc_medium_maps": (ctypes.c_int, [_calc, _P(ctypes.c_ubyte), _P(ctypes.c_ubyte)]),
}
