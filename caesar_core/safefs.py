"""The one way into a directory an agent can write: its task directory and its worktree.

Agents are untrusted. Anything below a task directory may have been replaced by a symlink to a
file outside the project, a hard link to one, a FIFO that blocks the first reader, a directory
where a file belongs, or a document nested thousands of levels deep. Every read and write caesar
makes there goes through this module, which holds to a few rules:

- The directory caesar created (``root``) is trusted as a path; nothing below it is. Each
  component is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a symlink
  anywhere below the root is refused instead of followed, whatever it points to.
- Files are opened ``O_NONBLOCK`` (a FIFO answers at once instead of blocking) and checked with
  ``fstat`` on the descriptor actually held: anything but a regular file with one link is
  refused. A hard link would let an agent make caesar write to, or show, a file it cannot
  otherwise reach.
- Reads are bounded; JSON is parsed only after its nesting depth is checked.
- Writes are whole or not at all: a temporary file created ``O_EXCL`` beside the target, then
  renamed (``atomic_write``) or linked (``create_exclusive``) through the directory descriptor.
  A rename replaces a symlink itself, never what it points to.

Refusals are :class:`UnsafeFileError`, an ``OSError``, so every reader that already treats an
unreadable file as missing or broken does the same with a hostile one, and its message says why.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

from caesar_core.jsondepth import MAX_JSON_DEPTH, TooDeepError, check_depth, json_depth, loads

__all__ = [
    "MAX_JSON_DEPTH",
    "TooDeepError",
    "check_depth",
    "json_depth",
    "loads",
]

MAX_DOCUMENT_BYTES = 16 << 20
"""The largest ``report.json``, ``task.json`` or mailbox file caesar reads."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UnsafeFileError(OSError):
    """A path below an untrusted directory that caesar will not follow, open or parse."""

    def __init__(self, path: PurePath | str, problem: str, err: int = errno.EPERM) -> None:
        super().__init__(err, f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


# -- descriptors -------------------------------------------------------------------------


def _parts(rel: str | PurePath) -> list[str]:
    parts = [part for part in PurePath(rel).parts if part not in ("", ".")]
    for part in parts:
        if part == ".." or "/" in part or "\0" in part:
            raise UnsafeFileError(rel, "leaves its directory")
    if PurePath(rel).is_absolute():
        raise UnsafeFileError(rel, "is absolute, not relative to its directory")
    return parts


def open_root(root: Path) -> int:
    """A descriptor of the trusted directory itself; its last component must not be a link."""
    try:
        return os.open(root, _DIR_FLAGS)
    except OSError as error:
        raise _explain(error, root, "directory") from None


def open_dir(root: Path, rel: str | PurePath = "", *, create: bool = False) -> int:
    """A descriptor of ``root/rel``, every component a real directory (``create`` makes them)."""
    parts = _parts(rel)
    fd = open_root(root)
    try:
        for name in parts:
            child = _step(fd, name, root / rel, create=create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _step(parent: int, name: str, shown: Path, *, create: bool) -> int:
    """Open the directory ``name`` in ``parent``, refusing links (``parent`` stays open)."""
    try:
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as error:
        raise _explain(error, shown, "directory", parent=parent, name=name) from None


@contextlib.contextmanager
def directory(root: Path, rel: str | PurePath = "", *, create: bool = False) -> Iterator[int]:
    """``open_dir`` as a context manager that closes the descriptor."""
    fd = open_dir(root, rel, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def split(rel: str | PurePath) -> tuple[PurePath, str]:
    parts = _parts(rel)
    if not parts:
        raise UnsafeFileError(rel, "names no file")
    return PurePath(*parts[:-1]) if len(parts) > 1 else PurePath(), parts[-1]


def open_file(
    root: Path,
    rel: str | PurePath,
    flags: int = os.O_RDONLY,
    mode: int = 0o644,
    *,
    create_dirs: bool = False,
) -> int:
    """Open the regular file ``root/rel`` with ``flags``; refuse links, FIFOs, devices, dirs.

    ``O_NOFOLLOW`` and ``O_NONBLOCK`` are always added; the type and link count are checked on
    the descriptor held, so nothing can be swapped in between the check and the use.
    """
    parent, name = split(rel)
    shown = root / rel
    with directory(root, parent, create=create_dirs) as dfd:
        try:
            fd = os.open(name, flags | _FILE_FLAGS, mode, dir_fd=dfd)
        except OSError as error:
            raise _explain(error, shown, "file", parent=dfd, name=name) from None
    try:
        check_regular(fd, shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(fd: int, shown: PurePath | str) -> os.stat_result:
    """The descriptor's stat, if it is a regular file with a single link; else refuse."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(shown, f"is {kind(st.st_mode)}, not a regular file")
    if st.st_nlink > 1:
        raise UnsafeFileError(shown, "is a hard link to another file")
    return st


def kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _explain(
    error: OSError, shown: PurePath | str, expected: str, *, parent: int = -1, name: str = ""
) -> OSError:
    """Turn the errors ``O_NOFOLLOW`` and ``O_DIRECTORY`` produce into a reason a person reads."""
    if isinstance(error, UnsafeFileError):
        return error
    if error.errno in (errno.ELOOP, errno.EMLINK):
        return UnsafeFileError(shown, "is a symbolic link; caesar does not follow links here")
    if error.errno == errno.ENXIO:
        return UnsafeFileError(shown, "is a FIFO or socket with no reader")
    if error.errno in (errno.ENOTDIR, errno.EISDIR) and parent >= 0 and name:
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            return error
        if stat.S_ISLNK(st.st_mode):
            return UnsafeFileError(shown, "is a symbolic link; caesar does not follow links here")
        return UnsafeFileError(shown, f"is {kind(st.st_mode)}, not a {expected}")
    return error


# -- reading -----------------------------------------------------------------------------


def read_bytes(root: Path, rel: str | PurePath, *, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The whole content of a regular file below ``root``, at most ``limit`` bytes.

    ``FileNotFoundError`` when it does not exist; :class:`UnsafeFileError` when it is not a
    plain file or is larger than ``limit``.
    """
    fd = open_file(root, rel)
    try:
        return read_fd(fd, limit, root / rel)
    finally:
        os.close(fd)


def read_fd(fd: int, limit: int, shown: PurePath | str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise UnsafeFileError(shown, f"is larger than {limit:,} bytes", errno.EFBIG)


def read_tail(root: Path, rel: str | PurePath, limit: int) -> bytes:
    """The last ``limit`` bytes of a regular file below ``root`` (all of it when shorter)."""
    fd = open_file(root, rel)
    try:
        size = os.fstat(fd).st_size
        return os.pread(fd, limit, max(0, size - limit)) if size else b""
    finally:
        os.close(fd)


def read_json(root: Path, rel: str | PurePath, *, limit: int = MAX_DOCUMENT_BYTES) -> Any:
    """A JSON file below ``root``: bounded, depth-checked, no link followed."""
    return loads(read_bytes(root, rel, limit=limit))


def entries(root: Path, rel: str | PurePath = "") -> list[tuple[str, bool]]:
    """``(name, is_regular_file)`` for each entry of ``root/rel``, without following links.

    A missing directory has no entries; one that is a link or not a directory is refused.
    """
    try:
        fd = open_dir(root, rel)
    except FileNotFoundError:
        return []
    try:
        with os.scandir(fd) as it:
            return sorted((e.name, e.is_file(follow_symlinks=False)) for e in it)
    finally:
        os.close(fd)


def lstat(root: Path, rel: str | PurePath) -> os.stat_result:
    """``lstat`` of ``root/rel`` with every directory above it checked like ``open_dir``."""
    parent, name = split(rel)
    with directory(root, parent) as dfd:
        return os.stat(name, dir_fd=dfd, follow_symlinks=False)


# -- writing -----------------------------------------------------------------------------


def atomic_write(
    root: Path, rel: str | PurePath, data: bytes, *, mode: int = 0o644, durable: bool = True
) -> None:
    """Replace ``root/rel`` with ``data`` in one rename; whatever was there (a link, a FIFO, a
    file) is replaced, never written through. A directory in its place is refused. The data
    is fsynced before the rename unless not ``durable``: a file nothing reads once a crash
    ended its task (the agent's ``task.json``), which a crash may then leave empty."""
    parent, name = split(rel)
    with directory(root, parent, create=True) as dfd:
        write_in(dfd, name, data, mode=mode, shown=root / rel, durable=durable)


def write_in(
    dfd: int,
    name: str,
    data: bytes,
    *,
    mode: int = 0o644,
    shown: PurePath | str = "",
    durable: bool = True,
) -> None:
    """``atomic_write`` of the entry ``name`` of an open directory ``dfd``: for a writer that
    holds the directory itself, wherever it has been moved since."""
    tmp = _durable_temp(dfd, name, data, mode, fsync=durable)
    try:
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as error:
        _unlink_quietly(tmp, dfd)
        raise _explain(error, shown or name, "file", parent=dfd, name=name) from None
    except BaseException:
        _unlink_quietly(tmp, dfd)
        raise


def create_exclusive(root: Path, rel: str | PurePath, data: bytes, *, mode: int = 0o644) -> None:
    """Create ``root/rel`` with ``data`` only if no entry of that name exists (a dangling link
    counts as one): ``FileExistsError`` otherwise. Readers never see partial content."""
    parent, name = split(rel)
    from caesar_core.noreplace import rename_noreplace

    with directory(root, parent, create=True) as dfd:
        tmp = _durable_temp(dfd, name, data, mode)
        try:
            # Renamed where the system can (no instant where the file has two links, which
            # readers refuse), else linked and the temporary name removed.
            if not rename_noreplace(tmp, name, dfd):
                os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
        finally:
            _unlink_quietly(tmp, dfd)


def remove(root: Path, rel: str | PurePath) -> None:
    """Delete the entry ``root/rel`` (a file, a link -- the link itself -- or a FIFO); a
    directory is refused. Nothing there is no error."""
    parent, name = split(rel)
    try:
        dfd = open_dir(root, parent)
    except FileNotFoundError:
        return
    try:
        os.unlink(name, dir_fd=dfd)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _explain(error, root / rel, "file", parent=dfd, name=name) from None
    finally:
        os.close(dfd)


def write_link(root: Path, rel: str | PurePath, target: str) -> None:
    """Make ``root/rel`` a symbolic link to ``target`` in one rename (whatever was there is
    replaced, never written through; a directory is refused). The link is made, not followed."""
    parent, name = split(rel)
    with directory(root, parent, create=True) as dfd:
        for _ in range(100):
            tmp = f".{name[:64]}.{secrets.token_hex(6)}.tmp"
            try:
                os.symlink(target, tmp, dir_fd=dfd)
            except FileExistsError:
                continue
            break
        else:  # pragma: no cover - 100 collisions of 48 random bits
            raise FileExistsError(errno.EEXIST, "no free temporary name", name)
        try:
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except OSError as error:
            _unlink_quietly(tmp, dfd)
            raise _explain(error, root / rel, "file", parent=dfd, name=name) from None


def open_append(root: Path, rel: str | PurePath, *, mode: int = 0o644) -> int:
    """A descriptor for appending to (and reading) a regular file, created when missing."""
    return open_file(root, rel, os.O_RDWR | os.O_APPEND | os.O_CREAT, mode, create_dirs=True)


def _durable_temp(dfd: int, name: str, data: bytes, mode: int, *, fsync: bool = True) -> str:
    for _ in range(100):
        tmp = f".{name[:64]}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(
                tmp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                mode,
                dir_fd=dfd,
            )
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(errno.EEXIST, "no free temporary name", name)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(tmp, dfd)
        raise
    os.close(fd)
    return tmp


def _unlink_quietly(name: str, dfd: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dfd)


def relative_to_root(root: Path, path: Path) -> PurePath:
    """``path`` as a path below ``root`` (lexically); refuse one that is not below it."""
    try:
        rel = Path(os.path.normpath(path)).relative_to(os.path.normpath(root))
    except ValueError:
        raise UnsafeFileError(path, f"is not inside {root}") from None
    _parts(rel)
    return rel
