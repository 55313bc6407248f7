"""Check this model: a second endpoint runs the tests beside the current model, nothing changes."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon import keys
from addon.store.evaluation import eval_runs
from devtools.scripted_llm import Completion, ScriptedLLM, Step, ToolCall
from tests.web.ui.conftest import UI

KEY = "sk-candidate-secret-0123456789"


def time_then_answer(body: dict[str, Any]) -> Step:
    """Ask for the time first, then answer: every task makes one tool call."""
    if body["messages"][-1]["role"] == "user":
        return Completion(tool_calls=(ToolCall("GetDateTime", {}),))
    return Completion("Done.")


@pytest.fixture
async def candidate() -> AsyncIterator[ScriptedLLM]:
    """A second OpenAI-protocol server, the endpoint being checked."""
    async with ScriptedLLM(default=time_then_answer) as llm:
        yield llm
    assert llm.problems == []


@pytest.fixture(autouse=True)
def current_model_answers(scripted_llm: ScriptedLLM) -> None:
    """The configured model answers in words and acts on nothing."""
    scripted_llm.default = Completion("I did nothing.")


async def check(ui: UI, candidate: ScriptedLLM) -> int:
    """Start a check of ``candidate-model`` at the second server; wait for every run to end."""
    form = {"base_url": candidate.base_url, "api_key": KEY, "model": "candidate-model"}
    response = await ui.post("/settings/check", form)
    assert response.status == 303, await response.text()
    found = re.search(r"/evaluate/runs/(\d+)$", response.headers["Location"])
    assert found is not None
    run_id = int(found.group(1))
    for earlier in range(1, run_id + 1):
        await ui.client.app[keys.EVALUATIONS].wait(earlier)
    return run_id


async def test_the_check_runs_on_the_candidate_beside_the_current_model(
    ui: UI, scripted_llm: ScriptedLLM, candidate: ScriptedLLM
) -> None:
    """The candidate answers with its key; the current model's run is shown beside it."""
    run_id = await check(ui, candidate)
    assert {r.body["model"] for r in candidate.chat_requests} == {"candidate-model"}
    assert {r.api_key for r in candidate.chat_requests} == {KEY}
    assert {r.body["model"] for r in scripted_llm.chat_requests} == {"scripted-model"}
    page = await ui.page(f"/evaluate/runs/{run_id}")
    assert "Model check: candidate-model" in page
    assert f"Current model, run {run_id - 1}" in page
    assert re.search(r"Tool-call success</th><td[^>]*>100.0 %</td><td[^>]*>—</td>", page)


async def test_the_check_changes_nothing_and_keeps_no_key(ui: UI, candidate: ScriptedLLM) -> None:
    """The configured model stays; the key is in no stored run and on no page."""
    run_id = await check(ui, candidate)
    assert ui.client.app[keys.SETTINGS].options.llm_model == "scripted-model"
    async with ui.store.sessionmaker() as session:
        stored = await eval_runs.get_run(session, run_id)
    assert stored.settings["base_url"] == candidate.base_url
    assert KEY not in json.dumps(stored.settings) + stored.tasks_text
    assert KEY not in await ui.page(f"/evaluate/runs/{run_id}")
    assert KEY not in await ui.page("/settings")


async def test_a_second_check_reuses_the_current_models_run(ui: UI, candidate: ScriptedLLM) -> None:
    """The current model's run is made once; the next check compares with the same one."""
    first = await check(ui, candidate)
    second = await check(ui, candidate)
    assert second == first + 1
    assert f"Current model, run {first - 1}" in await ui.page(f"/evaluate/runs/{second}")


async def test_a_bad_endpoint_is_refused_before_running(ui: UI) -> None:
    """A URL that is not http(s), or no model, answers 422 and starts nothing."""
    bad = await ui.post("/settings/check", {"base_url": "file:///etc", "model": "m"})
    none = await ui.post("/settings/check", {"base_url": "", "model": ""})
    assert (bad.status, none.status) == (422, 422)
    async with ui.store.sessionmaker() as session:
        assert await eval_runs.list_runs(session) == []


async def test_an_endpoint_that_does_not_answer_is_refused_with_the_reason(ui: UI) -> None:
    """Nothing listens there: 422 saying so, and no run reports "Accuracy 0.0 %" for it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    response = await ui.post("/settings/check", {"base_url": closed, "model": "m"})
    assert response.status == 422
    assert "did not answer" in await response.text()
    async with ui.store.sessionmaker() as session:
        assert await eval_runs.list_runs(session) == []
