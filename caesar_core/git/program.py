"""Running the ``git`` program on a tree an agent controls, with nothing of its choosing run.

The agent owns the working tree's files (``.gitattributes``, ``.gitignore``, links, FIFOs) and
may have written the repository's config. So every run here:

- starts from an environment with no ``GIT_*`` variable of the user's (an ``GIT_EXEC_PATH``,
  ``GIT_CONFIG_PARAMETERS`` or ``GIT_DIR`` cannot steer it), with caesar's own pins;
- pins, as command-line config (``GIT_CONFIG_COUNT``, which outranks every config file):
  no fsmonitor program or daemon, no hooks, no split index written into the repository, path
  quoting as libgit2 does it, and every transport refused (``protocol.allow=never`` and each
  ``protocol.<name>.allow`` the config names), so a lazy fetch in a partial clone cannot reach
  a remote helper or ``core.sshCommand``;
- neutralises each content filter driver the config defines (``filter.<name>.clean``,
  ``smudge``, ``process`` empty, ``required`` false): files are stored as their bytes, as
  libgit2 stores them (it runs no driver either);
- asks for no pager, no external diff and no textconv (plumbing commands use neither, and the
  options say so again).

A ``core.abbrev`` in the config makes :func:`pins` answer None: libgit2 and git read it
differently, and the caller then leaves the work to pygit2.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
from collections.abc import Iterator, Sequence

MINIMUM = (2, 31)
"""``GIT_CONFIG_COUNT`` (2.31) carries pins whatever bytes a key holds."""

FIXED_PINS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.splitIndex", "false"),
    ("core.quotePath", "true"),
    ("protocol.allow", "never"),
    ("diff.external", ""),
    ("advice.addIgnoredFile", "false"),
)


_NO_DRIVER = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))
"""A filter driver's pins: no command, not required (git then stores the bytes as they are)."""


class GitFailed(Exception):
    """The program is missing, too old, or refused: the caller falls back to pygit2."""


