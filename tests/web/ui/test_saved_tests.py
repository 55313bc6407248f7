"""Save as test: a turn's trace made into a test, edited, saved, listed, run and downloaded."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

import yaml

from addon import keys
from addon.eval.cli import run_cli
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import UI

SENTENCE = "turn off the kitchen lights"


def events(body: str) -> list[tuple[str, dict[str, Any]]]:
    """The Server-Sent Events of a finished chat stream, as (event, data)."""
    found = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


async def chat_turn(ui: UI, text: str = SENTENCE) -> dict[str, Any]:
    """One dry-run turn from the chat; its ``done`` event."""
    response = await ui.post("/chat/stream", {"text": text, "dry_run": "on"})
    done = events(await response.text())[-1][1]
    await ui.store.writer.flush()
    return done


def draft(page: str) -> str:
    """The test's YAML in the form's text area."""
    found = re.search(r'<textarea id="test-text"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


async def save(ui: UI, turn_id: int, text: str) -> Any:
    return await ui.post("/evaluate/tests", {"turn": str(turn_id), "text": text})


async def test_the_draft_holds_the_states_before_and_the_change_after(ui: UI) -> None:
    """Setup is the light on, as it was; expect is the light off, as the turn left it."""
    done = await chat_turn(ui)
    task = yaml.safe_load(draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}")))
    assert task["sentence"] == SENTENCE
    assert task["setup"]["light.kitchen_lights"]["state"] == "on"
    assert task["expect"] == {"light.kitchen_lights": {"state": "off"}}


async def test_a_question_drafts_the_numbers_of_its_answer(
    ui: UI, scripted_llm: ScriptedLLM
) -> None:
    """A turn that acted on nothing becomes a question: the reply's numbers must appear."""
    scripted_llm.reply("It is 21.5 degrees in the living room.")
    done = await chat_turn(ui, "how warm is it, roughly")
    task = yaml.safe_load(draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}")))
    assert task["answer"] == ["21.5"]
    assert "expect" not in task


async def test_a_saved_test_is_listed_and_runs_and_passes(ui: UI) -> None:
    """Saved unedited, the test is on the Evaluate page, and the run of the suite passes it."""
    done = await chat_turn(ui)
    text = draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}"))
    response = await save(ui, done["turn_id"], text)
    assert response.status == 303
    assert response.headers["Location"].endswith("/evaluate#saved-tests")
    page = await ui.page("/evaluate")
    assert f'{SENTENCE} <span class="meta">from turn {done["turn_id"]}</span>' in page
    form = {"source": "saved", "model": "scripted-model", "local_first": "on"}
    started = await ui.post("/evaluate", form)
    assert started.status == 303, await started.text()
    run_id = int(started.headers["Location"].rsplit("/", 1)[1])
    await ui.client.app[keys.EVALUATIONS].wait(run_id)
    assert "100.0 % (1/1)" in await ui.page(f"/evaluate/runs/{run_id}")


async def test_an_edited_test_naming_an_unknown_entity_is_refused(ui: UI) -> None:
    """A test that could not run is shown again with the problem, not saved."""
    done = await chat_turn(ui)
    text = draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}"))
    response = await save(ui, done["turn_id"], text.replace("light.kitchen_lights", "light.nope"))
    assert response.status == 422
    assert "light.nope" in await response.text()
    assert "No tests yet" in await ui.page("/evaluate")


async def test_text_that_is_not_a_test_is_a_422(ui: UI) -> None:
    """YAML that is not a mapping, or not YAML, comes back as a problem."""
    assert (await save(ui, 1, "- just\n- a list")).status == 422
    assert (await save(ui, 1, "sentence: [")).status == 422


async def test_the_saved_tests_download_as_a_task_file_and_delete(ui: UI) -> None:
    """The download is a task file with the home and the test; Delete removes the test."""
    done = await chat_turn(ui)
    text = draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}"))
    await save(ui, done["turn_id"], text)
    download = await ui.get("/evaluate/tests.yaml")
    assert download.content_type == "application/yaml"
    document = yaml.safe_load(await download.text())
    assert [task["sentence"] for task in document["tasks"]] == [SENTENCE]
    assert any(e["entity_id"] == "light.kitchen_lights" for e in document["home"]["entities"])
    task_id = int(document["tasks"][0]["id"].removeprefix("saved-"))
    assert (await ui.post(f"/evaluate/tests/{task_id}/delete", {})).status == 303
    assert "No tests yet" in await ui.page("/evaluate")


async def test_an_unknown_turn_is_a_404(ui: UI) -> None:
    """Asking to save a turn that does not exist answers 404, not 500."""
    assert (await ui.get("/evaluate/tests/new?turn=999999")).status == 404
    assert (await ui.get("/evaluate/tests/new?turn=x")).status == 400


async def test_the_downloaded_tests_run_from_the_command_line(ui: UI, tmp_path: Path) -> None:
    """``python -m addon.eval`` runs the downloaded file, and the saved test passes."""
    done = await chat_turn(ui)
    await save(
        ui, done["turn_id"], draft(await ui.page(f"/evaluate/tests/new?turn={done['turn_id']}"))
    )
    path = tmp_path / "tests.yaml"
    path.write_text(await (await ui.get("/evaluate/tests.yaml")).text(), encoding="utf-8")
    out = io.StringIO()
    code = await run_cli([str(path)], {}, out)
    assert code == 0, out.getvalue()
    assert "accuracy 100.0% (1/1)" in out.getvalue()


async def test_a_form_without_its_turn_or_with_a_huge_one_is_a_422(ui: UI) -> None:
    """Missing or absurd fields come back as the form with its problem, never a 500."""
    assert (await ui.post("/evaluate/tests", {"text": "sentence: ["})).status == 422
    response = await ui.post("/evaluate/tests", {"turn": "9" * 40, "text": "- a"})
    assert response.status == 422
    assert (await ui.post(f"/evaluate/tests/{'9' * 40}/delete", {})).status == 404
