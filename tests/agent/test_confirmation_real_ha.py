"""Sensitive actions ask first, against the real Home Assistant's demo locks.

The module's tests share one home (``module_home_assistant``): each starts from the locks as the
demo sets them up (``locks_home``), and each builds an add-on of its own (store and all).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from addon import keys
from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.home.actions.confirmation import hash_pin
from addon.home.actions.live import LiveExecutor
from addon.store.models import ToolCall
from addon.store.queries import confirmations_since
from addon.store.tools import custom_tools
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_agent_real_ha import home_events, started_app, wait_for_state
from tests.fixtures.app import MakeApp, MakeSettings
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

LOCK = "lock.front_door"


async def lock_app(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    **options: Any,
) -> TestClient[Any, Any]:
    """The add-on against ``home`` with the front door exposed to Assist."""
    await home.expose_entities([LOCK])
    settings = make_settings(ha_url=home.url, ha_token=home.token, **options)
    return await started_app(aiohttp_client, make_app(settings))


async def settled_state(agent: Agent, home: HomeAssistantProcess) -> str:
    """The lock's state once every call that went out has been answered."""
    assert isinstance(agent.live_executor, LiveExecutor)
    await agent.live_executor.drain()
    return str((await home.state(LOCK))["state"])


def ask(text: str, device: str | None = "satellite-hall", **kwargs: Any) -> ConversationRequest:
    """A request from the hall's satellite (Wyoming-like device continuity)."""
    return ConversationRequest(text, source="wyoming", device_id=device, **kwargs)


