"""The side-by-side harness's questions section: question files on the shipped homes.

``devtools/homes/questions/<home>.yaml`` asks questions of one home in ``devtools/homes``: it
names that task file (``home:``), adds entities the questions read (a weather entity, a
calendar, a battery sensor: ``entities:``) and lists the questions as tasks with ``answer``s.
Each file runs as a home of its own (its own Home Assistant boot, both agents), and a reply
passes only when it holds an answer as whole words ("7" is not in "17" or "7.5") and is not a
failure, so an apology that repeats the question's words never scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from addon.errors import TaskFileInvalid
from addon.eval.tasks import TaskFile, load_task_file, parse_task_file
from devtools.home_assistant import REPO_ROOT

QUESTIONS_DIR = REPO_ROOT / "devtools" / "homes" / "questions"
SECTION = "questions"
"""The name of the section in results and the benchmark's keys (``questions_ours``...)."""


def question_files() -> list[Path]:
    """Every question file shipped, in name order."""
    return sorted(QUESTIONS_DIR.glob("*.yaml"))


def is_question_file(path: Path) -> bool:
    """Whether ``path`` is a question file (it lies in the questions folder)."""
    return path.resolve().parent == QUESTIONS_DIR.resolve()


def load_questions(path: Path) -> TaskFile:
    """The question file at ``path`` as a task file: its home's fixture plus its entities."""
    data: Any = yaml.safe_load(path.read_text("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("home"), str):
        raise TaskFileInvalid([("home", f"{path.name}: name the home's task file as home:")])
    base = load_task_file((path.parent / data["home"]).resolve())
    home = base.home.model_dump(mode="json", exclude_none=True)
    home["entities"] = [*home["entities"], *(data.get("entities") or [])]
    text = yaml.safe_dump({"home": home, "tasks": data.get("tasks")}, allow_unicode=True)
    return parse_task_file(text, name=f"{path.stem}-{SECTION}")
