"""Errors are Python exceptions carrying the library's message."""
import numpy as np
import pytest

import delphi_gpu as dg


def test_bad_option_value_names_the_field(backend):
    with pytest.raises(dg.InvalidInputError) as info:
        dg.Calculation(backend=backend, indi=-3.0)
    err = info.value
    assert err.status in range(1, 9) and err.message
    assert "-3" in err.message and "dg_calc_create" in str(err)


def test_even_grid_size_is_reported(backend):
    pos, q, r = np.zeros((1, 3)), np.ones(1), np.full(1, 2.0)
    try:
        calc = dg.Calculation(pos, q, r, backend=backend, gsize=40)
    except dg.InvalidInputError as err:
        assert "40" in err.message
    else:  # the library adjusts an even size and says so in the notes
        res = calc.run()
        assert res.grid.n % 2 == 1 and res.notes


def test_python_side_checks():
    with pytest.raises(TypeError, match="unknown option"):
        dg.Calculation(scal=2.0)
    with pytest.raises(ValueError, match="bndcon"):
        dg.Calculation(bndcon="nowhere")
    with pytest.raises(ValueError, match="shape"):
        dg.Calculation(np.zeros((3, 2)), np.zeros(3), np.zeros(3))


def test_nonfinite_input(backend):
    pos = np.array([[0.0, np.nan, 0.0]])
    with pytest.raises(dg.InvalidInputError) as info:
        dg.Calculation(pos, np.ones(1), np.full(1, 2.0), backend=backend)
    assert info.value.message


def test_cuda_without_device():
    if not dg.backend_built("cuda"):
        expected = "DG_ERR_BACKEND_NOT_BUILT"
    elif dg.cuda_device_count() == 0:
        expected = "DG_ERR_NO_DEVICE"
    else:
        pytest.skip("a GPU is present: nothing to check here")
    with pytest.raises(dg.DelphiGpuError) as info:
        calc = dg.Calculation(np.zeros((1, 3)), np.ones(1), np.full(1, 2.0), backend="cuda")
        calc.run()
    assert info.value.status_name == expected and info.value.message


def test_gsize_with_perfil_derives_the_scale(backend):
    """DelPhi's rule: gsize and perfil without scale give the scale."""
    pos = np.array([[-5.0, 0.0, 0.0], [5.0, 0.0, 0.0]])
    calc = dg.Calculation(pos, np.array([1.0, -1.0]), np.full(2, 2.0), backend=backend,
                          gsize=41, perfil=50)
    g = calc.grid
    assert g.n == 41 and g.scale != 2.0
    # The molecule's extent (14 A with radii) fills about half of the 40 spacings.
    assert 14.0 * g.scale == pytest.approx(0.5 * 40, rel=0.1)


def test_integer_and_flag_options_are_strict():
    """Integer options never wrap or truncate (C's int takes them), yes/no options read DelPhi's
    words, and a missing array is named."""
    pos, q, r = np.zeros((1, 3)), np.ones(1), np.full(1, 2.0)
    for name, value in (("gsize", 2**32 + 41), ("linit", 2**32 + 20),
                        ("max_iterations", 2**32 + 3)):
        with pytest.raises(ValueError, match="out of range"):
            dg.Calculation(**{name: value})
    for name, value in (("gsize", 41.7), ("linit", 2.9), ("valence", (1.7, 1))):
        options = {name: value, "salt": 0.1} if name == "valence" else {name: value}
        with pytest.raises(ValueError, match=name):
            dg.Calculation(**options)
    with pytest.raises(ValueError, match="gsize"):
        dg.Calculation(gsize="41.5")
    with pytest.raises(ValueError, match="pbx"):
        dg.Calculation(pbx="maybe")
    with pytest.raises(TypeError, match="energies"):
        dg.Calculation(energies=None)
    with pytest.raises(TypeError, match="charges"):
        dg.Calculation(pos, None, r)
    # Integral floats and DelPhi's words are taken at their value.
    a = dg.Calculation(pos, q, r, backend="cpu", gsize=41.0, pbx="no", solvation_two_run="no")
    b = dg.Calculation(pos, q, r, backend="cpu", gsize=41)
    assert a.grid.n == b.grid.n == 41
    with pytest.raises(ValueError, match="partner"):
        b.binding(np.array([2**32 + 1]))
    c = dg.Calculation(backend="cpu")
    with pytest.raises(ValueError, match="set_atoms"):
        c.reaction_forces()


def test_maps_need_a_finite_centre(tmp_path):
    with pytest.raises(ValueError, match="center"):
        dg.GridMap(np.zeros((3, 3, 3)), 2.0, (0.0, float("nan"), 0.0))
    with pytest.raises(ValueError, match="scale"):
        dg.GridMap(np.zeros((3, 3, 3)), 0.0, (0.0, 0.0, 0.0))


def test_failed_options_then_good_ones(backend):
    """Options whose grid the atoms cannot have fail; good ones afterwards place it again."""
    pos, q, r = np.zeros((1, 3)), np.ones(1), np.full(1, 2.0)
    calc = dg.Calculation(pos, q, r, backend=backend, scale=2, perfil=20, bndcon=4,
                          maxc=1e-4, energies="g")
    first = calc.run()
    with pytest.raises(dg.InvalidInputError):
        calc.set_options(scale=1e-300)
    calc.set_options(scale=2)
    again = calc.run()
    assert again.energies["grid"] == first.energies["grid"]


def _import_fails(package_parent, env):
    """Run a child that imports the package from package_parent and creates a calculation;
    its stderr when it failed, else "" (a library found elsewhere on the system)."""
    import os
    import subprocess
    import sys
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, delphi_gpu as dg; "
            "dg.Calculation(np.zeros((1, 3)), np.ones(1), np.full(1, 2.0))")
    child_env = {k: v for k, v in os.environ.items() if k != "DELPHI_GPU_LIBRARY"}
    child_env.update(env)
    out = subprocess.run([sys.executable, "-c", code, package_parent], env=child_env,
                         capture_output=True, text=True, timeout=120)
    return out.stderr if out.returncode != 0 else ""


def test_library_not_found_says_where_it_looked(tmp_path):
    import os
    import shutil
    here = os.path.dirname(os.path.dirname(os.path.abspath(dg.__file__)))
    missing = str(tmp_path / "nowhere" / "libdelphi_gpu.so")
    err = _import_fails(here, {"DELPHI_GPU_LIBRARY": missing})
    assert "LibraryNotFoundError" in err and missing in err and "could not load" in err
    # A copy of the package outside the checkout, no variable: every place is named.
    shutil.copytree(os.path.dirname(os.path.abspath(dg.__file__)), tmp_path / "pkg" / "delphi_gpu",
                    ignore=shutil.ignore_patterns("__pycache__", "libdelphi_gpu.so*",
                                                  "_library_installed.py"))
    err = _import_fails(str(tmp_path / "pkg"), {"LD_LIBRARY_PATH": ""})
    if "LibraryNotFoundError" in err:  # else a system-wide install was found
        assert "next to the package" in err and "build tree" in err
        assert str(tmp_path) in err
