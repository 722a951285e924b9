"""Linked worktrees: one per isolated task, on its own branch, at a frozen base commit.

A worktree is created the way ``git worktree add -b <branch> <dest> HEAD`` lays it out (the
admin directory ``<common>/worktrees/<name>`` with ``HEAD``, ``commondir``, ``gitdir`` and the
worktree's own ``index``; a ``.git`` file in ``<dest>`` pointing back), so git, libgit2 and
every agent CLI see an ordinary linked worktree. The layout is written here rather than by
``Repository.add_worktree`` because that call cannot tune its checkout (see ``checkout.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pygit2

from caesar_core.errors import ExitCode
from caesar_core.git.branches import BRANCH_PREFIX, branch_name, task_lock_reason, write_lock
from caesar_core.git.checkout import checkout_files
from caesar_core.git.content import as_tree
from caesar_core.git.repo import GitError, common_dir, open_root, resolve_commit, workdir_of

__all__ = [
    "BRANCH_PREFIX",
    "WorktreeInfo",
    "branch_name",
    "create_worktree_by_pygit2",
    "list_worktrees",
    "lock_worktree",
    "remove_tree",
    "remove_worktree",
    "task_lock_reason",
]


@dataclass(frozen=True, slots=True)
class WorktreeInfo:
    """A linked worktree git knows about; ``branch`` is None when its HEAD is detached."""

    name: str
    path: Path
    branch: str | None
    prunable: bool = False
    """Its directory is gone (or no longer points back): only the admin entry remains."""


def create_worktree_by_pygit2(
    repo_root: Path,
    dest: Path,
    branch: str | None,
    *,
    at: str | None = None,
    lock: str | None = None,
) -> str:
    """Create a linked worktree at ``dest`` on the new ``branch`` at HEAD; return HEAD's SHA.

    The returned commit is the task's frozen ``base_ref``. The main working tree and its
    index are not touched. Everything created is removed again when a step fails. ``at``
    starts it at that commit instead of HEAD; without a ``branch`` its HEAD is detached (a
    scratch worktree, which leaves no branch behind). ``lock`` locks it with that reason, as
    ``git worktree lock --reason`` does: ``git worktree remove --force`` (the reference
    implementation's ``gc``) and ``git worktree prune`` then leave it alone;
    :func:`remove_worktree` removes it all the same.

    libgit2 alone does it here; :func:`create_worktree` has the ``git`` program do it when
    there is one (``git.worktree_by_git``), and this when git cannot.
    """
    repo = open_root(repo_root)
    if at is not None:
        commit = resolve_commit(repo, at)
    elif repo.head_is_unborn:
        raise GitError(
            f"{workdir_of(repo)} has no commit yet, so there is nothing to branch a worktree from",
            "make a first commit (`git add -A && git commit -m init`), or run the task in place",
            exit_code=ExitCode.USAGE,
        )
    else:
        commit = repo.head.peel(pygit2.Commit)
    if branch is not None and not pygit2.reference_is_valid_name(f"refs/heads/{branch}"):
        raise GitError(
            f"{branch!r} is not a valid branch name",
            "use branch_name() to build one",
            exit_code=ExitCode.USAGE,
        )
    if branch is not None and repo.branches.local.get(branch) is not None:
        raise GitError(
            f"branch {branch!r} already exists in {workdir_of(repo)}",
            f"run `caesar gc`, or delete it with `git branch -D {branch}` if it is not needed",
        )
    dest = Path(os.path.abspath(dest))
    name = dest.name
    admin = common_dir(repo) / "worktrees" / name
    if os.path.lexists(admin):
        raise GitError(
            f"git already has a worktree named {name!r} ({admin})",
            "run `caesar gc` (or `git worktree prune`), then try again",
        )
    created_dest = not os.path.lexists(dest)
    if not created_dest and (dest.is_symlink() or not dest.is_dir() or any(dest.iterdir())):
        raise GitError(
            f"{dest} already exists and is not an empty directory",
            "remove it, or run `caesar gc` to clean up old worktrees",
        )
    with _Undo() as undo:
        if branch is not None:
            repo.branches.local.create(branch, commit)
            undo.push(lambda: _delete_branch(repo, branch))
        admin.parent.mkdir(parents=True, exist_ok=True)
        admin.mkdir()
        undo.push(lambda: shutil.rmtree(admin, ignore_errors=True))
        dest.mkdir(parents=True, exist_ok=True)
        undo.push(lambda: _clear(dest, keep=not created_dest))
        real_dest = dest.resolve()
        (admin / "gitdir").write_text(f"{real_dest / '.git'}\n", encoding="utf-8")
        (admin / "commondir").write_text("../..\n", encoding="utf-8")
        head = f"ref: refs/heads/{branch}" if branch is not None else str(commit.id)
        (admin / "HEAD").write_text(f"{head}\n", encoding="utf-8")
        (dest / ".git").write_text(f"gitdir: {admin.resolve()}\n", encoding="utf-8")
        if lock is not None:
            write_lock(admin, lock)
        worktree = pygit2.Repository(str(dest))
        checkout_files(worktree, as_tree(worktree, commit.tree.id))
        undo.clear()
    return str(commit.id)


def remove_worktree(
    repo_root: Path, dest: Path, branch: str | None, *, delete_branch: bool = True
) -> None:
    """Remove the worktree directory, git's admin entry for it, and its branch.

    Idempotent: whatever is already gone is skipped. Symlinks inside the worktree are
    removed, never followed. A directory that is not a worktree of this repository (nor
    empty) is refused rather than deleted, so a wrong path can never cost user files.
    """
    repo = open_root(repo_root)
    root = workdir_of(repo).resolve()
    dest = Path(os.path.abspath(dest))
    if dest.resolve() in (root, *root.parents):
        raise GitError(
            f"refusing to remove {dest}: it holds the repository itself",
            "pass the task's worktree directory (under .caesar/wt/)",
            exit_code=ExitCode.USAGE,
        )
    admins = _admin_entries_for(repo, dest)
    if dest.is_symlink():
        dest.unlink()
    elif dest.is_dir():
        if not (admins or _points_into(dest / ".git", common_dir(repo)) or not any(dest.iterdir())):
            raise GitError(
                f"refusing to remove {dest}: it is not a worktree of {root}",
                "check the path; remove the directory by hand if it really is disposable",
                exit_code=ExitCode.USAGE,
            )
        remove_tree(dest)
    for admin in admins:
        with contextlib.suppress(KeyError, pygit2.GitError):
            repo.lookup_worktree(admin.name).prune(True)
        shutil.rmtree(admin, ignore_errors=True)
    if delete_branch and branch:
        _delete_branch(repo, branch)


def lock_worktree(repo_root: Path, dest: Path, reason: str) -> bool:
    """Lock the worktree at ``dest`` (see :func:`create_worktree`) unless it is already locked;
    returns whether this call locked it."""
    locked = False
    for admin in _admin_entries_for(open_root(repo_root), Path(os.path.abspath(dest))):
        if not os.path.lexists(admin / "locked"):
            write_lock(admin, reason)
            locked = True
    return locked


def list_worktrees(repo_root: Path) -> list[WorktreeInfo]:
    """Every linked worktree git records for the repository, sorted by name."""
    repo = open_root(repo_root)
    base = common_dir(repo) / "worktrees"
    found: list[WorktreeInfo] = []
    for name in sorted(repo.list_worktrees()):
        try:
            worktree = repo.lookup_worktree(name)
            path, prunable = Path(worktree.path), bool(worktree.is_prunable)
        except (KeyError, pygit2.GitError):
            target = _gitdir_target(base / name)
            path, prunable = (target.parent if target else base / name), True
        found.append(WorktreeInfo(name, path, _admin_branch(base / name), prunable))
    return found


def remove_tree(path: Path) -> None:
    """``rm -rf`` that never follows a symlink and gets through read-only directories.

    ``shutil.rmtree`` already unlinks symlinks instead of descending into them; the error
    handler makes directories writable (an agent may leave some read-only) and retries.
    """
    if path.is_symlink():
        path.unlink()
    elif path.exists():
        _rmtree(str(path), _make_writable_and_retry)


def _make_writable_and_retry(failed: str, error: BaseException) -> None:
    if isinstance(error, FileNotFoundError):
        return
    for target in (os.path.dirname(failed), failed):
        with contextlib.suppress(OSError):
            mode = os.lstat(target).st_mode
            if stat.S_ISDIR(mode):
                os.chmod(target, stat.S_IMODE(mode) | stat.S_IRWXU)
    if os.path.isdir(failed) and not os.path.islink(failed):
        _rmtree(failed, _reraise)
    elif os.path.lexists(failed):
        os.unlink(failed)


def _clear(path: Path, *, keep: bool) -> None:
    """Undo a partial checkout: remove ``path``, or only its content when it pre-existed."""
    remove_tree(path)
    if keep:
        path.mkdir(parents=True, exist_ok=True)


def _reraise(failed: str, error: BaseException) -> None:
    raise error


def _rmtree(path: str, handler: Callable[[str, BaseException], None]) -> None:
    """``shutil.rmtree`` with one error-handler shape across Python versions."""
    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=lambda _func, failed, error: handler(failed, error))
    else:
        shutil.rmtree(path, onerror=lambda _func, failed, info: handler(failed, info[1]))


def _admin_entries_for(repo: pygit2.Repository, dest: Path) -> list[Path]:
    """Admin directories whose ``gitdir`` names ``dest/.git`` (or ``dest.name``'s, if broken)."""
    base = common_dir(repo) / "worktrees"
    if not base.is_dir():
        return []
    wanted = {dest / ".git", dest.resolve() / ".git"}
    found = []
    for admin in sorted(base.iterdir()):
        target = _gitdir_target(admin)
        if target is None:
            matches = admin.name == dest.name
        else:
            matches = target in wanted or target.resolve() in wanted
        if matches:
            found.append(admin)
    return found


def _gitdir_target(admin: Path) -> Path | None:
    try:
        text = (admin / "gitdir").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(text) if text else None


def _points_into(dotgit: Path, common: Path) -> bool:
    """Whether ``dotgit`` is a ``.git`` file naming an admin directory of ``common``."""
    if dotgit.is_symlink() or not dotgit.is_file():
        return False
    try:
        text = dotgit.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return False
    if not text.startswith("gitdir:"):
        return False
    target = Path(text.removeprefix("gitdir:").strip())
    if not target.is_absolute():
        target = dotgit.parent / target
    return target.resolve().parent == (common / "worktrees").resolve()


def _admin_branch(admin: Path) -> str | None:
    try:
        head = (admin / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return head.removeprefix(prefix) if head.startswith(prefix) else None


def _delete_branch(repo: pygit2.Repository, branch: str) -> None:
    found = repo.branches.local.get(branch)
    if found is None:
        return
    try:
        found.delete()
    except pygit2.GitError as exc:
        raise GitError(
            f"could not delete branch {branch!r}: {exc}",
            f"check `git worktree list`; delete it with `git branch -D {branch}`",
        ) from exc


class _Undo:
    """Run registered clean-ups in reverse order when the block fails, then re-raise."""

    def __init__(self) -> None:
        self._steps: list[Callable[[], object]] = []

    def push(self, step: Callable[[], object]) -> None:
        self._steps.append(step)

    def clear(self) -> None:
        self._steps.clear()

    def __enter__(self) -> _Undo:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for step in reversed(self._steps):
            with contextlib.suppress(Exception):
                step()
        self._steps.clear()
        if isinstance(exc, pygit2.GitError | OSError):
            raise GitError(
                f"could not create the worktree: {exc}",
                "check free disk space and permissions, then try again",
            ) from exc
