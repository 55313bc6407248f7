"""Consent by effect: every way of unlocking the lock or opening the garage asks first.

Against a real Home Assistant with a YAML scene that unlocks the front door and a script that
does, each path that reaches the lock or the garage door under another name (a generic service,
an area, a scene, ``scene.apply``, a script called as a service) is held for confirmation, and
the lock and the door are unchanged in Home Assistant.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.home.actions.confirmation import hash_pin
from addon.home.actions.live import LiveExecutor
from addon.store.tools import custom_tools
from devtools.home_assistant import HomeAssistantError, HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_agent_real_ha import started_app, wait_for_state
from tests.fixtures.app import MakeApp, MakeSettings
from tests.fixtures.homeassistant import settle_to
from tests.web.api.conftest import TOKEN, on_direct_port
from tests.web.mcp.official import official_client

pytestmark = pytest.mark.homeassistant

LOCK = "lock.front_door"
GARAGE = "cover.garage_door"
SCENE = "scene.leave_home_open"
SCRIPTS = {
    "let_them_in": {
        "alias": "Let Them In",
        "sequence": [{"action": "lock.unlock", "target": {"entity_id": LOCK}}],
    },
    "clear_the_logs": {
        "alias": "Clear The Logs",
        "sequence": [{"delay": 0}, {"action": "system_log.clear"}],
    },
}
SCENES = [{"name": "Leave Home Open", "entities": {LOCK: "unlocked"}}]


@pytest.fixture(scope="module")
def effects_home(
    home_assistant_template: Path, ha_version: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """The demo home with the scene and the script that unlock the front door."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "effects"
    process = HomeAssistantProcess.from_template(
        home_assistant_template,
        config_dir,
        version=ha_version,
        scripts=SCRIPTS,
        extra_config={"scene": SCENES},
    )
    process.start()
    yield process
    process.kill()


async def effects_app(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    *,
    local_first: bool = False,
    api: bool = False,
    **options: Any,
) -> TestClient[Any, Any]:
    """The add-on against ``home``: lock, garage (in its area), scene and script exposed.

    ``api``: reached on the direct port with the API token, as MCP and ``/v1`` callers are.
    """
    await settle_to(home, LOCK, "lock", "locked")
    await settle_to(home, GARAGE, "close_cover", "closed")
    with contextlib.suppress(HomeAssistantError):  # made by the module's first test
        await home.websocket_command({"type": "config/area_registry/create", "name": "Garage"})
    await home.put_in_area(GARAGE, "garage")
    await home.expose_entities([LOCK, GARAGE, SCENE, "script.let_them_in"])
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=local_first,
        **({"api_token": TOKEN} if api else {}),
        **options,
    )
    if api:
        settings = on_direct_port(settings)
    return await started_app(aiohttp_client, make_app(settings))


async def with_tool(client: TestClient[Any, Any], service: dict[str, Any]) -> Agent:
    """Save a custom ``service`` tool named ``do_it`` and give the agent."""
    app = client.server.app
    definition = {
        "name": "do_it",
        "description": "Does it.",
        "parameters": {"type": "object", "properties": {}},
        "kind": "service",
        "service": service,
    }
    async with app[keys.STORE].sessionmaker.begin() as session:
        await custom_tools.save_tool(session, definition)
    return app[keys.AGENT]


async def unchanged(agent: Agent, home: HomeAssistantProcess) -> tuple[str, str]:
    """The lock's and the garage door's states once every call that went out was answered."""
    assert isinstance(agent.live_executor, LiveExecutor)
    await agent.live_executor.drain()
    return str((await home.state(LOCK))["state"]), str((await home.state(GARAGE))["state"])


def ask(text: str) -> ConversationRequest:
    return ConversationRequest(text, source="wyoming", device_id="satellite-hall")


