"""The ctypes mirrors match the C structs field by field (offsets) and in size."""
import ctypes
import os

import pytest

from delphi_gpu import _ctypes_api as api


@pytest.fixture(scope="module")
def probe():
    path = os.environ.get("DELPHI_GPU_PROBE")
    if not path:
        pytest.skip("DELPHI_GPU_PROBE not set: the layout probe is built and set by ctest")
    lib = ctypes.CDLL(path)
    lib.dg_probe_layout.restype = ctypes.c_long
    lib.dg_probe_layout.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.dg_probe_field_count.restype = ctypes.c_int
    lib.dg_probe_field_count.argtypes = [ctypes.c_char_p]
    return lib


@pytest.mark.parametrize("cname", sorted(api.STRUCTS))
def test_struct_layout(probe, cname):
    cls = api.STRUCTS[cname]
    assert probe.dg_probe_layout(cname.encode(), b"") == ctypes.sizeof(cls), f"sizeof({cname})"
    assert probe.dg_probe_field_count(cname.encode()) == len(cls._fields_)
    for name, _ in cls._fields_:
        c_offset = probe.dg_probe_layout(cname.encode(), name.encode())
        assert c_offset == getattr(cls, name).offset, f"{cname}.{name}"


def test_defaults_fill_struct_size():
    import delphi_gpu

    lib = delphi_gpu.load_library()
    o = api.DgOptions()
    lib.function("dg_default_options")(o)
    assert o.struct_size == ctypes.sizeof(api.DgOptions)
    p = api.DgCalcParams()
    lib.function("dg_calc_default_params")(p)
    assert p.struct_size == ctypes.sizeof(api.DgCalcParams)
    assert p.solver.struct_size == ctypes.sizeof(api.DgOptions)
    assert p.scale == 2.0 and p.perfil == 80.0
