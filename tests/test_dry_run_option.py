"""The ``dry_run`` option wins on every endpoint: a request cannot turn it off.

The whole app runs against a Home Assistant that speaks the real WebSocket protocol and serves the
captured demo home; the live executor's ``call_service`` commands reach it, so an action that ran
for real is a command on its socket, and a dry run leaves none.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from addon import keys
from addon.store.models import Turn
from addon.web.ui.security import COOKIE_NAME
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.web.api.events import read_events
from tests.web.csrf import TOKEN, plant_key
from tests.web.ui.home import serve_home
from tests.wyoming.conftest import converse, final, wyoming_port

COMMAND = "turn on the kitchen lights"
CSRF = TOKEN  # signed with the key planted before the app starts
READY_S = 5.0

AppClient = TestClient[Any, Any]
Send = Callable[[AppClient], Awaitable[int]]


@pytest.fixture
async def fake_home(demo_home_data: dict[str, Any]) -> AsyncIterator[FakeHomeAssistant]:
    """A Home Assistant WebSocket server answering with the captured demo home."""
    server = FakeHomeAssistant()
    serve_home(server, demo_home_data)

    async def services(connection: FakeConnection, message: dict[str, Any]) -> None:
        # The live executor checks that an action exists before it calls it.
        await connection.result(message["id"], {"light": {"turn_on": {}, "turn_off": {}}})

    server.handlers["get_services"] = services
    await server.start()
    yield server
    await server.close()


@pytest.fixture
def start(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    fake_home: FakeHomeAssistant,
    scripted_llm: ScriptedLLM,
) -> Callable[..., Awaitable[AppClient]]:
    """Start the app on the fake home with ``dry_run`` set as asked, once the home is known."""

    async def start_app(*, dry_run: bool) -> AppClient:
        settings = make_settings(
            ha_url=fake_home.rest_url.removesuffix("/api"),
            ha_token=fake_home.token,
            llm_base_url=scripted_llm.base_url,
            llm_model="scripted-model",
            dry_run=dry_run,
        )
        plant_key(settings.data_dir)
        client: AppClient = await aiohttp_client(make_app(settings))
        client.app[keys.AGENT].outcome_delay = 0.0
        await client.app[keys.HOME_SYNC].wait_ready(READY_S)
        return client

    return start_app


async def via_api(client: AppClient) -> int:
    response = await client.post("/api/conversation", json={"text": COMMAND, "dry_run": False})
    body = await response.json()
    assert body["handled_by"] == "local", body
    return int(body["turn_id"])


async def via_api_stream(client: AppClient) -> int:
    response = await client.post(
        "/api/conversation/stream", json={"text": COMMAND, "dry_run": False}
    )
    result = (await read_events(response))[-1].json()
    assert result["handled_by"] == "local", result
    return int(result["turn_id"])


async def via_openai(client: AppClient) -> int:
    body = {"model": "home-agent", "messages": [{"role": "user", "content": COMMAND}]}
    response = await client.post("/v1/chat/completions", json=body)
    assert response.status == 200, await response.text()
    return await latest_turn(client)


async def via_ui_form(client: AppClient) -> int:
    # An unchecked switch sends no dry_run field at all, as a browser does.
    response = await client.post(
        "/chat",
        data={"text": COMMAND, "csrf_token": CSRF},
        headers={"Cookie": f"{COOKIE_NAME}={CSRF}"},
        allow_redirects=False,
    )
    assert response.status == 303, await response.text()
    return int(response.headers["Location"].rpartition("#turn-")[2])


async def via_ui_stream(client: AppClient) -> int:
    response = await client.post(
        "/chat/stream",
        data={"text": COMMAND, "csrf_token": CSRF},
        headers={"Cookie": f"{COOKIE_NAME}={CSRF}"},
    )
    done = (await read_events(response))[-1]
    assert done.name == "done", done
    return int(json.loads(done.data)["turn_id"])


async def via_wyoming(client: AppClient) -> int:
    events = await converse(wyoming_port(client), COMMAND)
    assert final(events).type == "handled", events
    return await latest_turn(client)


async def latest_turn(client: AppClient) -> int:
    store = client.app[keys.STORE]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        return int((await session.execute(select(Turn.id).order_by(Turn.id.desc()))).scalar())


async def stored_dry_run(client: AppClient, turn_id: int) -> bool:
    store = client.app[keys.STORE]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        turn = await session.get(Turn, turn_id)
    assert turn is not None
    return turn.dry_run


def service_calls(fake_home: FakeHomeAssistant) -> list[dict[str, Any]]:
    """Every ``call_service`` the app sent, i.e. everything that acted on the real home."""
    return [
        message
        for connection in fake_home.connections
        for message in connection.received
        if message.get("type") == "call_service"
    ]


ENDPOINTS = [
    pytest.param(via_api, id="http-api"),
    pytest.param(via_api_stream, id="http-api-stream"),
    pytest.param(via_openai, id="openai"),
    pytest.param(via_ui_form, id="ui-form"),
    pytest.param(via_ui_stream, id="ui-stream"),
    pytest.param(via_wyoming, id="wyoming"),
]


@pytest.mark.parametrize("send", ENDPOINTS)
async def test_the_option_keeps_every_request_a_dry_run(
    send: Send, start: Callable[..., Awaitable[AppClient]], fake_home: FakeHomeAssistant
) -> None:
    """With dry_run on, a request saying dry_run false (or nothing) acts on a copy only."""
    client = await start(dry_run=True)
    turn_id = await send(client)
    assert service_calls(fake_home) == []
    assert await stored_dry_run(client, turn_id)


async def test_without_the_option_a_request_acts_for_real(
    start: Callable[..., Awaitable[AppClient]], fake_home: FakeHomeAssistant
) -> None:
    """With dry_run off the same request reaches Home Assistant (what the test above observes)."""
    client = await start(dry_run=False)
    turn_id = await via_api(client)
    assert [m["service"] for m in service_calls(fake_home)] == ["turn_on"]
    assert not await stored_dry_run(client, turn_id)


async def test_a_request_may_still_ask_for_a_dry_run(
    start: Callable[..., Awaitable[AppClient]], fake_home: FakeHomeAssistant
) -> None:
    """With dry_run off a request's dry_run true still acts on a copy."""
    client = await start(dry_run=False)
    response = await client.post("/api/conversation", json={"text": COMMAND, "dry_run": True})
    turn_id = int((await response.json())["turn_id"])
    assert service_calls(fake_home) == []
    assert await stored_dry_run(client, turn_id)


async def test_the_chat_locks_its_switch_while_the_option_is_on(
    start: Callable[..., Awaitable[AppClient]],
) -> None:
    """The chat shows the dry-run switch checked and disabled, with a note, under the option."""
    locked = await (await (await start(dry_run=True)).get("/chat")).text()
    assert 'name="dry_run" value="on" checked disabled' in locked
    assert "option is on, so every request is a dry run" in locked


async def test_the_chat_switch_is_free_without_the_option(
    start: Callable[..., Awaitable[AppClient]],
) -> None:
    """Without the option the switch is on by default and can be turned off."""
    page = await (await (await start(dry_run=False)).get("/chat")).text()
    assert 'name="dry_run" value="on" checked>' in page
    assert "disabled" not in page.split('name="dry_run"', 1)[1].split(">", 1)[0]
