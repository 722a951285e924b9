"""Git objects between machines: bundles made and fetched with the git program.

libgit2 (pygit2) has no bundles, so this module, and only this one, runs ``git``: ``bundle
create`` of one ref, and ``fetch`` of that ref alone with every object checked
(``fetch.fsckObjects``), once the bundle's header says it names exactly the refs expected. A
commit of a working directory's content (committed and uncommitted work, see
``git.snapshot``) is made with pygit2, never touching the index or the files.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pygit2

from caesar_core.errors import CaesarError
from caesar_core.git.repo import open_root
from caesar_core.git.repo_by_git import head_commit

IDENTITY = {
    "GIT_AUTHOR_NAME": "caesar",
    "GIT_AUTHOR_EMAIL": "caesar@localhost",
    "GIT_COMMITTER_NAME": "caesar",
    "GIT_COMMITTER_EMAIL": "caesar@localhost",
    "GIT_TERMINAL_PROMPT": "0",
}
GIT_TIMEOUT_S = 600
OID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
BUNDLE_SIGNATURES = (b"# v2 git bundle", b"# v3 git bundle")
MAX_HEADER_BYTES = 1 << 20
"""A bundle's header (its refs) is read this far at most."""


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


def heads(bundle: Path) -> dict[str, str]:
    """The refs a bundle names: ref -> object, read from its header (gitformat-bundle: the
    signature, ``@capability`` and ``-prerequisite`` lines, ``<oid> <ref>`` lines, an empty
    line, the pack), as ``git bundle list-heads`` reads it; a header it would not read is
    refused."""
    with open(bundle, "rb") as stream:
        header = stream.read(MAX_HEADER_BYTES)
    end = header.find(b"\n\n")
    lines = header[:end].split(b"\n") if end >= 0 else []
    if not lines or lines[0] not in BUNDLE_SIGNATURES:
        raise BundleError("the bundle has no header git can read", "nothing was fetched")
    found: dict[str, str] = {}
    for line in lines[1:]:
        if line.startswith((b"@", b"-")):
            continue
        oid, _, ref = line.decode("utf-8", errors="replace").partition(" ")
        if not OID.fullmatch(oid) or not ref:
            raise BundleError(f"a line of the bundle's header is no ref: {line[:80]!r}", "")
        found[ref] = oid
    return found


def fetch(repo: Path, bundle: Path, refs: Sequence[str]) -> dict[str, str]:
    """Fetch ``refs`` (and nothing else) from ``bundle`` into ``repo`` under the same names;
    refuse a bundle that names other refs. Returns each ref's commit."""
    named = heads(bundle)
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
    """Each ref's commit; :class:`BundleError` for a ref that names none."""
    found: dict[str, str] = {}
    try:
        opened = open_root(repo)
        for ref in refs:
            found[ref] = str(opened.references[ref].peel(pygit2.Commit).id)
    except (CaesarError, pygit2.GitError, KeyError, ValueError) as error:
        raise BundleError(
            f"not every one of {', '.join(refs)} names a commit after the fetch ({error})",
            "nothing is checked out from this bundle",
        ) from None
    return found


def init(dest: Path, branch: str | None = None) -> None:
    """A new repository at ``dest``, its HEAD on ``branch`` (unborn) when one is named."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q", *(("-b", branch) if branch else ()))


def commit(repo: Path, tree: str, parent: str | None, message: str, ref: str) -> str:
    """A commit of ``tree`` on ``parent`` at ``ref`` (created or moved), as ``git
    commit-tree`` and ``update-ref`` make it, by caesar; returns its id."""
    try:
        opened = open_root(repo)
        who = pygit2.Signature(IDENTITY["GIT_AUTHOR_NAME"], IDENTITY["GIT_AUTHOR_EMAIL"])
        parents = [pygit2.Oid(hex=parent)] if parent else []
        made = opened.create_commit(None, who, who, f"{message}\n", pygit2.Oid(hex=tree), parents)
        opened.references.create(ref, made, force=True)
    except (CaesarError, pygit2.GitError, KeyError, ValueError) as error:
        raise BundleError(f"the commit for {ref} could not be made: {error}", "") from None
    return str(made)


def head(workdir: Path) -> str | None:
    """The commit ``workdir``'s HEAD names, or None (unborn, or no repository)."""
    try:
        return head_commit(workdir)
    except (CaesarError, pygit2.GitError, KeyError, ValueError):
        return None


def set_refs(repo: Path, refs: dict[str, str]) -> None:
    """Each ref pointed at its commit, in one transaction."""
    git(repo, "update-ref", "--stdin", stdin="".join(f"update {r} {o}\n" for r, o in refs.items()))


def delete_refs(repo: Path, refs: Sequence[str]) -> None:
    git(repo, "update-ref", "--stdin", stdin="".join(f"delete {ref}\n" for ref in refs))
