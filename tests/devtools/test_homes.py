"""The homes the side-by-side harness ships are task files the product's evaluation reads."""

from __future__ import annotations

from addon.eval.tasks import load_task_file
from devtools.questions import load_questions, question_files
from devtools.side_by_side import default_files


def test_every_shipped_home_loads_with_the_product_parser() -> None:
    """devtools/homes: 6+ homes, 400+ sentences, a German one, all valid for addon.eval."""
    files = [load_task_file(path) for path in default_files()]
    assert len(files) >= 6
    assert sum(len(f.tasks) for f in files) >= 400
    assert "de" in {f.home.language for f in files}


def test_every_question_file_loads_on_its_home() -> None:
    """devtools/homes/questions: 60+ questions over every shipped home, German ones among them."""
    files = [load_questions(path) for path in question_files()]
    assert {f.name.removesuffix("-questions") for f in files} == {
        path.stem for path in default_files()
    }
    assert sum(len(f.tasks) for f in files) >= 60
    assert all(task.answer for f in files for task in f.tasks)
    assert "de" in {f.home.language for f in files}
