"""Automations the model drafts and a person approves, against a real Home Assistant."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from addon import keys
from addon.agent.conversation import ConversationRequest
from addon.errors import HomeAssistantCommandError
from addon.home.actions.confirmation import hash_pin
from addon.store.models import ToolCall
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_agent_real_ha import home_events, started_app, wait_for_state
from tests.fixtures.app import MakeApp, MakeSettings
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

LIGHT = "light.kitchen_lights"
LOCK = "lock.front_door"
EVERY_FIVE_SECONDS = {"trigger": "time_pattern", "seconds": "/5"}
EVENTS = (
    "home_agent_automation_drafted",
    "home_agent_automation_approved",
    "home_agent_automation_deleted",
)


@pytest.fixture(scope="module")
def automation_home(
    home_assistant_template: Path, ha_version: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """The demo home with automations and the config API, shared by this module's tests."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "automations"
    process = HomeAssistantProcess.from_template(
        home_assistant_template, config_dir, version=ha_version, automations=True
    )
    process.start()
    yield process
    process.kill()


async def drafting_app(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    llm: ScriptedLLM,
) -> TestClient[Any, Any]:
    """The add-on on ``home`` with the scripted model, the lock and the light exposed."""
    await home.expose_entities([LOCK, LIGHT])
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    return await started_app(aiohttp_client, make_app(settings))


