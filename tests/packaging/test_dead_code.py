"""The image carries no code only tests, benchmarks or development tools use."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Used by name from outside Python, or kept on purpose; each with its reason.
USED_ELSEWHERE = {
    # Alembic calls a revision's upgrade() and downgrade() by name.
    "downgrade": "alembic",
    # Declares id_counters in the metadata; addon/store/turns/ids.py reserves ids in it with plain
    # SQL.
    "IdCounter": "schema",
    # Long-term memory's store, ahead of the panel's Memories page (issue 12), which will use
    # them.
    "list_memories": "memory",
    "count_memories": "memory",
    "restore_memory": "memory",
    "forget_everything": "memory",
    "recalled_into": "memory",
    "nearest_ids": "memory",
    "search_memories": "memory",
    "get_memories": "memory",
}


def _defined_and_used() -> tuple[list[tuple[str, Path]], set[str]]:
    """Module-level functions and classes of addon/, and every name its code refers to."""
    defined: list[tuple[str, Path]] = []
    used: set[str] = set()
    for path in sorted((ROOT / "addon").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.append((node.name, path.relative_to(ROOT)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
    return defined, used


def test_every_top_level_function_and_class_in_addon_is_used_by_the_product() -> None:
    """A module-level function or class that nothing in addon/ or the templates uses is dead."""
    defined, used = _defined_and_used()
    templates = " ".join(
        path.read_text(encoding="utf-8") for path in (ROOT / "webui").rglob("*.html")
    )
    unused = [
        f"{path}: {name}"
        for name, path in defined
        if name not in used and name not in templates and name not in USED_ELSEWHERE
    ]
    assert unused == []