async def test_local_unlock_is_held_and_a_yes_unlocks(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """A local "unlock the front door" asks first; the satellite's yes unlocks it."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("unlock the front door"))
    assert held.handled_by == "local"
    assert held.reply == "Unlock the Front Door? Say yes to confirm."
    assert held.needs_confirmation is not None
    assert held.needs_confirmation["actions"][0]["action"] == "lock.unlock"
    assert held.continue_conversation is True
    assert await settled_state(agent, home) == "locked"
    confirmed = await agent.process(ask("yes"))
    assert confirmed.conversation_id == held.conversation_id
    assert confirmed.reply == "Done."
    await wait_for_state(home, LOCK, "unlocked")


async def test_a_no_cancels_and_says_what_is_true_now(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """A no cancels the held unlock, and the reply says the door is still locked (it is)."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    await agent.process(ask("unlock the front door"))
    cancelled = await agent.process(ask("No!"))
    assert cancelled.reply == "OK, the Front Door is still locked."
    again = await agent.process(ask("yes"))
    assert again.reply != "Done."
    assert await settled_state(agent, home) == "locked"


async def test_a_new_request_instead_of_an_answer_cancels_and_is_carried_out(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """A "lock the front door" said to "Unlock the Front Door?" locks a door left unlocked.

    Before, any words but a yes cancelled and were swallowed ("OK, I left it locked." while
    the door stood unlocked). A question said instead is answered, and the hold is gone.
    """
    home = locks_home
    await home.request("POST", "/api/services/lock/unlock", {"entity_id": LOCK})
    await wait_for_state(home, LOCK, "unlocked")
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("unlock the front door"))
    assert held.needs_confirmation is not None
    locked = await agent.process(ask("lock the front door"))
    assert locked.needs_confirmation is None
    assert await settled_state(agent, home) == "locked"
    assert "still" not in locked.reply
    await agent.process(ask("unlock the front door"))
    answered = await agent.process(ask("is the front door locked?"))
    assert answered.needs_confirmation is None
    assert answered.reply.lower().startswith("yes")  # Home Assistant's own answer: "Yes"
    assert (await agent.process(ask("yes"))).reply != "Done."
    assert await settled_state(agent, home) == "locked"


async def test_a_yes_from_another_device_does_nothing(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """The question was asked in the hall: a "yes" from the garden satellite unlocks nothing."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("unlock the front door"))
    other = await agent.process(ask("yes", device="satellite-garden"))
    same_conversation = await agent.process(
        ask("yes", device="satellite-garden", conversation_id=held.conversation_id)
    )
    assert "Done." not in (other.reply, same_conversation.reply)
    assert await settled_state(agent, home) == "locked"


async def test_a_yes_after_the_timeout_does_nothing(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """A "yes" 31 seconds after the question (timeout 30) leaves the door locked."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    now = [datetime(2026, 11, 25, 12, 0, tzinfo=UTC)]
    agent.clock = lambda: now[0]
    held = await agent.process(ask("unlock the front door"))
    now[0] += timedelta(seconds=31)
    late = await agent.process(ask("yes", conversation_id=held.conversation_id))
    assert late.reply != "Done."
    assert await settled_state(agent, home) == "locked"


async def test_the_models_unlock_tool_call_is_held(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """The scripted model calling HassTurnOff on the lock is held the same way; yes unlocks."""
    home = locks_home
    client = await lock_app(
        aiohttp_client,
        make_app,
        make_settings,
        home,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    agent = client.server.app[keys.AGENT]
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    held = await agent.process(ask("let me in"))
    assert held.reply.endswith("Unlock the Front Door? Say yes to confirm.")
    assert held.needs_confirmation is not None
    assert await settled_state(agent, home) == "locked"
    await agent.process(ask("yes"))
    await wait_for_state(home, LOCK, "unlocked")


async def test_german_unlock_asks_in_german_and_ja_unlocks(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """„Schließe die Front Door auf" asks in German; „ja" unlocks it."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("Schließe Front Door auf", language="de"))
    assert held.reply == "Front Door aufschließen? Sag ja, um zu bestätigen."
    assert await settled_state(agent, home) == "locked"
    await agent.process(ask("Ja.", language="de"))
    await wait_for_state(home, LOCK, "unlocked")


async def test_a_wrong_pin_waits_for_the_retry_and_no_pin_is_kept(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A wrong PIN leaves it locked and waiting; the retried PIN unlocks; no PIN is kept."""
    caplog.set_level("DEBUG")
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    app = client.server.app
    agent = app[keys.AGENT]
    await app[keys.CONFIRMATION_POLICY].add("entity", LOCK, ["unlock"], "pin", hash_pin("47113952"))
    held = await agent.process(ask("unlock the front door"))
    assert held.reply == "Unlock the Front Door? Say the PIN to confirm."
    wrong = await agent.process(ask("8 2 6 9 0 5 7 3"))
    assert wrong.reply == "That PIN is not right. Say it again to confirm, or no to cancel."
    assert await settled_state(agent, home) == "locked"
    retried = await agent.process(ask("47113952"))
    assert retried.reply == "Done."
    await wait_for_state(home, LOCK, "unlocked")
    await agent.drain()
    await app[keys.STORE].writer.flush()
    data_dir = app[keys.SETTINGS].data_dir
    stored = b"".join(path.read_bytes() for path in data_dir.rglob("*.db*") if path.is_file())
    for pin in ("47113952", "8 2 6 9 0 5 7 3", "82690573"):
        assert pin.encode() not in stored
        assert pin not in caplog.text


async def test_three_wrong_pins_lock_out_the_satellite(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """The third wrong PIN fires the lockout event; the right PIN then leaves it locked."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    app = client.server.app
    agent = app[keys.AGENT]
    await app[keys.CONFIRMATION_POLICY].add("entity", LOCK, ["unlock"], "pin", hash_pin("4711"))
    async with home_events(home, "home_agent_confirmation_locked") as seen:
        await agent.process(ask("unlock the front door"))
        for wrong in ("1111", "2222", "3333"):
            last = await agent.process(ask(wrong))
        await agent.drain()
        await until(lambda: len(seen) == 1)
    assert last.reply == "Too many wrong PINs. PIN confirmation is locked for 5 minutes."
    assert seen[0]["data"]["device_id"] == "satellite-hall"
    await agent.process(ask("unlock the front door"))
    refused = await agent.process(ask("4711"))
    assert refused.reply == last.reply
    assert await settled_state(agent, home) == "locked"


async def test_a_custom_service_tool_unlocking_is_held(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """A custom ``service`` tool calling lock.unlock is held; the user's yes performs it."""
    home = locks_home
    client = await lock_app(
        aiohttp_client,
        make_app,
        make_settings,
        home,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    app = client.server.app
    definition = {
        "name": "open_up",
        "description": "Unlock the front door.",
        "parameters": {"type": "object", "properties": {}},
        "kind": "service",
        "service": {"action": "lock.unlock", "target": {"entity_id": LOCK}},
    }
    async with app[keys.STORE].sessionmaker.begin() as session:
        await custom_tools.save_tool(session, definition)
    agent = app[keys.AGENT]
    scripted_llm.tool_calls(("open_up", {}))
    held = await agent.process(ask("open up"))
    assert held.needs_confirmation is not None
    assert held.reply.endswith("Unlock the Front Door? Say yes to confirm.")
    assert await settled_state(agent, home) == "locked"
    await agent.process(ask("yes"))
    await wait_for_state(home, LOCK, "unlocked")


async def test_held_and_cancelled_are_traced_fired_and_counted(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """The trace says held then cancelled, both events fire, the dashboard's query counts them."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    app = client.server.app
    agent = app[keys.AGENT]
    events = (
        "home_agent_confirmation_requested",
        "home_agent_confirmation_confirmed",
        "home_agent_confirmation_cancelled",
    )
    async with home_events(home, *events) as seen:
        held = await agent.process(ask("unlock the front door"))
        cancelled = await agent.process(ask("never mind"))
        await agent.drain()
        await until(lambda: len(seen) == 2)
    assert [event["event_type"] for event in seen] == [events[0], events[2]]
    assert seen[0]["data"]["actions"][0]["entity_ids"] == [LOCK]
    assert seen[1]["data"]["reason"] == "cancelled"
    await app[keys.STORE].writer.flush()
    async with app[keys.STORE].sessionmaker() as session:
        steps = {
            call.turn_id: call.result["confirmation"]
            for call in await session.scalars(
                select(ToolCall).where(ToolCall.name == "confirmation")
            )
        }
        counts = await confirmations_since(session, datetime(2000, 1, 1, tzinfo=UTC))
    assert steps == {held.turn_id: "Held for confirmation", cancelled.turn_id: "Cancelled"}
    assert counts == {"held": 1, "confirmed": 0, "cancelled": 1, "expired": 0}
    page = await client.get(
        f"/conversations/{held.conversation_id}",
        headers={"X-Ingress-Path": "/api/hassio_ingress/x"},
    )
    body = await page.text()
    assert page.status == 200, body[:300]
    assert 'data-confirmation="Held for confirmation"' in body
    assert 'data-confirmation="Cancelled"' in body


async def test_in_a_dry_run_the_confirmed_unlock_is_virtual(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """A dry run asks the same question; its confirmed unlock acts on the virtual copy only."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("unlock the front door", dry_run=True))
    assert held.reply == "Unlock the Front Door? Say yes to confirm."
    done = await agent.process(ask("yes", dry_run=True))
    assert done.reply == "Done, as a dry run: nothing was changed."
    assert await settled_state(agent, home) == "locked"


async def test_a_dry_run_question_answered_in_a_normal_turn_stays_virtual(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """Held in a dry run, a "yes" in a normal turn unlocks nothing and says it was a dry run."""
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    app = client.server.app
    agent = app[keys.AGENT]
    await agent.process(ask("unlock the front door", dry_run=True))
    done = await agent.process(ask("yes"))
    assert done.reply == "Done, as a dry run: nothing was changed."
    await app[keys.STORE].writer.flush()
    async with app[keys.STORE].sessionmaker() as session:
        step = await session.scalar(
            select(ToolCall).where(
                ToolCall.turn_id == done.turn_id, ToolCall.name == "confirmation"
            )
        )
    assert step is not None
    assert (step.result["confirmation"], step.executor) == ("Confirmed", "virtual")
    assert await settled_state(agent, home) == "locked"


async def test_an_entity_exposed_without_an_event_is_used_at_once(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    locks_home: HomeAssistantProcess,
) -> None:
    """Told "not exposed", the person exposes the door, and the same words then lock it.

    The demo's locks have no unique ID, so exposing one fires no event: before, the model kept
    saying "not exposed" until its next snapshot. A turn that finds a target not exposed asks
    Home Assistant's exposure list again and answers on the home as it is now.
    """
    home = locks_home
    client = await lock_app(aiohttp_client, make_app, make_settings, home)
    agent = client.server.app[keys.AGENT]
    refused = await agent.process(ask("lock the kitchen door"))
    # Each release says it its own way (2025.4 reads "kitchen" as an area); nothing is done.
    assert refused.reply.startswith("Sorry")
    assert str((await home.state("lock.kitchen_door"))["state"]) == "unlocked"
    await home.expose_entities(["lock.kitchen_door"])
    locked = await agent.process(ask("lock the kitchen door"))
    assert locked.handled_by == "local"
    assert "not exposed" not in locked.reply
    await wait_for_state(home, "lock.kitchen_door", "locked")