def draft(alias: str, actions: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The model's ``draft_automation`` call: every five seconds, do ``actions``."""
    return (
        "draft_automation",
        {
            "alias": alias,
            "summary": f"Every five seconds: {alias}.",
            "triggers": [EVERY_FIVE_SECONDS],
            "actions": actions,
        },
    )


async def in_home_assistant(home: HomeAssistantProcess, automation_id: str) -> bool:
    """Whether Home Assistant's config API knows the automation ``automation_id``."""
    try:
        await home.request("GET", f"/api/config/automation/config/{automation_id}")
    except Exception:
        return False
    return True


async def automation_entity(home: HomeAssistantProcess, automation_id: str) -> dict[str, Any]:
    """The automation entity Home Assistant made for ``automation_id`` (waits for the reload)."""
    async with asyncio.timeout(15):
        while True:
            for state in await home.states():
                if state["attributes"].get("id") == automation_id:
                    return state
            await asyncio.sleep(0.2)


def ask(text: str) -> ConversationRequest:
    """A request from the kitchen's satellite."""
    return ConversationRequest(text, source="wyoming", device_id="satellite-kitchen")


async def test_a_time_automation_appears_only_after_the_yes_and_then_fires(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    automation_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """Drafted, nothing is in Home Assistant; a spoken yes creates it, and it turns the light on.

    The draft, the approval and the deletion each fire their event; the draft's tool call and
    the confirmation are in the turns' traces.
    """
    home = automation_home
    client = await drafting_app(aiohttp_client, make_app, make_settings, home, scripted_llm)
    app = client.server.app
    await home.request("POST", "/api/services/light/turn_off", {"entity_id": LIGHT})
    await wait_for_state(home, LIGHT, "off")
    action = {"action": "light.turn_on", "target": {"entity_id": LIGHT}}
    scripted_llm.tool_calls(draft("Kitchen lights on", [action]))
    async with home_events(home, *EVENTS) as seen:
        held = await app[keys.AGENT].process(ask("turn on the kitchen lights every five seconds"))
        assert held.reply == (
            "I drafted an automation: Every five seconds: Kitchen lights on. It waits for your "
            "approval. Create it now? Say yes to confirm."
        )
        (kept,) = await app[keys.AUTOMATIONS].records.listed()
        assert (kept.state, kept.entities, kept.confirm_by) == ("draft", (LIGHT,), "yes")
        assert kept.conversation_id == held.conversation_id  # the page links to its turns
        assert not await in_home_assistant(home, "home_agent_draft_1")
        assert (await home.state(LIGHT))["state"] == "off"
        confirmed = await app[keys.AGENT].process(ask("yes"))
        assert confirmed.reply == "Done."
        stored = await home.request("GET", "/api/config/automation/config/home_agent_draft_1")
        assert stored["description"].startswith(
            "Created by Home Agent (draft 1, approved by spoken"
        )
        assert stored["triggers"] == [EVERY_FIVE_SECONDS]
        await automation_entity(home, "home_agent_draft_1")
        await wait_for_state(home, LIGHT, "on")  # fired within five seconds
        (approved,) = await app[keys.AUTOMATIONS].records.listed()
        assert (approved.state, approved.approved_by) == ("approved", "spoken yes")
        await app[keys.AUTOMATIONS].delete(approved.id, "test")
        await app[keys.AUTOMATIONS].drain()
        await until(lambda: len(seen) == len(EVENTS))
    assert [event["event_type"] for event in seen] == list(EVENTS)
    assert seen[1]["data"]["by"] == "spoken yes"
    assert seen[2]["data"]["automation_id"] == "home_agent_draft_1"
    await app[keys.STORE].writer.flush()
    async with app[keys.STORE].sessionmaker() as session:
        calls = list(await session.scalars(select(ToolCall).order_by(ToolCall.id)))
    traced = [(call.turn_id, call.name, (call.result or {}).get("confirmation")) for call in calls]
    assert traced == [
        (held.turn_id, "draft_automation", None),
        (held.turn_id, "confirmation", "Held for confirmation"),
        (confirmed.turn_id, "confirmation", "Confirmed"),
    ]
    assert not await in_home_assistant(home, "home_agent_draft_1")


async def test_a_draft_that_unlocks_the_door_is_held_for_the_pin(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    automation_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """An automation unlocking the front door asks for the lock's PIN; a yes approves nothing."""
    home = automation_home
    client = await drafting_app(aiohttp_client, make_app, make_settings, home, scripted_llm)
    app = client.server.app
    await app[keys.CONFIRMATION_POLICY].add("domain", "lock", ["unlock"], "pin", hash_pin("4711"))
    unlock = {"action": "lock.unlock", "target": {"entity_id": LOCK}}
    scripted_llm.tool_calls(draft("Let the cleaner in", [unlock]))
    held = await app[keys.AGENT].process(ask("unlock the door for the cleaner"))
    assert held.reply.endswith("Create it now? Say the PIN to confirm.")
    (kept,) = await app[keys.AUTOMATIONS].records.listed()
    assert (kept.confirm_by, kept.covered) == ("pin", f"lock.unlock on {LOCK}")
    await app[keys.AGENT].process(ask("yes"))
    assert (await app[keys.AUTOMATIONS].records.get(kept.id)).state == "draft"
    assert not await in_home_assistant(home, "home_agent_draft_1")
    scripted_llm.tool_calls(draft("Let the cleaner in", [unlock]))
    await app[keys.AGENT].process(ask("unlock the door for the cleaner"))
    assert (await app[keys.AGENT].process(ask("4711"))).reply == "Done."
    assert await in_home_assistant(home, "home_agent_draft_2")
    await app[keys.AUTOMATIONS].delete(2, "test")


async def test_a_draft_calling_a_forbidden_action_is_refused(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    automation_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """An automation restarting Home Assistant is refused by the gate: no draft, no question."""
    home = automation_home
    client = await drafting_app(aiohttp_client, make_app, make_settings, home, scripted_llm)
    app = client.server.app
    scripted_llm.tool_calls(draft("Restart", [{"action": "homeassistant.restart"}]))
    scripted_llm.reply("I can't draft that.")
    answer = await app[keys.AGENT].process(ask("restart home assistant every five seconds"))
    assert answer.needs_confirmation is None
    assert await app[keys.AUTOMATIONS].records.listed() == []
    tool_result = scripted_llm.chat_requests[-1].messages[-1]["content"]
    assert "refused" in tool_result
    assert "homeassistant.restart can harm the host" in tool_result


async def test_home_assistant_validates_the_draft_before_it_is_offered(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    automation_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """A trigger Home Assistant does not know is sent back to the model; nothing is kept."""
    home = automation_home
    client = await drafting_app(aiohttp_client, make_app, make_settings, home, scripted_llm)
    app = client.server.app
    wrong = draft("Kitchen", [{"action": "light.turn_on", "target": {"entity_id": LIGHT}}])
    wrong[1]["triggers"] = [{"trigger": "no_such_trigger"}]
    scripted_llm.tool_calls(wrong)
    scripted_llm.reply("That trigger does not exist.")
    answer = await app[keys.AGENT].process(ask("do something odd"))
    assert answer.needs_confirmation is None
    assert await app[keys.AUTOMATIONS].records.listed() == []
    tool_result = scripted_llm.chat_requests[-1].messages[-1]["content"]
    assert "Home Assistant rejects the draft: triggers:" in tool_result
    with pytest.raises(HomeAssistantCommandError):
        await app[keys.HA_CLIENT].rest_get("/config/automation/config/home_agent_draft_1")


async def test_a_local_sentence_drafts_a_weekday_automation_home_assistant_takes(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    automation_home: HomeAssistantProcess,
) -> None:
    """No model: "every weekday at seven..." is drafted locally, validated, and a yes creates it."""
    home = automation_home
    await home.expose_entities([LIGHT])
    settings = make_settings(ha_url=home.url, ha_token=home.token)
    app = (await started_app(aiohttp_client, make_app(settings))).server.app
    held = await app[keys.AGENT].process(ask("every weekday at seven turn on the kitchen lights"))
    assert held.handled_by == "local"
    assert held.reply == (
        "I drafted an automation: Every weekday at 07:00 it turns on Kitchen Lights. It waits "
        "for your approval. Create it now? Say yes to confirm."
    )
    assert (await app[keys.AGENT].process(ask("yes"))).reply == "Done."
    (approved,) = await app[keys.AUTOMATIONS].records.listed()
    stored = await home.request("GET", f"/api/config/automation/config/{approved.automation_id}")
    assert stored["triggers"] == [{"trigger": "time", "at": "07:00:00"}]
    assert stored["conditions"] == [
        {"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]}
    ]
    assert stored["actions"] == [{"action": "light.turn_on", "target": {"entity_id": LIGHT}}]
    await app[keys.AUTOMATIONS].delete(approved.id, "test")
