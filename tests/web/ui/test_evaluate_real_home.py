"""The ready-made suite written from the real Home Assistant's home, under the default policy.

Opening a garage door asks first on a new install; the suite's task for it says ``confirm:
yes``, so the run answers the question as a person would, the task passes, and the run's page
says the agent asked. A run never touches the real home (it acts on a copy), so the session's
shared Home Assistant serves. The evaluation's own logic on a home Home Assistant only supplies:
run on the newest release (docs/DECISIONS.md, "Two Home Assistant versions").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from addon import keys
from addon.eval.runner import TaskResult
from addon.store.evaluation import eval_runs
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.fixtures.app import MakeSettings
from tests.web.ui.conftest import PREFIX, UI

pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]

GARAGE = "cover.garage_door"


async def run_suite(ui: UI, source: str) -> tuple[int, list[TaskResult]]:
    """Start the ready-made suite (``source``: "suite" or "suite-model"), wait, read its results."""
    form = {"source": source, "text": "", "model": "scripted-model", "local_first": "on"}
    response = await ui.post("/evaluate", form)
    assert response.status == 303, await response.text()
    found = re.search(r"/evaluate/runs/(\d+)$", response.headers["Location"])
    assert found is not None
    run_id = int(found.group(1))
    await ui.client.app[keys.EVALUATIONS].wait(run_id)
    async with ui.store.sessionmaker() as session:
        run = await eval_runs.get_run(session, run_id)
    assert run.status == "done"
    return run_id, [TaskResult.from_dict(dict(item)) for item in run.results]


async def started(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> UI:
    """The add-on on ``home`` behind ingress; the model answers without acting."""
    scripted_llm.default = Completion("I cannot help with that.")
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
    )
    ui: UI = await start_ui(settings, PREFIX)
    await ui.client.app[keys.HOME_SYNC].wait_ready(20.0)
    return ui


async def test_the_suites_garage_door_asks_is_confirmed_and_passes(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """Opening the garage door is asked about, answered yes, done; the run's page says so."""
    ui = await started(start_ui, make_settings, home_assistant, scripted_llm)
    door = (await home_assistant.state(GARAGE))["state"]
    run_id, results = await run_suite(ui, "suite")
    [garage] = [r for r in results if "cover-open" in r.tags and "garage" in r.sentence.lower()]
    assert (garage.passed, garage.asked, garage.problems) == (True, "yes", ()), garage
    assert garage.handled_by == "local"
    page = await ui.page(f"/evaluate/runs/{run_id}")
    row = re.search(
        rf'<tr class="eval-result (\w+)" data-task="{re.escape(garage.task_id)}">(.*?)</tr>',
        page,
        re.DOTALL,
    )
    assert row is not None
    assert row.group(1) == "pass"
    assert "asked (yes)" in row.group(2)
    # The run acted on a copy: the real door is as it was.
    assert (await home_assistant.state(GARAGE))["state"] == door


async def test_the_model_variant_from_the_api_sends_every_task_to_the_model(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """``suite-model`` runs with local first off: each task reaches the model.

    This model acts on nothing, so the garage door's task, which expects a question, fails
    saying none came.
    """
    ui = await started(start_ui, make_settings, home_assistant, scripted_llm)
    response = await ui.client.post(
        "/api/evaluations", json={"tasks": "suite-model"}, headers=ui.headers()
    )
    begun = await response.json()
    assert response.status == 202, begun
    await ui.client.app[keys.EVALUATIONS].wait(begun["id"])
    response = await ui.client.get(f"/api/evaluations/{begun['id']}", headers=ui.headers())
    run = await response.json()
    assert (run["status"], run["local_first"]) == ("done", False)
    assert {result["handled_by"] for result in run["results"]} == {"llm"}
    said_to_model = [str(request.messages[-1]["content"]) for request in scripted_llm.chat_requests]
    for result in run["results"]:
        assert any(result["sentence"] in said for said in said_to_model), result["sentence"]
    [garage] = [
        result
        for result in run["results"]
        if "cover-open" in result["tags"] and "garage" in result["sentence"].lower()
    ]
    assert garage["passed"] is False
    assert garage["asked"] is None
    assert garage["problems"][0] == (
        "the task expects a question before acting (confirm:), and none came"
    )
