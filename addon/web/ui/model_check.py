"""The model check: a candidate endpoint and model run on the virtual home before switching.

From the Settings page, "Check this model" runs the user's own tests (or, without any, the
ready-made suite) as an ordinary evaluation run whose settings name the candidate; its key is
used for the run and never stored. Every sentence goes to the model (no local path first):
the check measures the model. The run's page shows its figures beside the current model's last
run of the same tests the same way; when there is none, the check starts one first (runs go one
at a time). Nothing is configured: the options stay the add-on's.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from addon import keys
from addon.config.settings import Options
from addon.errors import TaskFileInvalid
from addon.eval.runner import RunSettings, TaskResult, Totals, make_llm
from addon.eval.suite import suite_yaml
from addon.eval.tasks import parse_task_file
from addon.home.actions.confirmation import ConfirmationPolicy
from addon.store.evaluation import eval_runs
from addon.text import is_unicode
from addon.web.ui.forms import text_fields
from addon.web.ui.saved_tests import live_home, saved_tests_file
from addon.web.ui.urls import Urls

MAX_URL = 2048
CHECK_NAMES = ("your tests", "ready-made")


@dataclass(frozen=True, slots=True)
class Baseline:
    """The current model's last finished run of the same tests, summed up."""

    run_id: int
    status: str
    totals: Totals


def held_by(request: web.Request) -> ConfirmationPolicy | None:
    """The confirmation policy a run holds actions by (the app's): the suite answers it."""
    current = request.app[keys.EVALUATIONS].confirmation
    return current() if current is not None else None


async def check_view(request: web.Request) -> web.Response:
    """Start the check and open its run; 422 with the reason when it cannot start."""
    form = await text_fields(request)
    options: Options = request.app[keys.SETTINGS].options
    base_url = form.get("base_url", "").strip()
    model = form.get("model", "").strip()
    if not is_unicode([base_url, model, form.get("api_key", "")]):
        raise web.HTTPBadRequest(text="The form's text is not Unicode.")
    if not model or len(model) > 200 or len(base_url) > MAX_URL:
        raise web.HTTPUnprocessableEntity(text="Give a model name (at most 200 characters).")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise web.HTTPUnprocessableEntity(text="The endpoint is an http:// or https:// URL.")
    if not base_url and not options.llm_base_url:
        raise web.HTTPUnprocessableEntity(text="Give the endpoint to check (its base URL).")
    await _reachable(options, model, base_url, form.get("api_key") or None)
    home = await live_home(request)
    if home is None:
        raise web.HTTPConflict(text="Home Assistant is not connected yet; try again soon.")
    saved, _left_out, count = await saved_tests_file(request, home)
    suite = suite_yaml(home, policy=held_by(request))
    text, name = (saved, CHECK_NAMES[0]) if count else (suite, CHECK_NAMES[1])
    try:
        task_file = parse_task_file(text, name=name)
    except TaskFileInvalid as err:
        raise web.HTTPUnprocessableEntity(text=str(err)) from err
    evaluations = request.app[keys.EVALUATIONS]
    async with request.app[keys.STORE].sessionmaker() as session:
        runs = await eval_runs.list_runs(session)
    if options.llm_base_url and _current(runs, name, options) is None:
        current = RunSettings(options.llm_model, False, options.extra_instructions)
        await evaluations.start(task_file, text, current)
    settings = RunSettings(
        model,
        False,
        options.extra_instructions,
        base_url=base_url if base_url != options.llm_base_url else "",
        check=True,
    )
    api_key = form.get("api_key") or None
    run_id = await evaluations.start(task_file, text, settings, api_key=api_key)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.evaluate_run", run_id=str(run_id)))


async def _reachable(options: Options, model: str, base_url: str, api_key: str | None) -> None:
    """Refuse (422) a check whose endpoint does not answer or refuses the key, before any run.

    Without it every task fails on the connection and the run reports "Accuracy 0.0 %", which
    reads as a verdict on the model. An endpoint that answers but does not list the model is
    still checked (some servers list models under other names).
    """
    llm = make_llm(options, model, base_url=base_url, api_key=api_key)
    if llm is None:
        return
    try:
        health = await llm.health()
    finally:
        await llm.close()
    if health.status != "ok" and "does not list model" not in health.detail:
        raise web.HTTPUnprocessableEntity(
            text=f"The endpoint did not answer ({health.detail}); nothing was run. "
            "Check its address, that it is running, and the API key."
        )


async def baseline(request: web.Request, run: eval_runs.StoredRun) -> Baseline | None:
    """For a model check, the configured model's last finished run of the same tests."""
    if not run.settings.get("check"):
        return None
    async with request.app[keys.STORE].sessionmaker() as session:
        runs = await eval_runs.list_runs(session)
    other = _current(runs, run.name, request.app[keys.SETTINGS].options)
    if other is None:
        return None
    results = [TaskResult.from_dict(dict(item)) for item in other.results]
    return Baseline(other.id, other.status, Totals.of(results))


def _current(
    runs: list[eval_runs.StoredRun], name: str, options: Options
) -> eval_runs.StoredRun | None:
    """The configured model's newest model-only run of the tests ``name``, done or under way."""
    for run in runs:  # newest first
        settings = run.settings
        if (
            run.status in ("done", "running")
            and run.name == name
            and not settings.get("check")
            and not settings.get("local_first", True)
            and settings.get("model") == options.llm_model
            and not settings.get("base_url")
        ):
            return run
    return None
