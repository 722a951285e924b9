"""The bridge's per-user state: the salt, the admissions, the traces and the receipts.

Everything lives outside the repository, under ``$CAESAR_STATE_DIR`` (tests set it), else
``$XDG_STATE_HOME/caesar``, else ``~/.local/state/caesar``::

    salt                                   32 random bytes, created once (O_EXCL), mode 0600
    bridge/admissions/<admission_id>.json  hashes, verdicts, counters, resolved rules
    bridge/admissions/<admission_id>.lock  flock serialising read-modify-write of the above
    bridge/traces/<trace_id>.jsonl         append-only evidence, one whole line per write
    bridge/spool/<trace_id>.json           the receipt written at finalize or abort

Raw identifiers (session, turn, tool_use ids) are never written: only their HMAC-SHA256 under
the salt, so two calls of one session correlate while the value itself cannot be recovered,
and the same session hashes differently on another machine. Every other string written goes
through the scanner (:func:`caesar_core.bridge.scan.dumps`): a secret in a tool name or a path
is stored redacted.

Hot path: this module runs once per tool call, so it uses ``os`` and string paths rather than
``pathlib``, ``tempfile`` and ``caesar_core.fs`` (together ~8 ms of imports, a quarter of the
budget), and computes HMAC-SHA256 with the interpreter's built-in SHA-256 rather than ``hmac``
and ``hashlib``, which load OpenSSL (~3 ms). Admissions are written as one line of JSON (the C
encoder; ``indent`` would import ``json``). Admission rewrites are atomic (rename) but fsynced
only when the admission is created and closed: a power cut can lose the latest counters of an
open admission, never corrupt it.
"""

from __future__ import annotations

import fcntl
import os

from caesar_core.bridge import cjson, scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from hashlib import _Hash, sha256
    from types import TracebackType
    from typing import Any
else:
    try:  # the built-in SHA-256 (CPython 3.11 ``_sha256``, 3.12 on ``_sha2``), not OpenSSL's
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256

ENV_STATE_DIR = "CAESAR_STATE_DIR"
SALT_BYTES = 32
_HEX = frozenset("0123456789abcdef")
_BLOCK = 64
"""SHA-256's block size: an HMAC key is padded (or first hashed) to it (RFC 2104)."""
_INNER = bytes(byte ^ 0x36 for byte in range(256))
_OUTER = bytes(byte ^ 0x5C for byte in range(256))


class StateError(Exception):
    """The state directory cannot be used; the message says why (it becomes a reason)."""


def state_dir(env: Mapping[str, str]) -> str:
    """Where the bridge keeps its state for this user (see the module docstring)."""
    explicit = env.get(ENV_STATE_DIR, "")
    if explicit:
        return explicit
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "caesar")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".local", "state", "caesar")


def new_id(prefix: str) -> str:
    """``adm_`` or ``trc_`` and 32 hex digits of randomness."""
    return f"{prefix}_{os.urandom(16).hex()}"


def valid_id(value: str, prefix: str) -> bool:
    """An id we could have made: also keeps ``../`` and friends out of file names."""
    head, _, digits = value.partition("_")
    return head == prefix and len(digits) == 32 and set(digits) <= _HEX


class State:
    """One state directory: the salt and the bridge's files in it."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.fspath(root)
        self.bridge = os.path.join(self.root, "bridge")
        self._salt: bytes | None = None
        self._keyed: tuple[_Hash, _Hash] | None = None

    # -- salt and hashes ------------------------------------------------------------------

    @property
    def salt(self) -> bytes:
        """The per-install salt, created on first use; a racing creator's salt wins for both."""
        if self._salt is None:
            self._salt = _read_or_create_salt(os.path.join(self.root, "salt"))
        return self._salt

    def hash(self, purpose: str, value: str | bytes) -> str:
        """HMAC-SHA256 under the salt; ``purpose`` keeps a session id and a prompt of the same
        text from hashing alike."""
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        if self._keyed is None:
            self._keyed = hmac_sha256_key(self.salt)
        inner, outer = self._keyed[0].copy(), self._keyed[1].copy()
        inner.update(purpose.encode() + b"\0" + data)
        outer.update(inner.digest())
        return outer.hexdigest()

    # -- paths ------------------------------------------------------------------------------

    def admission_path(self, admission_id: str) -> str:
        return os.path.join(self.bridge, "admissions", f"{admission_id}.json")

    def trace_path(self, trace_id: str) -> str:
        return os.path.join(self.bridge, "traces", f"{trace_id}.jsonl")

    def spool_path(self, trace_id: str) -> str:
        return os.path.join(self.bridge, "spool", f"{trace_id}.json")

    # -- admissions -------------------------------------------------------------------------

    def read_admission(self, admission_id: str) -> dict[str, Any] | None:
        """The admission, or None when it does not exist (or is not one of ours)."""
        if not valid_id(admission_id, "adm"):
            return None
        try:
            with open(self.admission_path(admission_id), "rb") as file:
                data = cjson.loads(file.read())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise StateError(f"admission {admission_id} cannot be read: {exc}") from None
        return data if isinstance(data, dict) else None

    def write_admission(self, admission: Mapping[str, Any], *, durable: bool = False) -> None:
        data = (scan.dumps(admission, sort_keys=True) + "\n").encode()
        replace(self.admission_path(admission["admission_id"]), data, durable=durable)

    def locked(self, admission_id: str) -> Lock:
        """Exclusive hold on one admission: concurrent hook processes of one trace take turns
        for their read-modify-write, so no counter or trace line is lost."""
        if not valid_id(admission_id, "adm"):
            raise ValueError(f"not an admission id: {admission_id!r}")
        return Lock(os.path.join(self.bridge, "admissions", f"{admission_id}.lock"))


class Lock:
    """``with`` an exclusive ``flock`` on a lock file (closing the file releases it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        os.close(self.fd)


def hmac_sha256_key(key: bytes) -> tuple[_Hash, _Hash]:
    """HMAC-SHA256 under ``key`` as two SHA-256 states, inner and outer, each fed its padded
    key (RFC 2104, what ``hmac.new(key, msg, 'sha256')`` computes): hash ``msg`` with a copy of
    the inner, then the inner digest with a copy of the outer."""
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    return sha256(key.translate(_INNER)), sha256(key.translate(_OUTER))


def replace(path: str, data: bytes, *, durable: bool = False, mode: int = 0o600) -> None:
    """Atomically replace ``path`` (a reader sees the old or the new file, never a mix)."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _read_or_create_salt(path: str) -> bytes:
    try:
        return _read_salt(path)
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, os.urandom(SALT_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # O_EXCL for names: of two first calls, one salt wins
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    return _read_salt(path)


def _read_salt(path: str) -> bytes:
    with open(path, "rb") as file:
        salt = file.read()
    if len(salt) != SALT_BYTES:
        raise StateError(f"{path} is not a salt of {SALT_BYTES} bytes; remove it to start over")
    return salt
