"""The Evaluate pages through the whole app: start, progress, results, compare, interrupted."""

from __future__ import annotations

import re
from typing import Any

import pytest

from addon import keys
from addon.store.evaluation import eval_runs
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.eval.tasks import TASKS_YAML
from tests.web.ui.conftest import UI


@pytest.fixture(autouse=True)
def model_answers(scripted_llm: ScriptedLLM) -> None:
    """What reaches the model gets a plain answer that acts on nothing."""
    scripted_llm.default = Completion("It is 15 degrees.")


async def start(ui: UI, **form: str) -> int:
    """Post the form; return the run's id from the redirect and wait for the run to end."""
    data = {"source": "text", "text": TASKS_YAML, "model": "scripted-model", "local_first": "on"}
    response = await ui.post(f"{ui.prefix}/evaluate".removeprefix(ui.prefix), data | form)
    assert response.status == 303, await response.text()
    found = re.search(r"/evaluate/runs/(\d+)$", response.headers["Location"])
    assert found is not None
    assert response.headers["Location"].startswith(ui.prefix + "/evaluate/runs/")
    run_id = int(found.group(1))
    await ui.client.app[keys.EVALUATIONS].wait(run_id)
    return run_id


@pytest.mark.urls
async def test_run_page_shows_each_task_with_its_trace(ui: UI) -> None:
    """A pasted task file runs locally; every task passes and links to its stored trace."""
    run_id = await start(ui)
    page = await ui.page(f"/evaluate/runs/{run_id}")
    assert page.count('class="eval-result pass"') == 3
    assert "100.0 % (3/3)" in page
    traces = re.findall(r'class="trace-link" href="([^"]+)"', page)
    assert len(traces) == 3
    assert traces[0].startswith(ui.prefix + "/conversations/")
    trace = await ui.page(traces[0].removeprefix(ui.prefix).split("#")[0])
    assert "turn on the kitchen ceiling light" in trace


async def test_progress_answers_json_with_rows(ui: UI) -> None:
    """The progress URL gives the status, the share done and the rendered rows."""
    run_id = await start(ui)
    response = await ui.get(f"/evaluate/runs/{run_id}/progress")
    data = await response.json()
    assert data["status"] == "done"
    assert (data["done"], data["total"], data["percent"]) == (3, 3, 100)
    assert data["rows"].count("eval-result pass") == 3


async def test_bad_file_is_refused_with_its_problems_and_runs_kept(ui: UI) -> None:
    """An unknown entity in expect answers 422 naming it; the stored runs are still listed."""
    run_id = await start(ui)
    bad = TASKS_YAML.replace('{switch.kettle: {state: "on"}}', '{switch.nope: {state: "on"}}')
    response = await ui.post("/evaluate", {"source": "text", "text": bad, "model": "m"})
    body = await response.text()
    assert response.status == 422
    assert "tasks[1].expect.switch.nope" in body
    assert f"#{run_id} " in body


async def test_every_task_file_problem_is_shown_at_its_line(ui: UI) -> None:
    """A misspelt key and an unknown entity are listed together, each with its line."""
    bad = TASKS_YAML.replace('{switch.kettle: {state: "on"}}', '{switch.nope: {state: "on"}}')
    bad += "  - sentense: typo\n"
    response = await ui.post("/evaluate", {"source": "text", "text": bad, "model": "m"})
    body = await response.text()
    assert response.status == 422
    lines = bad.splitlines()
    nope = next(n for n, line in enumerate(lines, 1) if "switch.nope" in line)
    typo = next(n for n, line in enumerate(lines, 1) if "sentense" in line)
    assert re.search(rf'<li data-line="{nope}">[^\n]*tasks\[1\]\.expect\.switch\.nope', body)
    assert re.search(rf'<li data-line="{typo}">[^\n]*tasks\[3\]\.sentense', body)


async def test_malformed_yaml_is_a_422_not_a_500(ui: UI) -> None:
    """Text that is not YAML comes back as a problem on the form."""
    response = await ui.post("/evaluate", {"source": "text", "text": "home: [", "model": "m"})
    assert response.status == 422
    assert "not valid YAML" in await response.text()


async def test_ready_made_suite_runs_on_the_exposed_home(ui: UI) -> None:
    """The suite is written from the demo home's exposed entities and runs to the end."""
    run_id = await start(ui, source="suite", text="")
    async with ui.store.sessionmaker() as session:
        run = await eval_runs.get_run(session, run_id)
    assert run.status == "done"
    assert run.total == run.done > 10
    assert "turn on the Ceiling Lights" in run.tasks_text


