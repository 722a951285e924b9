"""Making a fresh worktree habitable: ``[worktree]`` copy, link and setup.

A worktree holds only what git tracks; dependencies and ``.env`` files stay behind. The user
lists what to bring along: copies are copy-on-write where the filesystem allows (``cp
--reflink=auto``), links are symlinks (shared, so not isolated). Every laid-down path is
recorded so that every later diff leaves it out.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from caesar_core.errors import CaesarError
from caesar_core.protocol.report import Finding, Severity

SETUP_OUTPUT_KEPT = 4000


class SetupFailed(CaesarError):
    def __init__(self, command: str, code: int, output: str) -> None:
        super().__init__(
            f"worktree setup command failed (exit {code}): {command}",
            "fix the command in [worktree] setup, or run it by hand in the worktree",
        )
        self.output = output


@dataclass
class Workshop:
    laid_down: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def lay_down(source: Path, worktree: Path, copy: Sequence[str], link: Sequence[str]) -> Workshop:
    shop = Workshop()
    for rel, how in [*((p, "copy") for p in copy), *((p, "link") for p in link)]:
        origin, target = source / rel, worktree / rel
        if not origin.exists() and not origin.is_symlink():
            shop.findings.append(
                Finding(
                    severity=Severity.LOW,
                    title="Path not materialized in the worktree",
                    detail=f"[worktree] {how} lists {rel}, which does not exist in {source}.",
                )
            )
            continue
        if target.exists() or target.is_symlink():
            shop.findings.append(
                Finding(
                    severity=Severity.LOW,
                    title="Path not materialized in the worktree",
                    detail=f"{rel} is already in the worktree (tracked by git?); left as is.",
                )
            )
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if how == "copy":
            done = subprocess.run(
                ["cp", "-a", "--reflink=auto", str(origin), str(target)],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                shop.findings.append(
                    Finding(
                        severity=Severity.LOW,
                        title="Path not materialized in the worktree",
                        detail=f"copying {rel} failed: {done.stderr.strip()}",
                    )
                )
                continue
        else:
            target.symlink_to(origin.resolve())
            shop.findings.append(
                Finding(
                    severity=Severity.INFO,
                    title="Paths shared with the workspace",
                    detail=f"{rel} is a link to your workspace: the agent's writes there are "
                    "not isolated.",
                )
            )
        shop.laid_down.append(rel)
    return shop


def run_setup(worktree: Path, commands: Sequence[str], env: Mapping[str, str]) -> None:
    """Run each setup command in the worktree; the first failure ends the task."""
    for command in commands:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            cwd=worktree,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            check=False,
        )
        if done.returncode != 0:
            output = done.stdout.decode("utf-8", errors="replace")[-SETUP_OUTPUT_KEPT:]
            raise SetupFailed(command, done.returncode, output)
