from __future__ import annotations

from datetime import timedelta

from caesar_core.store import build_tree, walk_tree
from tests.store.conftest import T0, make_record


def test_children_follow_their_parent_in_creation_order() -> None:
    root_a = make_record(created_at=T0)
    root_b = make_record(created_at=T0 + timedelta(seconds=5))
    child_2 = make_record(parent_id=root_a.id, created_at=T0 + timedelta(seconds=3))
    child_1 = make_record(parent_id=root_a.id, created_at=T0 + timedelta(seconds=1))
    grandchild = make_record(parent_id=child_1.id, created_at=T0 + timedelta(seconds=2))
    shuffled = [grandchild, root_b, child_2, root_a, child_1]
    rows = [(level, r.id) for level, r in walk_tree(build_tree(shuffled))]
    assert rows == [
        (0, root_a.id),
        (1, child_1.id),
        (2, grandchild.id),
        (1, child_2.id),
        (0, root_b.id),
    ]


def test_an_orphan_becomes_a_root() -> None:
    orphan = make_record(parent_id="t_" + "f" * 32)
    assert [r.id for _, r in walk_tree(build_tree([orphan]))] == [orphan.id]


def test_a_parent_cycle_still_shows_every_task_once() -> None:
    a = make_record(created_at=T0)
    b = make_record(parent_id=a.id, created_at=T0 + timedelta(seconds=1))
    a = a.model_copy(update={"parent_id": b.id})
    ids = [r.id for _, r in walk_tree(build_tree([a, b]))]
    assert sorted(ids) == sorted([a.id, b.id])


def test_self_parent_is_a_root() -> None:
    a = make_record()
    a = a.model_copy(update={"parent_id": a.id})
    assert [r.id for _, r in walk_tree(build_tree([a]))] == [a.id]
