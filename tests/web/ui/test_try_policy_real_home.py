"""The tool editor's "Try it" obeys the confirmation policy, against the real Home Assistant.

A try runs a custom tool as the model would; what a turn would hold for the user's confirmation
(the default policy: unlocking a lock, toggling a garage door) a try reports as held, with the
gate's what and why, and never performs: the lock and the door stay as they were in Home
Assistant. The page's and the gate's own logic on a home Home Assistant only supplies: run on the
newest release (the gate's real-HA tests run on both: docs/DECISIONS.md, "Two Home Assistant
versions").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from addon import keys
from addon.store.tools import custom_tools as stored
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeSettings
from tests.fixtures.homeassistant import settle_to
from tests.web.ui.conftest import PREFIX, UI
from tests.web.ui.html import parse

pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]

LOCK = "lock.front_door"
GARAGE = "cover.garage_door"
UNLOCK: dict[str, Any] = {"action": "lock.unlock", "target": {"entity_id": LOCK}}
TOGGLE_GARAGE: dict[str, Any] = {"action": "homeassistant.toggle", "target": {"entity_id": GARAGE}}


def definition(service: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "do_it",
        "description": "Does it.",
        "parameters": {"type": "object", "properties": {}},
        "kind": "service",
        "service": service,
    }


async def started(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> UI:
    """The add-on on ``home`` behind ingress, the lock locked and the garage door closed."""
    await settle_to(home, LOCK, "lock", "locked")
    await settle_to(home, GARAGE, "close_cover", "closed")
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
    )
    ui: UI = await start_ui(settings, PREFIX)
    await ui.client.app[keys.HOME_SYNC].wait_ready(20.0)
    return ui


async def states(home: HomeAssistantProcess) -> tuple[str, str]:
    """The lock's and the garage door's states in Home Assistant."""
    return str((await home.state(LOCK))["state"]), str((await home.state(GARAGE))["state"])


@pytest.mark.parametrize(
    ("service", "why"),
    [(UNLOCK, f"lock.unlock on {LOCK}"), (TOGGLE_GARAGE, f" on {GARAGE}")],
    ids=["unlock", "toggle-garage"],
)
async def test_trying_a_covered_action_reports_it_held_and_leaves_the_home_alone(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    service: dict[str, Any],
    why: str,
) -> None:
    """POST /api/tools/try of an unlock or a garage toggle: held with what and why, not done."""
    ui = await started(start_ui, make_settings, module_home_assistant, scripted_llm)
    response = await ui.client.post(
        "/api/tools/try", json={"definition": definition(service)}, headers=ui.headers()
    )
    body = await response.json()
    assert response.status == 200, body
    assert (body["error"], body["sent"], body["dry_run"]) == (None, False, False)
    assert body["result"]["held_for_confirmation"] is True
    [held] = body["held"]
    assert (held["verdict"], held["subject"], held["rule"]) == (
        "confirm",
        service["action"],
        "confirmation",
    )
    assert "held until the user confirms" in held["reason"]
    assert why in held["reason"]
    assert await states(module_home_assistant) == ("locked", "closed")


async def test_the_editor_says_an_unlock_it_tried_would_be_held(
    start_ui: Callable[..., Any],
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """The editor's Run of a saved unlock tool shows it would be held, and why; the door stays."""
    ui = await started(start_ui, make_settings, module_home_assistant, scripted_llm)
    async with ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, definition(UNLOCK))
    response = await ui.post(f"/tools/{tool.id}/try", {})
    html = await response.text()
    assert response.status == 200, html
    page = parse(html)
    assert "would be held for confirmation" in page.text
    assert f"lock.unlock on {LOCK}" in page.text
    assert "request not sent" in page.text
    assert await states(module_home_assistant) == ("locked", "closed")
