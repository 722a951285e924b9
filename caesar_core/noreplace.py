"""A rename that refuses to replace: ``renameat2(RENAME_NOREPLACE)``, where the system has it.

``safefs.create_exclusive`` makes a file appear whole under its name, and only if the name is
free. Linking a finished temporary file to the name does both, but between the link and the
temporary name's removal the file has two links, and a reader that refuses hard links (every
``safefs`` read: an agent could link a file from anywhere into its task directory) refuses it
in that instant. A rename that refuses to replace has no such instant. Linux 3.15 and later
on the usual file systems; elsewhere (no such call, a file system without it) the caller
links as before.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

RENAME_NOREPLACE = 1
_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}
_LIBC: list[Any] = []
"""The C library's ``renameat2``, once looked up (``None`` in it: there is none)."""


def rename_noreplace(name: str, new_name: str, dir_fd: int) -> bool:
    """Rename ``name`` to ``new_name`` in the directory ``dir_fd`` unless ``new_name`` exists
    (``FileExistsError``, nothing renamed). False, and nothing done, where the system cannot
    rename without replacing (the caller then links)."""
    call = _renameat2()
    if call is None:
        return False
    if call(dir_fd, os.fsencode(name), dir_fd, os.fsencode(new_name), RENAME_NOREPLACE) == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    if code == errno.EEXIST:
        raise FileExistsError(code, os.strerror(code), new_name)
    raise OSError(code, os.strerror(code), new_name)


def _renameat2() -> Any:
    if not _LIBC:
        _LIBC.append(_lookup())
    return _LIBC[0]


def _lookup() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        call = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # no C library to ask, or a glibc before 2.28
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    call.restype = ctypes.c_int
    return call
