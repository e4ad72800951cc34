"""OpenMP's wait policy: chosen when the package loads the library (passive beside other work),
the environment's choice kept, nothing chosen when an OpenMP runtime is already loaded; a
process forked after a calculation runs the library on one thread."""
import ctypes.util
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")

CHILD = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import delphi_gpu as dg
before = dg.openmp_waiting()
dg.load_library()
print("before:", before)
print("after:", dg.openmp_waiting())
print("policy:", os.environ.get("OMP_WAIT_POLICY", "(none)"))
result, _ = dg.solve([[0.0, 0.0, 0.0]], [1.0], [2.0], gsize=21, scale=2.0, indi=2.0,
                     exdi=80.0, maxc=1e-6, backend="cpu", energies="g")
print("grid:", repr(result.energies["grid"]))
"""

CLEAN = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "DELPHI_GPU_WAIT_POLICY_CHOSEN",
         "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")


def run_child(extra=None, preload_openmp=False):
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    env["OMP_DISPLAY_ENV"] = "verbose"
    env.update(extra or {})
    code = CHILD
    if preload_openmp:
        code = "import ctypes, ctypes.util; ctypes.CDLL(ctypes.util.find_library('gomp'))\n" + code
    out = subprocess.run([sys.executable, "-c", code, PACKAGE], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout, out.stderr


@pytest.fixture
def spinner():
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        yield busy
    finally:
        busy.kill()
        busy.wait()


def line(text, key):
    m = re.search(rf"^{key}: (.*)$", text, re.M)
    assert m, text
    return m.group(1)


def test_passive_beside_other_work(spinner):
    out, err = run_child()
    assert line(out, "before") == "not chosen yet (the library is not loaded)"
    assert re.match(r"passive \(chosen at start: \d+ runnable tasks, load [0-9.]+; "
                    r"OMP_WAIT_POLICY=active or passive decides\)$", line(out, "after")), out
    assert line(out, "policy") == "passive"
    if "GOMP_SPINCOUNT" in err:  # GNU's runtime: really passive
        assert "GOMP_SPINCOUNT = '0'" in err, err


def test_environment_kept(spinner):
    out, err = run_child({"OMP_WAIT_POLICY": "active"})
    assert line(out, "after") == "OMP_WAIT_POLICY=active (the environment's)"
    assert line(out, "policy") == "active"


def test_runtime_loaded_first(spinner):
    if not ctypes.util.find_library("gomp"):
        pytest.skip("no libgomp to load first")
    out, _ = run_child(preload_openmp=True)
    assert line(out, "policy") == "(none)"
    assert line(out, "after").startswith("the OpenMP runtime's default")


def test_same_answer_either_way(spinner):
    passive, _ = run_child()
    active, _ = run_child({"OMP_WAIT_POLICY": "active"})
    assert line(passive, "grid") == line(active, "grid")


def test_choice_follows_what_was_seen():
    out, _ = run_child()
    after = line(out, "after")
    m = re.match(r"(passive|spinning) \(chosen at start: (\d+) runnable tasks?, load ([0-9.]+)",
                 after)
    assert m, after
    busy = int(m.group(2)) > 1 or float(m.group(3)) >= 1.0
    assert (m.group(1) == "passive") == busy, after
    assert line(out, "policy") == ("passive" if busy else "(none)")



FORK_CHILD = r"""
import os, signal, sys, warnings
sys.path.insert(0, sys.argv[1])
import delphi_gpu as dg
def born(**extra):
    return dg.solve([[0.0, 0.0, 0.0]], [1.0], [2.0], gsize=21, scale=2.0, indi=2.0, exdi=80.0,
                    maxc=1e-6, backend="cpu", energies="g", **extra)[0].energies["grid"]
first = born()  # the parent's first calculation starts the OpenMP threads
pid = os.fork()
if pid == 0:
    signal.alarm(60)  # a child left waiting for OpenMP threads ends instead of lingering
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same = born() == first and born(threads=2) == first
    print("child:", same, sum("cannot be used in a process forked" in str(w.message)
                              for w in caught), flush=True)
    os._exit(0)
_, code = os.waitpid(pid, 0)
print("child exit:", code)
print("parent again:", born(threads=2) == first)
"""


def test_forked_child_runs(spinner):
    """A process forked after a calculation (a 'fork' pool started late) computes the same
    answer, on one thread, instead of waiting forever for OpenMP threads that did not survive
    the fork; a request for more threads there is refused with a warning."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    for extra in ({}, {"OMP_WAIT_POLICY": "active"}):
        env.update(extra)
        out = subprocess.run([sys.executable, "-c", FORK_CHILD, PACKAGE], env=env,
                             capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stdout + out.stderr
        assert line(out.stdout, "child") == "True 1", out.stdout + out.stderr
        assert line(out.stdout, "child exit") == "0", out.stdout  # not ended by the alarm
        assert line(out.stdout, "parent again") == "True", out.stdout
