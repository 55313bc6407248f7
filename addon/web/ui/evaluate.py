"""The Evaluate pages: run a task file against the agent, watch it, read and compare results.

Starting a run is a form POST answered with a redirect to the run's page; the run goes on in the
background (:mod:`addon.eval.service`) and stores each result as it comes, so the page is the
same whether it is watched, reloaded or opened later. ``app.js`` polls the run's progress (JSON
with the rendered rows) to move the progress bar; without script the page refreshes itself.
A file is uploaded by reading it into the text area in the browser: forms are never multipart.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web

from addon import keys
from addon.eval.runner import TaskResult, Totals
from addon.eval.suite import suite_yaml
from addon.store.evaluation import eval_runs, eval_tasks
from addon.web.ui.eval_start import RunChoice, start_run, task_source
from addon.web.ui.forms import text_fields
from addon.web.ui.model_check import baseline, held_by
from addon.web.ui.saved_tests import live_home
from addon.web.ui.templating import render, render_fragment
from addon.web.ui.tool_editor import locate
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ComparedTask:
    """One task of two runs compared: its result in each (None where a run did not have it)."""

    task_id: str
    sentence: str
    a: TaskResult | None
    b: TaskResult | None


@dataclass(frozen=True, slots=True)
class RunView:
    """A stored run with its results read back and summed up, for the templates."""

    run: eval_runs.StoredRun
    results: list[TaskResult]
    totals: Totals

    @property
    def percent(self) -> int:
        """How far the run has got, 0-100."""
        return round(100 * len(self.results) / self.run.total) if self.run.total else 100

    @property
    def label(self) -> str:
        """Settings in a few words, to tell runs apart."""
        settings = self.run.settings
        local = "local first" if settings.get("local_first", True) else "model only"
        extra = ", own instructions" if settings.get("instructions") else ""
        return f"#{self.run.id} {settings.get('model', '?')}, {local}{extra}"


def _view(run: eval_runs.StoredRun) -> RunView:
    results = [TaskResult.from_dict(dict(item)) for item in run.results]
    return RunView(run, results, Totals.of(results))


async def evaluate_view(request: web.Request) -> web.Response:
    """The form to start a run, and the runs so far."""
    return await _evaluate_page(request, {})


async def _evaluate_page(
    request: web.Request,
    form: dict[str, str],
    problems: list[tuple[str, str, int | None]] | None = None,
    status: int = 200,
) -> web.Response:
    async with request.app[keys.STORE].sessionmaker() as session:
        runs = [_view(run) for run in await eval_runs.list_runs(session)]
        saved = await eval_tasks.list_tasks(session)
    options = request.app[keys.SETTINGS].options
    return render(
        request,
        "evaluate.html",
        {
            "runs": runs,
            "saved": saved,
            "form": {
                "source": form.get("source", "suite"),
                "text": form.get("text", ""),
                "model": form.get("model", options.llm_model),
                "local_first": form.get("local_first", "on" if options.local_first else ""),
                "instructions": form.get("instructions", options.extra_instructions),
            },
            "problems": problems or [],
            "has_model": bool(options.llm_base_url),
        },
        status=status,
    )


def _placed(problems: list[tuple[str, str]], text: str) -> list[tuple[str, str, int | None]]:
    """Each problem with the line of the task file it concerns (None: not one of its fields)."""
    fields = ("model", "instructions", "text", "")
    placed = [
        (path, message, None if path in fields else locate(text, path))
        for path, message in problems
    ]
    # The form's own problems first, then the file's in the order of its lines.
    return sorted(placed, key=lambda problem: (problem[2] is not None, problem[2] or 0))


async def evaluate_start_view(request: web.Request) -> web.Response:
    """Start a run from the form, or show the form again with what is wrong."""
    form = await text_fields(request)
    choice = RunChoice(
        source=task_source(form.get("source", "text")) or "text",
        text=form.get("text", ""),
        model=form.get("model", "").strip() or request.app[keys.SETTINGS].options.llm_model,
        local_first=form.get("local_first") == "on",
        instructions=form.get("instructions", ""),
    )
    started = await start_run(request, choice)
    if started.run_id is None:
        placed = _placed(started.problems, started.text)
        return await _evaluate_page(request, form, placed, status=422)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.evaluate_run", run_id=str(started.run_id)))


async def run_view(request: web.Request) -> web.Response:
    """One run: its progress, totals and per-task results with links to the traces."""
    view = await _load(request)
    await request.app[keys.STORE].writer.flush()  # the traces linked are stored
    context = {"view": view, "baseline": await baseline(request, view.run)}
    return render(request, "eval_run.html", context)


async def progress_view(request: web.Request) -> web.Response:
    """The run's progress as JSON, with the results rows and totals rendered, for ``app.js``."""
    view = await _load(request)
    if view.run.status != "running":
        await request.app[keys.STORE].writer.flush()
    context = {"view": view}
    return web.json_response(
        {
            "status": view.run.status,
            "done": len(view.results),
            "total": view.run.total,
            "percent": view.percent,
            "rows": render_fragment(request, "_eval_results.html", context),
            "totals": render_fragment(request, "_eval_totals.html", context),
        }
    )


async def compare_view(request: web.Request) -> web.Response:
    """Two runs side by side: ``?a=N&b=M``, task by task and in total."""
    first, second = request.query.get("a", ""), request.query.get("b", "")
    if not (first.isdigit() and second.isdigit()):
        raise web.HTTPBadRequest(text="Choose two runs to compare.")
    async with request.app[keys.STORE].sessionmaker() as session:
        a = _view(await eval_runs.get_run(session, int(first)))
        b = _view(await eval_runs.get_run(session, int(second)))
    by_id_b = {result.task_id: result for result in b.results}
    rows: list[ComparedTask] = []
    for result in a.results:
        other = by_id_b.pop(result.task_id, None)
        rows.append(ComparedTask(result.task_id, result.sentence, result, other))
    rows.extend(
        ComparedTask(other.task_id, other.sentence, None, other) for other in by_id_b.values()
    )
    return render(request, "eval_compare.html", {"a": a, "b": b, "rows": rows})


async def suite_view(request: web.Request) -> web.Response:
    """The ready-made suite for the home as it is now, downloaded as a task file to edit."""
    home = await live_home(request)
    if home is None:
        raise web.HTTPConflict(text="Home Assistant is not connected yet; try again soon.")
    return _yaml_download(suite_yaml(home, policy=held_by(request)), "home_agent_suite.yaml")


async def run_tasks_view(request: web.Request) -> web.Response:
    """The task file a run ran, downloaded."""
    view = await _load(request)
    return _yaml_download(view.run.tasks_text, f"evaluation_{view.run.id}.yaml")


def _yaml_download(text: str, filename: str) -> web.Response:
    return web.Response(
        text=text,
        content_type="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


async def _load(request: web.Request) -> RunView:
    async with request.app[keys.STORE].sessionmaker() as session:
        run = await eval_runs.get_run(session, int(request.match_info["run_id"]))
    return _view(run)
