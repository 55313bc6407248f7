"""The homes the side-by-side harness ships are task files the product's evaluation reads."""

from __future__ import annotations

from addon.eval.tasks import load_task_file
from devtools.side_by_side import default_files


def test_every_shipped_home_loads_with_the_product_parser() -> None:
    """devtools/homes: 6+ homes, 400+ sentences, a German one, all valid for addon.eval."""
    files = [load_task_file(path) for path in default_files()]
    assert len(files) >= 6
    assert sum(len(f.tasks) for f in files) >= 400
    assert "de" in {f.home.language for f in files}
