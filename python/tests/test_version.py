"""One version source: the package, the loaded library and CMake's project(VERSION) agree."""
import os
import re

import delphi_gpu


def test_package_matches_library():
    assert delphi_gpu.__version__ == delphi_gpu.library_version()


def test_package_matches_cmake(root):
    with open(os.path.join(root, "CMakeLists.txt")) as fh:
        m = re.search(r"project\(\s*delphi_gpu\s+VERSION\s+([0-9.]+)", fh.read())
    assert m and delphi_gpu.__version__ == m.group(1)
