"""The evaluation API: start a run and read it back, as the Evaluate page does.

The same tasks are offered: the ready-made suite, its model-only variant, the saved tests, a
task file. Administration, like the page: ingress or the ``admin_token``. A run goes on in
the background (:mod:`addon.eval.service`); ``POST`` answers 202 at once with where to follow
it, and ``GET`` answers with what is done so far, so a caller polls until ``status`` is no
longer ``running``. A run the API started is listed on the page, and the other way round.
"""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel

from addon import keys
from addon.eval.runner import TaskResult, Totals
from addon.store.evaluation import eval_runs
from addon.web.api.eval_schemas import (
    EvaluationIn,
    EvaluationOut,
    EvaluationResultOut,
    EvaluationStartedOut,
)
from addon.web.problems import KIB, read_model
from addon.web.ui.eval_start import MAX_TASK_TEXT, RunChoice, start_run
from addon.web.ui.urls import Urls

BODY_LIMIT = MAX_TASK_TEXT + 16 * KIB


def add_evaluation_routes(app: web.Application) -> None:
    """Mount ``/api/evaluations`` and one run's route."""
    app.router.add_post("/api/evaluations", start_view, name="api_evaluations")
    app.router.add_get("/api/evaluations/{id:\\d+}", run_view, name="api_evaluation")


async def start_view(request: web.Request) -> web.Response:
    """Start a run; 202 with its id, 409 when there is no home (or no saved test), 422 else."""
    wanted = await read_model(request, EvaluationIn, limit=BODY_LIMIT)
    options = request.app[keys.SETTINGS].options
    choice = RunChoice(
        source=wanted.tasks,
        text=wanted.task_file,
        model=wanted.model or options.llm_model,
        local_first=options.local_first if wanted.local_first is None else wanted.local_first,
        instructions=(
            options.extra_instructions if wanted.instructions is None else wanted.instructions
        ),
    )
    started = await start_run(request, choice)
    if started.run_id is None:
        problems = [{"field": field, "message": message} for field, message in started.problems]
        not_ready = all(not field for field, _ in started.problems)
        answer = {
            "error": "not_ready" if not_ready else "invalid_tasks",
            "message": "; ".join(f"{p['field'] or 'tasks'}: {p['message']}" for p in problems),
            "problems": problems,
        }
        return web.json_response(answer, status=409 if not_ready else 422)
    run_id = str(started.run_id)
    out = EvaluationStartedOut(
        id=started.run_id,
        url=Urls.of(request).page("api_evaluation", id=run_id),
        page=Urls.of(request).page("ui.evaluate_run", run_id=run_id),
    )
    return _answer(out, status=202)


async def run_view(request: web.Request) -> web.Response:
    """One run: settings, progress, accuracy and every task's result so far (404: no such run)."""
    async with request.app[keys.STORE].sessionmaker() as session:
        run = await eval_runs.get_run(session, int(request.match_info["id"]))
    results = [TaskResult.from_dict(dict(item)) for item in run.results]
    totals = Totals.of(results)
    out = EvaluationOut(
        id=run.id,
        name=run.name,
        status=run.status,
        model=str(run.settings.get("model", "")),
        local_first=bool(run.settings.get("local_first", True)),
        done=run.done,
        total=run.total,
        passed=totals.passed,
        accuracy=totals.accuracy,
        page=Urls.of(request).page("ui.evaluate_run", run_id=str(run.id)),
        results=[
            EvaluationResultOut.model_validate(result, from_attributes=True) for result in results
        ],
    )
    return _answer(out)


def _answer(model: BaseModel, status: int = 200) -> web.Response:
    return web.json_response(text=model.model_dump_json(), status=status)
