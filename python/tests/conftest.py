"""Shared test set-up.  Environment (set by the ctest test `python`, see python/CMakeLists.txt):
  DELPHI_GPU_LIBRARY   the built libdelphi_gpu.so
  DELPHI_GPU_PROBE     the layout probe library (test_layout.py)
  DELPHI_GPU_PROGRAM   the delphi-gpu program (tests that compare with the program's outputs)
  DELPHI_GPU_TEST_BACKEND  backend for the calculations: cpu (default) or cuda
A test that reaches a library function this build lacks (NotInLibraryError) is skipped with
that reason; every other failure fails."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import delphi_gpu  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    outcome = yield
    exc = outcome.excinfo
    if exc is not None and issubclass(exc[0], delphi_gpu.NotInLibraryError):
        outcome.force_result(None)
        pytest.skip(f"not implemented in this library build: {exc[1]}")


@pytest.fixture
def backend():
    return os.environ.get("DELPHI_GPU_TEST_BACKEND", "cpu")


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def program():
    path = os.environ.get("DELPHI_GPU_PROGRAM")
    if not path:
        candidate = os.path.join(ROOT, "build", "host", "app", "delphi-gpu")
        path = candidate if os.path.exists(candidate) else None
    if not path:
        pytest.skip("the delphi-gpu program is not built (DG_BUILD_HOST=OFF)")
    return os.path.abspath(path)
