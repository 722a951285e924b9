"""Git objects between machines: bundles made and fetched with the git program.

libgit2 (pygit2) has no bundles, so this module, and only this one, runs ``git``: ``bundle
create`` of one ref, ``bundle list-heads`` to check a bundle names exactly the ref expected,
and ``fetch`` of that ref alone with every object checked (``fetch.fsckObjects``). A commit of
a working directory's content (committed and uncommitted work, see ``git.snapshot``) is made
with ``commit-tree``, never touching the index or the files.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from caesar_core.errors import CaesarError

IDENTITY = {
    "GIT_AUTHOR_NAME": "caesar",
    "GIT_AUTHOR_EMAIL": "caesar@localhost",
    "GIT_COMMITTER_NAME": "caesar",
    "GIT_COMMITTER_EMAIL": "caesar@localhost",
    "GIT_TERMINAL_PROMPT": "0",
}
GIT_TIMEOUT_S = 600
OID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


class BundleError(CaesarError):
    """A git step of the transfer failed; the reason quotes git."""


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    """``git ARGS`` in ``cwd`` (``stdin`` its input, else none), its stdout;
    :class:`BundleError` with git's words on failure."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(IDENTITY)
    try:
        done = subprocess.run(
            ["git", "-c", "core.hooksPath=/dev/null", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            env=env,
            timeout=GIT_TIMEOUT_S,
            **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BundleError(f"git {args[0]} could not run: {error}", "is git installed?") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip()[-2000:]
        raise BundleError(
            f"git {' '.join(args[:2])} failed (exit {done.returncode}): {said}",
            "see git's message; the transfer is retried by the next attach",
        )
    return done.stdout


def create(repo: Path, refs: Sequence[str], out: Path, *, known: Sequence[str] = ()) -> None:
    """A bundle of ``refs`` at ``out``, without the history of ``known`` commits (which the
    receiving side has)."""
    git(repo, "bundle", "create", "-q", str(out), *refs, *(f"^{oid}" for oid in known))


def heads(bundle: Path, cwd: Path) -> dict[str, str]:
    """The refs a bundle names: ref -> commit."""
    found: dict[str, str] = {}
    for line in git(cwd, "bundle", "list-heads", str(bundle)).splitlines():
        oid, _, ref = line.partition(" ")
        found[ref.strip()] = oid.strip()
    return found


def fetch(repo: Path, bundle: Path, refs: Sequence[str]) -> dict[str, str]:
    """Fetch ``refs`` (and nothing else) from ``bundle`` into ``repo`` under the same names;
    refuse a bundle that names other refs. Returns each ref's commit."""
    named = heads(bundle, repo)
    if set(named) != set(refs):
        shown = ", ".join(sorted(named)[:5]) or "none"
        raise BundleError(
            f"the bundle names refs {shown}, not exactly {', '.join(refs)}",
            "nothing was fetched: the bundle is refused",
        )
    git(
        repo,
        "-c",
        "fetch.fsckObjects=true",
        "-c",
        "transfer.fsckObjects=true",
        "-c",
        "maintenance.auto=false",  # no housekeeping on the way: git does it another time
        "fetch",
        "-q",
        "--no-tags",
        "--no-write-fetch-head",
        "--force",
        str(bundle),
        *(f"{ref}:{ref}" for ref in refs),
    )
    return commits(repo, refs)


def commits(repo: Path, refs: Sequence[str]) -> dict[str, str]:
    """Each ref's commit, in one ``git rev-parse`` (``--revs-only``: a ref that names no
    commit is left out of its answer, and refused here)."""
    found = git(repo, "rev-parse", "--revs-only", *(f"{ref}^{{commit}}" for ref in refs))
    oids = found.split()
    if len(oids) != len(refs) or not all(OID.fullmatch(oid) for oid in oids):
        raise BundleError(
            f"not every one of {', '.join(refs)} names a commit after the fetch",
            "nothing is checked out from this bundle",
        )
    return dict(zip(refs, oids, strict=True))


def init(dest: Path, branch: str | None = None) -> None:
    """A new repository at ``dest``, its HEAD on ``branch`` (unborn) when one is named."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q", *(("-b", branch) if branch else ()))


def commit(repo: Path, tree: str, parent: str | None, message: str, ref: str) -> str:
    """A commit of ``tree`` on ``parent`` at ``ref`` (created or moved); returns its id."""
    parents = ["-p", parent] if parent else []
    oid = git(repo, "commit-tree", tree, *parents, "-m", message).strip()
    git(repo, "update-ref", ref, oid)
    return oid


def head(workdir: Path) -> str | None:
    """The commit ``workdir``'s HEAD names, or None (unborn, or no repository)."""
    try:
        return git(workdir, "rev-parse", "--verify", "-q", "HEAD^{commit}").strip() or None
    except BundleError:
        return None


def set_refs(repo: Path, refs: dict[str, str]) -> None:
    """Each ref pointed at its commit, in one transaction."""
    git(repo, "update-ref", "--stdin", stdin="".join(f"update {r} {o}\n" for r, o in refs.items()))


def delete_refs(repo: Path, refs: Sequence[str]) -> None:
    git(repo, "update-ref", "--stdin", stdin="".join(f"delete {ref}\n" for ref in refs))
