"""Save as test: a turn's trace made into a task of the user's own suite, edited first.

The draft (``addon.eval.saved.draft_task``) is shown as the task's YAML to edit; saving checks it
the way a run would (a task file of the exposed home and this one task), so a test that could
not run is refused with its problems. The saved tests are listed, run, deleted and downloaded as
one task file from the Evaluate page.
"""

from __future__ import annotations

import json
import re

import yaml
from aiohttp import web

from addon import keys
from addon.errors import NotFoundError, TaskFileInvalid
from addon.eval.saved import TurnFacts, draft_task, saved_suite, task_yaml
from addon.eval.suite import exposed_home
from addon.eval.tasks import parse_task_file
from addon.home.model.live import HomeModel
from addon.store.evaluation import eval_tasks
from addon.text import JsonObject
from addon.web.ui.forms import text_fields
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_ROW_ID = re.compile(r"[0-9]{1,9}")
"""A row id as a page sends it: ASCII digits, small enough for SQLite's integers."""
MAX_TASK_TEXT = 20_000
"""Characters of one task's YAML: far more than a sentence with its states needs."""


async def live_home(request: web.Request) -> HomeModel | None:
    """The home as Home Assistant reports it now (changes it reported included), or None."""
    return await request.app[keys.HOME_SYNC].fresh() if keys.HOME_SYNC in request.app else None


async def saved_tests_file(request: web.Request, home: HomeModel) -> tuple[str, list[int], int]:
    """The saved tests as a task file on ``home``, the ids left out, and how many there are."""
    async with request.app[keys.STORE].sessionmaker() as session:
        saved = await eval_tasks.list_tasks(session)
    text, left_out = saved_suite(home, ((task.id, task.task) for task in saved))
    return text, left_out, len(saved)


async def new_test_view(request: web.Request) -> web.Response:
    """The draft of a test from the turn ``?turn=N``, to edit and save."""
    turn_param = request.query.get("turn", "")
    if not _ROW_ID.fullmatch(turn_param):
        raise web.HTTPBadRequest(text="Say which turn to save as a test (?turn=N).")
    try:
        async with request.app[keys.STORE].sessionmaker() as session:
            turn = await eval_tasks.turn_for_test(session, int(turn_param))
    except NotFoundError as err:
        raise web.HTTPNotFound(text=str(err)) from err
    facts = TurnFacts(
        turn.user_text, turn.reply_text, turn.states, turn.outcome_detail, turn.tool_results
    )
    draft = task_yaml(draft_task(facts, await live_home(request)))
    return _form(request, {"turn": str(turn.id), "text": draft}, [])


async def save_test_view(request: web.Request) -> web.Response:
    """Save the edited test, or show it again with what is wrong."""
    form = await text_fields(request)
    text, turn_param = form.get("text", ""), form.get("turn", "")
    turn_id = int(turn_param) if _ROW_ID.fullmatch(turn_param) else None
    problems: list[tuple[str, str]] = []
    task: object = None
    home = await live_home(request)
    if home is None:
        problems.append(("", "Home Assistant is not connected yet, so the test cannot be checked."))
    elif len(text) > MAX_TASK_TEXT:
        problems.append(("task", f"a test is at most {MAX_TASK_TEXT} characters"))
    else:
        try:
            task = yaml.safe_load(text)
        except (yaml.YAMLError, ValueError, RecursionError) as err:
            problems.append(("task", f"not YAML: {err}"))
        if not problems:
            problems.extend(_read_problems(home, task))
    if problems or home is None or not isinstance(task, dict):
        return _form(request, {"turn": turn_param, "text": text}, problems, status=422)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await eval_tasks.save_task(session, task, turn_id)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.evaluate", fragment="saved-tests"))


def _read_problems(home: HomeModel, task: object) -> list[tuple[str, str]]:
    """What is wrong with the YAML the user wrote as a test (nothing: it can be saved)."""
    if not isinstance(task, dict):
        return [("task", "a test is a mapping: sentence, setup, expect, answer, tags")]
    if not _plain_json(task):
        return [("task", "a test holds only text, numbers, lists and mappings")]
    return _problems(home, task)


async def delete_test_view(request: web.Request) -> web.Response:
    """Delete one saved test and go back to the Evaluate page."""
    task_id = request.match_info["task_id"]
    if not _ROW_ID.fullmatch(task_id):
        raise web.HTTPNotFound(text="There is no such test.")
    try:
        async with request.app[keys.STORE].sessionmaker.begin() as session:
            await eval_tasks.delete_task(session, int(task_id))
    except NotFoundError as err:
        raise web.HTTPNotFound(text=str(err)) from err
    raise web.HTTPSeeOther(Urls.of(request).page("ui.evaluate", fragment="saved-tests"))


async def tests_file_view(request: web.Request) -> web.Response:
    """The saved tests as one task file, downloaded (it runs with ``python -m addon.eval``)."""
    home = await live_home(request)
    if home is None:
        raise web.HTTPConflict(text="Home Assistant is not connected yet; try again soon.")
    text, _left_out, _count = await saved_tests_file(request, home)
    return web.Response(
        text=text,
        content_type="application/yaml",
        headers={"Content-Disposition": 'attachment; filename="home_agent_tests.yaml"'},
    )


def _plain_json(task: JsonObject) -> bool:
    """Whether the task stores as JSON: no YAML dates or sets, no lone surrogates."""
    try:
        json.dumps(task, ensure_ascii=False).encode()
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        return False
    return True


def _problems(home: HomeModel, task: JsonObject) -> list[tuple[str, str]]:
    """What stops ``task`` from running on the exposed home, each with its place."""
    document = {"home": exposed_home(home), "tasks": [task]}
    try:
        parse_task_file(yaml.safe_dump(document, allow_unicode=True), name="test")
    except TaskFileInvalid as err:
        return [(path.removeprefix("tasks[0]."), message) for path, message in err.problems]
    return []


def _form(
    request: web.Request, form: dict[str, str], problems: list[tuple[str, str]], status: int = 200
) -> web.Response:
    return render(request, "eval_test.html", {"form": form, "problems": problems}, status=status)
