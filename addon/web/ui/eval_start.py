"""Starting an evaluation run: which tasks, with which settings; the Evaluate page's and the API's.

Both offer the same task sources, so a run started from either is the same run: the ready-made
suite written from the exposed home, its **model only** variant (the same tasks with local first
off, so every task tests the model; with local first on, Home Assistant's sentences answer
most of them), the saved tests, or a task file. Problems come back as ``(field, message)``
pairs, the task file's with their path in it, for the page to place on lines and the API to
list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from aiohttp import web

from addon import keys
from addon.errors import TaskFileInvalid
from addon.eval.runner import MAX_INSTRUCTIONS, RunSettings
from addon.eval.suite import suite_yaml
from addon.eval.tasks import parse_task_file
from addon.web.ui.model_check import held_by
from addon.web.ui.saved_tests import live_home, saved_tests_file

TaskSource = Literal["suite", "suite-model", "saved", "text"]
"""Where a run's tasks come from; ``suite-model`` is the ready-made suite with local first off."""
TASK_SOURCES: tuple[TaskSource, ...] = get_args(TaskSource)

MAX_TASK_TEXT = 900_000
"""Characters of task file a run may be given (the app reads bodies up to 1 MiB)."""
MAX_MODEL_NAME = 200
SUITE_NAME = "ready-made"
SAVED_NAME = "your tests"
NOT_CONNECTED = "Home Assistant is not connected yet, so there is no home to test."


def task_source(value: str) -> TaskSource | None:
    """``value`` as a task source, or None when it names none."""
    return next((source for source in TASK_SOURCES if source == value), None)


@dataclass(frozen=True, slots=True)
class RunChoice:
    """What a caller asked to run: the source of the tasks, a task file's text, the settings."""

    source: TaskSource
    text: str
    model: str
    local_first: bool
    instructions: str


@dataclass(frozen=True, slots=True)
class StartAnswer:
    """The run started (its id), or why not; ``text`` is the task file the problems are in."""

    run_id: int | None
    problems: list[tuple[str, str]]
    text: str


async def start_run(request: web.Request, choice: RunChoice) -> StartAnswer:
    """Write the tasks ``choice`` names, check them and start the run in the background."""
    problems: list[tuple[str, str]] = []
    if len(choice.model) > MAX_MODEL_NAME:
        problems.append(("model", f"a model name is at most {MAX_MODEL_NAME} characters"))
    if len(choice.instructions) > MAX_INSTRUCTIONS:
        problems.append(("instructions", f"at most {MAX_INSTRUCTIONS} characters"))
    text, name = choice.text, "pasted"
    if choice.source in ("suite", "suite-model"):
        home = await live_home(request)
        if home is None:
            problems.append(("", NOT_CONNECTED))
        else:
            location = str(home.config.get("location_name") or "Home")
            text = suite_yaml(home, name=location, policy=held_by(request))
            name = SUITE_NAME
    elif choice.source == "saved":
        home = await live_home(request)
        found = None if home is None else await saved_tests_file(request, home)
        if found is None:
            problems.append(("", NOT_CONNECTED))
        elif not found[2]:
            problems.append(("", "There are no saved tests yet."))
        else:
            text, name = found[0], SAVED_NAME
    elif len(text) > MAX_TASK_TEXT:
        problems.append(("text", f"the task file is longer than {MAX_TASK_TEXT} characters"))
    elif not text.strip():
        problems.append(("text", "paste a task file, upload one, or choose the ready-made suite"))
    if problems:
        return StartAnswer(None, problems, text)
    try:
        task_file = parse_task_file(text, name=name)
    except TaskFileInvalid as err:
        return StartAnswer(None, list(err.problems), text)
    # The model variant of the suite tests the model: nothing is answered locally first.
    local_first = choice.local_first and choice.source != "suite-model"
    settings = RunSettings(choice.model, local_first, choice.instructions)
    run_id = await request.app[keys.EVALUATIONS].start(task_file, text, settings)
    return StartAnswer(run_id, [], text)
