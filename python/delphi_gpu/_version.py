"""The package version: the project's one version source is project(VERSION ...) in the
top-level CMakeLists.txt.  An installed package carries it in _version_installed.py (written by
setup.py); a source checkout reads it from CMakeLists.txt."""
import os
import re


def _from_cmake():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(os.path.dirname(here)), "CMakeLists.txt")
    with open(path) as fh:
        text = fh.read()
    m = re.search(r"project\(\s*delphi_gpu\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text)
    if not m:
        raise RuntimeError(f"no project(delphi_gpu VERSION x.y.z) in {path}")
    return m.group(1)


try:
    from ._version_installed import __version__
except ImportError:
    __version__ = _from_cmake()
