"""The delegation tree: which task delegated which, in the order they were created.

The turns of a task (``caesar continue``) are one chain: every follow-up turn sits under the
chain's first turn, beside the tasks that turn delegated.

The tree is built of anything that names its task and the tasks it hangs under (``Linked``):
``TaskRecord``s for the screen, the records of a listing (``store.listing.ListedTask``) for
``caesar ps``. Stdlib only."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Generic, Protocol, TypeAlias, TypeVar

if TYPE_CHECKING:
    from caesar_core.store.record import TaskRecord


class Linked(Protocol):
    """What places a task in the tree: its id, when it was created, and what it hangs under."""

    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> datetime: ...

    @property
    def chain(self) -> str | None: ...

    @property
    def continues(self) -> str | None: ...

    @property
    def parent_id(self) -> str | None: ...


R = TypeVar("R", bound=Linked)


class Node(Generic[R]):
    """A task and the tasks under it. (Not a dataclass: ``caesar ps`` would import
    ``dataclasses``, and the ``inspect`` it needs, for this alone.)"""

    __slots__ = ("children", "record")

    def __init__(self, record: R, children: list[Node[R]] | None = None) -> None:
        self.record = record
        self.children: list[Node[R]] = [] if children is None else children

    def walk(self, level: int = 0) -> Iterator[tuple[int, R]]:
        """Depth-first, parents before children: the order a tree view lists rows in."""
        yield level, self.record
        for child in self.children:
            yield from child.walk(level + 1)


if TYPE_CHECKING:
    TaskNode: TypeAlias = Node[TaskRecord]
    """A node of the tree of records."""
else:
    TaskNode = Node


def build_tree(records: Iterable[R]) -> list[Node[R]]:
    """Roots (tasks without a known parent), each with its descendants, by creation order.

    A task whose parent is not in ``records`` (collected by ``gc``, or from another project)
    becomes a root rather than disappearing from view. A parent cycle, which only a hand-edited
    record could produce, is broken at the oldest member so every task is shown exactly once.
    """
    ordered = sorted(records, key=lambda r: (r.created_at, r.id))
    nodes = {record.id: Node(record) for record in ordered}
    roots: list[Node[R]] = []
    for record in ordered:
        node = nodes[record.id]
        parent = _parent(record, nodes)
        if parent is None or parent is node or _is_ancestor(node, parent, nodes):
            roots.append(node)
        else:
            parent.children.append(node)
    return roots


def _is_ancestor(node: Node[R], candidate: Node[R], nodes: dict[str, Node[R]]) -> bool:
    """Whether ``node`` is already above ``candidate`` (linking them would close a cycle)."""
    seen: set[str] = set()
    current: Node[R] | None = candidate
    while current is not None and current.record.id not in seen:
        if current is node:
            return True
        seen.add(current.record.id)
        current = _parent(current.record, nodes)
    return False


def _parent(record: R, nodes: dict[str, Node[R]]) -> Node[R] | None:
    """Where a task hangs: a follow-up turn under its chain's first turn (or the turn it
    continues), any other task under the task that delegated it; None for a root."""
    for candidate in (record.chain, record.continues, record.parent_id):
        if candidate and candidate in nodes:
            return nodes[candidate]
    return None


def walk_tree(roots: Iterable[Node[R]]) -> Iterator[tuple[int, R]]:
    for root in roots:
        yield from root.walk()
