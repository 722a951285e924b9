"""SVG snapshot of the Diff tab: the file list with one file deselected, and a Python diff.

Everything on screen is fixed: the diff (built in code, no repository), the terminal size
and the theme. Update with ``--snapshot-update`` only after looking at the report.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult

from caesar_core.git.diff import FileChange, assemble
from caesar_core.protocol.report import ChangeAction
from caesar_tui.widgets.diff_view import DiffView

SnapCompare = Callable[..., bool]
SIZE = (100, 30)
TASK = "t_" + "d" * 32

APP_PY = """\
diff --git a/src/app.py b/src/app.py
index 5fcb7b1..a3d0339 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,9 +1,12 @@
 \"\"\"A tiny greeter.\"\"\"
\x20
-import sys
+import os
+import sys
\x20
\x20
 def greet(name: str) -> str:
-    return "hello " + name
+    greeting = os.environ.get("GREETING", "hello")
+    return f"{greeting} {name}"
\x20
\x20
 if __name__ == "__main__":
@@ -20,3 +23,3 @@ def main() -> int:
     args = sys.argv[1:]
-    print(greet(args[0]))
+    print(greet(args[0] if args else "world"))
     return 0
"""

LOGO_PNG = (
    "diff --git a/assets/logo.png b/assets/logo.png\n"
    "index 1111111..2222222 100644\n"
    "Binary files a/assets/logo.png and b/assets/logo.png differ\n"
)
GUIDE_MD = (
    "diff --git a/docs/old.md b/docs/guide.md\n"
    "similarity index 96%\nrename from docs/old.md\nrename to docs/guide.md\n"
    "index 3333333..4444444 100644\n--- a/docs/old.md\n+++ b/docs/guide.md\n"
    "@@ -1,2 +1,2 @@\n-# Old\n+# Guide\n text\n"
)

DIFF = assemble(
    "a" * 40,
    "b" * 40,
    [
        (FileChange("src/app.py", ChangeAction.MODIFIED, additions=5, deletions=3), APP_PY),
        (FileChange("assets/logo.png", ChangeAction.MODIFIED, binary=True), LOGO_PNG),
        (
            FileChange(
                "docs/guide.md",
                ChangeAction.RENAMED,
                old_path="docs/old.md",
                additions=1,
                deletions=1,
            ),
            GUIDE_MD,
        ),
    ],
)


class DiffApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.theme = "textual-dark"
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield DiffView()

    def on_mount(self) -> None:
        view = self.query_one(DiffView)
        view.show(TASK, DIFF)
        view.file_list.focus()


def test_diff_tab(snap_compare: SnapCompare) -> None:
    assert snap_compare(DiffApp(), press=["down", "space", "down"], terminal_size=SIZE)
