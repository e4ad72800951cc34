"""Installs the delphi_gpu Python package: ``pip install ./python`` (after building the library
with scripts/configure.sh).  Pure Python over libdelphi_gpu through ctypes; needs NumPy only.

The version comes from project(VERSION ...) in the top-level CMakeLists.txt.  The built library
(DELPHI_GPU_LIBRARY, else build/delphi_gpu/libdelphi_gpu.so of this checkout) is copied into the
package so that the installed package finds it without any setting; without a build the package
installs alone and looks for the library at run time.
"""
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as fh:
        m = re.search(r"project\(\s*delphi_gpu\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", fh.read())
    if not m:
        raise RuntimeError("no project(delphi_gpu VERSION x.y.z) in the top-level CMakeLists.txt")
    return m.group(1)


def built_library():
    path = os.environ.get("DELPHI_GPU_LIBRARY") or os.path.join(ROOT, "build", "delphi_gpu",
                                                                  "libdelphi_gpu.so")
    return os.path.realpath(path) if os.path.exists(path) else None


class BuildPy(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "delphi_gpu")
        with open(os.path.join(target, "_version_installed.py"), "w") as fh:
            fh.write(f'__version__ = "{project_version()}"\n')
        lib = built_library()
        if lib:
            shutil.copyfile(lib, os.path.join(target, "libdelphi_gpu.so"))
            print(f"delphi_gpu: bundled {lib}")
        else:
            print("delphi_gpu: no built libdelphi_gpu found; set DELPHI_GPU_LIBRARY at run time")


setup(
    name="delphi_gpu",
    version=project_version(),
    description="Poisson-Boltzmann electrostatics on the GPU (DelPhi-style), NumPy interface",
    license="BSD-3-Clause",
    packages=["delphi_gpu"],
    python_requires=">=3.8",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildPy},
    zip_safe=False,
)
