"""Hunks of two texts computed with difflib, to test the hunk model without git."""

from __future__ import annotations

import difflib

from caesar_core.review.hunks import Hunk, HunkLine, make_hunk, split_lines


def hunks_of(path: str, old: str, new: str, context: int = 3) -> list[Hunk]:
    a = split_lines(old)
    b = split_lines(new)
    found: list[Hunk] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        lines: list[HunkLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [HunkLine(" ", text) for text in a[i1:i2]]
                continue
            lines += [HunkLine("-", text) for text in a[i1:i2]]
            lines += [HunkLine("+", text) for text in b[j1:j2]]
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        old_lines, new_lines = i2 - i1, j2 - j1
        old_start = i1 + 1 if old_lines else i1
        new_start = j1 + 1 if new_lines else j1
        header = f"@@ -{old_start},{old_lines} +{new_start},{new_lines} @@"
        found.append(make_hunk(path, header, old_start, old_lines, new_start, new_lines, lines))
    return found