async def test_the_suites_model_variant_asks_the_model_for_every_task(
    ui: UI, scripted_llm: ScriptedLLM
) -> None:
    """The "model only" suite runs with local first off: every task reaches the model."""
    run_id = await start(ui, source="suite-model", text="")
    async with ui.store.sessionmaker() as session:
        run = await eval_runs.get_run(session, run_id)
    assert run.settings["local_first"] is False
    assert run.total == run.done > 10
    handled = {str(result["handled_by"]) for result in run.results}
    assert handled <= {"llm", "failed"}
    assert len(scripted_llm.chat_requests) >= run.total
    page = await ui.page(f"/evaluate/runs/{run_id}")
    assert '<span class="badge llm">model</span>' in page  # named as the chat names it


async def test_compare_shows_two_runs_side_by_side(ui: UI) -> None:
    """Local first on and off, compared: both labels, and the tasks whose verdict differs."""
    first = await start(ui)
    ui_llm_off = await start(ui, local_first="")
    page = await ui.page(f"/evaluate/compare?a={first}&b={ui_llm_off}")
    assert f"A: #{first} scripted-model, local first" in page
    assert f"B: #{ui_llm_off} scripted-model, model only" in page
    assert 'data-task="light-on"' in page


async def test_run_cut_off_by_a_restart_is_shown_interrupted(ui: UI) -> None:
    """A run left running by an earlier process is marked interrupted at start and says so."""
    async with ui.store.sessionmaker.begin() as session:
        run_id = await eval_runs.create_run(
            session, name="old", settings={"model": "m"}, total=5, tasks_text=TASKS_YAML
        )
    assert await ui.client.app[keys.EVALUATIONS].recover() == 1
    page = await ui.page(f"/evaluate/runs/{run_id}")
    assert "Interrupted: the add-on restarted mid-run" in page


async def test_unknown_run_is_a_404_page(ui: UI) -> None:
    """A run id that is not stored answers the UI's not-found page."""
    response = await ui.get("/evaluate/runs/999")
    assert response.status == 404


async def api_start(ui: UI, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST /api/evaluations as the panel's user; the status and the answer."""
    response = await ui.client.post("/api/evaluations", json=body, headers=ui.headers())
    return response.status, await response.json()


async def test_the_api_offers_the_suites_model_variant(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """``{"tasks": "suite-model"}`` runs the ready-made suite with local first off, read back."""
    status, started = await api_start(ui, {"tasks": "suite-model", "local_first": True})
    assert status == 202, started
    assert started["page"] == f"{ui.prefix}/evaluate/runs/{started['id']}"
    await ui.client.app[keys.EVALUATIONS].wait(started["id"])
    response = await ui.client.get(started["url"].removeprefix(ui.prefix), headers=ui.headers())
    run = await response.json()
    assert response.status == 200, run
    assert (run["name"], run["status"], run["local_first"]) == ("ready-made", "done", False)
    assert run["total"] == run["done"] == len(run["results"]) > 10
    assert {result["handled_by"] for result in run["results"]} <= {"llm", "failed"}
    assert len(scripted_llm.chat_requests) >= run["total"]


async def test_the_api_runs_the_suite_locally_first_as_the_page_does(ui: UI) -> None:
    """``{"tasks": "suite"}`` takes the options' settings: local first on, the lights local."""
    status, started = await api_start(ui, {"tasks": "suite"})
    assert status == 202, started
    await ui.client.app[keys.EVALUATIONS].wait(started["id"])
    response = await ui.client.get(f"/api/evaluations/{started['id']}", headers=ui.headers())
    run = await response.json()
    assert (run["local_first"], run["model"]) == (True, "scripted-model")
    lights = [result for result in run["results"] if result["tags"] == ["light-on"]]
    assert lights
    assert all(result["passed"] and result["handled_by"] == "local" for result in lights)
    assert all(result["asked"] is None for result in lights)


async def test_the_api_refuses_a_task_file_with_every_problem(ui: UI) -> None:
    """A bad task file is a 422 listing each problem with its place; an unknown field too."""
    bad = TASKS_YAML.replace('{switch.kettle: {state: "on"}}', '{switch.nope: {state: "on"}}')
    status, answer = await api_start(ui, {"tasks": "text", "task_file": bad})
    assert (status, answer["error"]) == (422, "invalid_tasks")
    assert {"field": "tasks[1].expect.switch.nope", "message": "no such entity in the home"} in (
        answer["problems"]
    )
    status, answer = await api_start(ui, {"tasks": "suite", "local_frist": False})
    assert (status, answer["field"]) == (422, "local_frist")
    response = await ui.client.get("/api/evaluations/999", headers=ui.headers())
    assert response.status == 404
