"""What comes back from a worker is untrusted: refused before it is written anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from caesar_core.executor import bundle
from caesar_core.executor.wire import Poll, Result
from tests.runner.conftest import git

TASK = "t_" + "a" * 32


@pytest.mark.parametrize("name", ["../escape", "/etc/passwd", "a//b", "./x", "a/../../b"])
def test_a_task_file_named_outside_its_directory_is_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        Result.model_validate({"files": {name: b"x"}})


def test_a_ref_other_than_the_tasks_own_is_refused() -> None:
    with pytest.raises(ValidationError):
        Result.model_validate({"ref": "refs/heads/main", "bundle": b""})
    assert Result.model_validate({"ref": f"refs/caesar/{TASK}"}).ref == f"refs/caesar/{TASK}"


def test_a_poll_naming_a_question_as_a_path_is_refused() -> None:
    with pytest.raises(ValidationError):
        Poll.model_validate({"state": "running", "questions": {"../../x": b"{}"}})
    with pytest.raises(ValidationError):
        Poll.model_validate({"state": "exploded"})


def test_the_same_result_has_the_same_digest_and_another_has_another() -> None:
    one = Result.model_validate(
        {"ref": f"refs/caesar/{TASK}", "bundle": b"B", "files": {"a": b"1"}}
    )
    same = Result.model_validate(
        {"files": {"a": b"1"}, "bundle": b"B", "ref": f"refs/caesar/{TASK}"}
    )
    other = Result.model_validate(
        {"ref": f"refs/caesar/{TASK}", "bundle": b"B", "files": {"a": b"2"}}
    )
    assert one.digest() == same.digest() != other.digest()


def test_a_bundle_naming_more_refs_than_the_tasks_fetches_nothing(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "f").write_text("x\n")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "one")
    git(source, "update-ref", f"refs/caesar/{TASK}", "HEAD")
    out = tmp_path / "b.bundle"
    bundle.create(source, [f"refs/caesar/{TASK}", "refs/heads/main"], out)
    target = tmp_path / "target"
    bundle.init(target)
    with pytest.raises(bundle.BundleError, match="not exactly"):
        bundle.fetch(target, out, [f"refs/caesar/{TASK}"])
    assert not git(target, "for-each-ref").strip()
    fetched = bundle.fetch(target, out, [f"refs/caesar/{TASK}", "refs/heads/main"])
    assert fetched[f"refs/caesar/{TASK}"] == git(source, "rev-parse", "HEAD").strip()


def test_a_file_that_is_no_bundle_fetches_nothing(tmp_path: Path) -> None:
    target = tmp_path / "target"
    bundle.init(target)
    fake = tmp_path / "fake.bundle"
    fake.write_bytes(b"# v9 git bundle\n" + b"a" * 40 + f" refs/caesar/{TASK}\n\nPACK".encode())
    with pytest.raises(bundle.BundleError, match="no header"):
        bundle.fetch(target, fake, [f"refs/caesar/{TASK}"])
    fake.write_bytes(b"# v2 git bundle\nnot a ref line\n\nPACK")
    with pytest.raises(bundle.BundleError, match="no ref"):
        bundle.fetch(target, fake, [f"refs/caesar/{TASK}"])
    assert not git(target, "for-each-ref").strip()


def test_a_commit_is_caesars_and_moves_its_ref_wherever_it_was(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    for n in ("one", "two"):
        (source / "f").write_text(f"{n}\n")
        git(source, "add", "-A")
        git(source, "commit", "-q", "-m", n)
    tree = git(source, "rev-parse", "HEAD^{tree}").strip()
    ref = f"refs/caesar/{TASK}"
    first = bundle.commit(source, tree, git(source, "rev-parse", "HEAD").strip(), "mine", ref)
    again = bundle.commit(source, tree, git(source, "rev-parse", "HEAD~1").strip(), "mine", ref)
    assert first != again
    assert git(source, "rev-parse", ref).strip() == again
    shown = git(source, "log", "-1", "--format=%an <%ae>%n%B", ref)
    assert shown.startswith("caesar <caesar@localhost>\nmine\n")
    assert bundle.head(source) == git(source, "rev-parse", "HEAD").strip()
    assert bundle.head(tmp_path / "nowhere") is None
