"""Exceptions: every failing library call raises one, carrying the library's own message."""
from ._ctypes_api import STATUS_NAMES


class DelphiGpuError(RuntimeError):
    """A library call failed.  ``status`` is the dg_status code, ``status_name`` its C name and
    ``message`` the library's message (dg_calc_last_error), which names the field and value."""

    def __init__(self, status, message, call=None):
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status, f"status {self.status}")
        self.message = message
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{message} [{self.status_name}]")


class InvalidInputError(DelphiGpuError, ValueError):
    """The library rejected an input value (invalid argument, grid, non-finite value, ...)."""


class OutOfMemoryError(DelphiGpuError, MemoryError):
    """Host or device memory ran out."""


_INVALID = {1, 2, 3, 4, 5, 6, 7, 8}
_MEMORY = {12, 13}


def error_for(status, message, call=None):
    """The exception for a non-zero dg_status."""
    if status in _INVALID:
        return InvalidInputError(status, message, call)
    if status in _MEMORY:
        return OutOfMemoryError(status, message, call)
    return DelphiGpuError(status, message, call)