class Git:
    """The program and the config pins of one repository (see :func:`pins`). (A plain class:
    ``dataclasses`` costs ``caesar diff`` more to import than git takes to start.)"""

    __slots__ = ("path", "pins")

    def __init__(self, path: str, pins: tuple[tuple[str, str], ...] = FIXED_PINS) -> None:
        self.path = path
        self.pins = pins

    def run(
        self,
        args: Sequence[str],
        cwd: str,
        *,
        index: str | None = None,
        stdin: bytes | None = None,
    ) -> bytes:
        """``git args`` in ``cwd``; its stdout, or :class:`GitFailed` when it exits non-zero."""
        try:
            done = subprocess.run(
                [self.path, "--no-pager", *args],
                cwd=cwd,
                env=environment(self.pins, index),
                input=stdin if stdin is not None else b"",
                capture_output=True,
                check=False,
            )
        except OSError as exc:
            raise GitFailed(str(exc)) from exc
        if done.returncode != 0:
            raise GitFailed(done.stderr.decode("utf-8", "replace").strip())
        return done.stdout

    def start(self, args: Sequence[str], cwd: str, *, index: str | None = None) -> Running:
        """``git args`` in ``cwd`` started, no input, not waited for: :meth:`Running.result`
        is :meth:`run`'s answer (two runs that need not wait for each other, at once)."""
        try:
            process = subprocess.Popen(
                [self.path, "--no-pager", *args],
                cwd=cwd,
                env=environment(self.pins, index),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise GitFailed(str(exc)) from exc
        return Running(process)


class Running:
    """A run of git under way (:meth:`Git.start`): its output read once, by :meth:`result`
    (all of it), :meth:`chunks` (as it comes) or :meth:`reap` (thrown away)."""

    __slots__ = ("_process", "_read")

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._read = False

    def result(self) -> bytes:
        """Its stdout once it exits; :class:`GitFailed` when it exits non-zero."""
        self._read = True
        out, err = self._process.communicate()
        if self._process.returncode != 0:
            raise GitFailed(err.decode("utf-8", "replace").strip())
        return out

    def chunks(self) -> Iterator[bytes]:
        """Its stdout as it comes, its stderr read beside (a full pipe would stop git); then
        :class:`GitFailed` when it exits non-zero."""
        self._read = True
        process = self._process
        assert process.stdout is not None and process.stderr is not None
        out, errors = process.stdout.fileno(), []
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            selector.register(process.stderr.fileno(), selectors.EVENT_READ)
            while selector.get_map():
                for key, _ in selector.select():
                    data = os.read(key.fd, _CHUNK)
                    if not data:
                        selector.unregister(key.fd)
                    elif key.fd == out:
                        yield data
                    else:
                        errors.append(data)
        process.communicate()  # closes the pipes, waits
        if process.returncode != 0:
            raise GitFailed(b"".join(errors).decode("utf-8", "replace").strip())

    def reap(self) -> None:
        """Wait for it, whatever it answers (a caller that gave up on it still lets it end
        before what it reads goes away); a run still writing is stopped."""
        if self._process.returncode is not None:
            return  # waited for already
        if self._read:
            self._process.kill()  # its output was being read, and no longer is
        self._read = True
        self._process.communicate()


_CHUNK = 1 << 16


def environment(pins: Sequence[tuple[str, str]], index: str | None) -> dict[str, str]:
    """The user's environment without any ``GIT_*`` variable, plus caesar's pins."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_LAZY_FETCH="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_OPTIONAL_LOCKS="0",
        GIT_PROTOCOL_FROM_USER="0",
        GIT_CONFIG_COUNT=str(len(pins)),
        LC_ALL="C",
    )
    for n, (key, value) in enumerate(pins):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    return env


_FOUND: dict[str, str | None] = {}


def find() -> Git:
    """The ``git`` on the ``PATH`` when it is recent enough, else :class:`GitFailed`."""
    if "git" not in _FOUND:
        path = shutil.which("git")
        if path is not None and _version(Git(path)) < MINIMUM:
            path = None
        _FOUND["git"] = path
    found = _FOUND["git"]
    if found is None:
        raise GitFailed("no git program recent enough")
    return Git(found)


def _version(git: Git) -> tuple[int, ...]:
    try:
        words = git.run(["version"], os.sep).split()
    except GitFailed:
        return ()
    numbers = words[2].split(b".")[:2] if len(words) > 2 else []
    try:
        return tuple(int(n) for n in numbers)
    except ValueError:
        return ()


def pins(git: Git, cwd: str) -> Git:
    """``git`` with the pins for the repository at ``cwd``: the fixed ones, and the filter
    drivers and transports its config names, neutralised. :class:`GitFailed` when the config
    holds what libgit2 reads otherwise (``core.abbrev``)."""
    return pinned(git, git.run(["config", "-z", "--list"], cwd))


def pinned(git: Git, listed: bytes) -> Git:
    """:func:`pins` from the repository's ``config -z --list``, ``listed``."""
    return Git(git.path, FIXED_PINS + tuple(neutralised(config_keys(listed))))


def config_keys(listed: bytes) -> list[str]:
    """The keys of ``git config -z --list`` (each entry ``key\\nvalue`` or ``key``)."""
    return [
        entry.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        for entry in listed.split(b"\0")
        if entry
    ]


def neutralised(keys: Sequence[str]) -> list[tuple[str, str]]:
    """The pins that undo what ``keys`` could make git run or fetch."""
    found: list[tuple[str, str]] = []
    drivers: dict[str, None] = {}
    for key in keys:
        section, _, rest = key.partition(".")
        name, _, leaf = rest.rpartition(".")
        section, leaf = section.lower(), leaf.lower()
        if section == "core" and not name and leaf == "abbrev":
            raise GitFailed("core.abbrev is set: libgit2 reads it its own way")
        if section == "filter" and name:
            drivers[name] = None
        elif section == "protocol" and name and leaf == "allow":
            found.append((f"protocol.{name}.allow", "never"))
    for name in drivers:
        found.extend((f"filter.{name}.{leaf}", value) for leaf, value in _NO_DRIVER)
    return found


IGNORED_NOTICE = "The following paths are ignored by one of your .gitignore files:"
"""How ``git add`` (``LC_ALL=C``) begins its refusal of a pathspec that names ignored paths."""


def add_all(git: Git, top: str, index: str, excludes: Sequence[str]) -> None:
    """``git add -A`` into ``index``, every path of ``excludes`` left out, as it is in the
    index (``:(exclude,literal)`` pathspecs: never read, tracked or not).

    git adds everything else, then exits 1 when an excluded path is also ignored (an
    in-place task's ``.caesar/`` in the project's ``.gitignore``): it counts the exclusion as
    naming that path. That notice, naming only excluded paths, is not a failure.
    """
    added(start_add_all(git, top, index, excludes), excludes)


def start_add_all(git: Git, top: str, index: str, excludes: Sequence[str]) -> Running:
    """:func:`add_all` started: :func:`added` waits for it."""
    pathspec = [f":(exclude,literal){path}" for path in excludes]
    return git.start(["add", "-A", "--", *pathspec], top, index=index)


def added(adding: Running, excludes: Sequence[str]) -> None:
    """The end of :func:`start_add_all`'s run: :class:`GitFailed` when it failed (the notice
    of :func:`add_all` apart)."""
    try:
        adding.result()
    except GitFailed as failed:
        lines = str(failed).splitlines()
        if lines[:1] != [IGNORED_NOTICE] or not lines[1:] or not set(lines[1:]) <= set(excludes):
            raise