@pytest.mark.parametrize(
    "service",
    [
        {"action": "homeassistant.toggle", "target": {"entity_id": GARAGE}},
        {"action": "homeassistant.toggle", "target": {"area_id": "garage"}},
        {"action": "script.let_them_in"},
        {"action": "scene.apply", "data": {"entities": {LOCK: "unlocked"}}},
        {"action": "scene.turn_on", "target": {"entity_id": SCENE}},
    ],
    ids=["toggle-garage", "toggle-garage-area", "script-by-name", "scene-apply", "scene"],
)
async def test_a_custom_tool_reaching_the_lock_or_garage_under_another_name_is_held(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    service: dict[str, Any],
) -> None:
    """A generic toggle, an area, a script by name, ``scene.apply``, a scene: each asks first."""
    client = await effects_app(aiohttp_client, make_app, make_settings, effects_home, scripted_llm)
    agent = await with_tool(client, service)
    scripted_llm.tool_calls(("do_it", {}))
    held = await agent.process(ask("do it"))
    assert held.needs_confirmation is not None
    assert await unchanged(agent, effects_home) == ("locked", "closed")


async def test_a_scene_that_unlocks_activated_by_a_local_sentence_is_held(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """A local "activate Leave Home Open" asks before the scene unlocks the door."""
    client = await effects_app(
        aiohttp_client, make_app, make_settings, effects_home, scripted_llm, local_first=True
    )
    agent = client.server.app[keys.AGENT]
    held = await agent.process(ask("activate Leave Home Open"))
    assert held.handled_by == "local"
    assert held.needs_confirmation is not None
    assert held.needs_confirmation["actions"][0]["entity_ids"] == [SCENE]
    assert await unchanged(agent, effects_home) == ("locked", "closed")


async def test_a_scene_that_unlocks_turned_on_by_the_model_is_held_and_a_yes_runs_it(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """HassTurnOn on the scene from the model asks first; the user's yes unlocks the door."""
    client = await effects_app(aiohttp_client, make_app, make_settings, effects_home, scripted_llm)
    agent = client.server.app[keys.AGENT]
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Leave Home Open"}))
    held = await agent.process(ask("we are leaving"))
    assert held.needs_confirmation is not None
    assert await unchanged(agent, effects_home) == ("locked", "closed")
    await agent.process(ask("yes"))
    await wait_for_state(effects_home, LOCK, "unlocked")


async def test_a_custom_tool_whose_script_reaches_a_forbidden_action_is_refused(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """A script that clears Home Assistant's log is refused as ``system_log.clear`` is, not asked.

    (Started as ``script.turn_on`` it is judged the same: tests/home/actions/test_impact.py.)
    """
    client = await effects_app(aiohttp_client, make_app, make_settings, effects_home, scripted_llm)
    agent = await with_tool(client, {"action": "script.clear_the_logs"})
    scripted_llm.tool_calls(("do_it", {})).reply("I could not do that.")
    answer = await agent.process(ask("clear the logs"))
    assert answer.needs_confirmation is None
    tool_messages = [m for m in scripted_llm.chat_requests[-1].messages if m["role"] == "tool"]
    assert "system_log.clear, which can harm the host" in tool_messages[-1]["content"]


@pytest.mark.parametrize("path", ["mcp", "v1"])
async def test_a_scene_that_unlocks_a_pin_lock_is_held_over_mcp_and_v1_despite_a_scene_entry(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    path: str,
) -> None:
    """With the lock under a PIN and scenes under a plain "yes", the scene still needs the PIN.

    HassTurnOn on the scene, called straight over our MCP server or by the model behind the
    OpenAI-compatible ``/v1``, is held: the lock's PIN entry governs what the scene does to it,
    whatever entry covers the scene by name.
    """
    client = await effects_app(
        aiohttp_client, make_app, make_settings, effects_home, scripted_llm, api=True
    )
    policy = client.server.app[keys.CONFIRMATION_POLICY]
    await policy.add("entity", LOCK, ["unlock"], "pin", hash_pin("4711"))
    await policy.add("domain", "scene", ["turn_on"], "yes", None)
    if path == "mcp":
        async with official_client(client) as mcp:
            result = await mcp.call_tool("HassTurnOn", {"name": "Leave Home Open"})
        assert "held_for_confirmation" in str(result.structured_content)
    else:
        scripted_llm.tool_calls(("HassTurnOn", {"name": "Leave Home Open"})).reply("Done.")
        response = await client.post(
            "/v1/chat/completions",
            headers={"Authorization": f"Bearer {TOKEN}"},
            json={"model": "home-agent", "messages": [{"role": "user", "content": "leave"}]},
        )
        assert response.status == 200, await response.text()
        reply = (await response.json())["choices"][0]["message"]["content"]
        assert "PIN" in reply
    assert await unchanged(client.server.app[keys.AGENT], effects_home) == ("locked", "closed")


KIDS = "satellite-kids-room"
"""A satellite device the kids' room rule names (the hall's, ``satellite-hall``, has none)."""


async def forbid_locks_in_the_kids_room(client: TestClient[Any, Any]) -> None:
    """The Safety page's rule: the kids' room speaker may do anything but act on a lock."""
    rules = client.server.app[keys.ACTOR_RULES]
    await rules.add("satellite", KIDS, "Kids Room Speaker", targets={"lock": "read"})


@pytest.mark.parametrize("path", ["sentence", "model", "custom-tool", "scene"])
async def test_a_satellite_whose_rule_forbids_locks_cannot_unlock_by_any_path(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    path: str,
) -> None:
    """From the kids' room: refused in words, the door stays locked; from the hall: asked first.

    A local sentence, the model's intent call, a custom tool calling ``lock.unlock`` and the
    model turning on a scene that unlocks: each is judged by its effect on the lock.
    """
    client = await effects_app(
        aiohttp_client,
        make_app,
        make_settings,
        effects_home,
        scripted_llm,
        local_first=path == "sentence",
    )
    await forbid_locks_in_the_kids_room(client)
    agent = await with_tool(client, {"action": "lock.unlock", "target": {"entity_id": LOCK}})
    calls = {
        "model": ("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}),
        "custom-tool": ("do_it", {}),
        "scene": ("HassTurnOn", {"name": "Leave Home Open"}),
    }
    text = "unlock the front door" if path == "sentence" else "let me in"
    for device in (KIDS, "satellite-hall"):
        if path in calls:
            scripted_llm.tool_calls(calls[path]).reply("I could not do that.")
        answer = await agent.process(ConversationRequest(text, source="wyoming", device_id=device))
        if device == KIDS:
            assert answer.needs_confirmation is None
            said = (
                answer.reply
                if path == "sentence"
                else next(
                    m["content"]
                    for m in reversed(scripted_llm.chat_requests[-1].messages)
                    if m["role"] == "tool"
                )
            )
            assert "Kids Room Speaker can't" in said
            assert await unchanged(agent, effects_home) == ("locked", "closed")
        else:
            assert answer.needs_confirmation is not None
            assert await unchanged(agent, effects_home) == ("locked", "closed")


def said_to_the_model(scripted_llm: ScriptedLLM, role: str) -> str:
    """What the model was sent in the turn under ``role`` (the prompt, the tool results)."""
    requests = scripted_llm.chat_requests
    messages = requests[-1].messages if requests else []
    return "\n".join(str(m["content"]) for m in messages if m["role"] == role)


@pytest.mark.parametrize("path", ["sentence", "GetLiveContext"])
async def test_a_satellite_whose_rule_hides_locks_never_hears_the_doors_state(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    path: str,
) -> None:
    """``lock: none``: the door's state is in no answer, prompt or tool result for the speaker.

    Asked locally or through the model's live context; from the hall (no rule) it is.
    """
    client = await effects_app(
        aiohttp_client,
        make_app,
        make_settings,
        effects_home,
        scripted_llm,
        local_first=path == "sentence",
    )
    rules = client.server.app[keys.ACTOR_RULES]
    await rules.add("satellite", KIDS, "Kids Room Speaker", targets={"lock": "none"})
    agent = client.server.app[keys.AGENT]
    heard: dict[str, tuple[str, str, str]] = {}
    for device in (KIDS, "satellite-hall"):
        scripted_llm.clear()
        if path == "sentence":
            scripted_llm.reply("I don't know.")  # should the sentence reach the model
        else:
            scripted_llm.tool_calls((path, {})).reply("I don't know.")
        answer = await agent.process(
            ConversationRequest("is the front door locked?", source="wyoming", device_id=device)
        )
        prompt = said_to_the_model(scripted_llm, "system")
        heard[device] = (answer.reply, prompt, said_to_the_model(scripted_llm, "tool"))
    reply, prompt, results = heard[KIDS]
    assert "locked" not in reply.lower()
    assert "Front Door" not in prompt
    assert "locked" not in results
    hall_reply, hall_prompt, hall_results = heard["satellite-hall"]
    if path == "sentence":
        assert hall_reply != reply
    else:
        assert "Front Door" in hall_prompt
        assert "locked" in hall_results


async def guest_user(home: HomeAssistantProcess, name: str = "Guest") -> str:
    """A Home Assistant user with a person entity (``person.<name>``); made once per home."""
    people = await home.websocket_command({"type": "person/list"})
    for person in people.get("storage", ()):
        if person["name"] == name and person.get("user_id"):
            return str(person["user_id"])
    made = await home.websocket_command(
        {"type": "config/auth/create", "name": name, "group_ids": ["system-users"]}
    )
    user_id = str(made["user"]["id"])
    await home.websocket_command({"type": "person/create", "name": name, "user_id": user_id})
    return user_id


async def test_a_typed_request_from_a_guest_user_is_refused_outside_the_preset(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """Typed through ingress by the guest's user: the lights obey, the garage door does not.

    The rule names the person entity; ingress names the Home Assistant user, which the live
    ``person.guest`` maps to the person; the conversation list names who asked.
    """
    user_id = await guest_user(effects_home)
    bed_light = {"entity_id": "light.bed_light"}
    await effects_home.request("POST", "/api/services/light/turn_on", bed_light)
    client = await effects_app(
        aiohttp_client, make_app, make_settings, effects_home, scripted_llm, local_first=True
    )
    await client.server.app[keys.ACTOR_RULES].add("person", "person.guest", "Guest", preset="guest")
    headers = {"X-Remote-User-Id": user_id, "X-Remote-User-Name": "guest"}

    async def typed(text: str) -> dict[str, Any]:
        response = await client.post("/api/conversation", json={"text": text}, headers=headers)
        assert response.status == 200, await response.text()
        answer: dict[str, Any] = await response.json()
        return answer

    refused = await typed("open the garage door")
    assert refused["reply"] == "Guest can't open the Garage Door."
    assert refused["needs_confirmation"] is None
    done = await typed("turn off the bed light")
    assert done["actions"][0]["success"] is True
    await wait_for_state(effects_home, "light.bed_light", "off")
    assert await unchanged(client.server.app[keys.AGENT], effects_home) == ("locked", "closed")
    listed = await client.get("/conversations")
    assert "person Guest · satellite unknown" in await listed.text()
    listed = await client.get("/conversations")
    assert "person Guest · satellite unknown" in await listed.text()


async def test_a_memory_stored_for_one_person_is_not_in_another_persons_prompt(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    effects_home: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """Anna's "remember" is recalled into her next prompt, never into the guest's."""
    anna, guest = await guest_user(effects_home, "Anna"), await guest_user(effects_home)
    client = await effects_app(
        aiohttp_client, make_app, make_settings, effects_home, scripted_llm, memory_extraction=False
    )

    async def typed(text: str, user_id: str) -> None:
        headers = {"X-Remote-User-Id": user_id}
        response = await client.post("/api/conversation", json={"text": text}, headers=headers)
        assert response.status == 200, await response.text()

    scripted_llm.tool_calls(("remember", {"content": "Anna's favourite colour is teal"}))
    scripted_llm.reply("I will remember that.")
    await typed("remember that my favourite colour is teal", anna)
    stored = await client.server.app[keys.MEMORY].search(
        "favourite colour", person_id="person.anna"
    )
    assert [memory.person_id for memory in stored] == ["person.anna"]

    def prompt() -> str:
        return str(scripted_llm.chat_requests[-1].messages)

    scripted_llm.reply("I don't know.")
    await typed("what is my favourite colour?", guest)
    assert "teal" not in prompt()
    scripted_llm.reply("Teal.")
    await typed("what is my favourite colour?", anna)
    assert "teal" in prompt()
