"""The whole app on loopback with its Wyoming server, and the real wyoming client to talk to it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.handle import Handled, HandledStart, HandledStop, NotHandled

from addon import keys
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings

# A guard against a hung exchange, not a timing check: generous, as CI machines stall at times.
TIMEOUT_S = 30.0
StartApp = Callable[..., Awaitable[TestClient[Any, Any]]]


@pytest.fixture
def start_app(
    aiohttp_client: Callable[..., Any],
    make_settings: MakeSettings,
    make_app: MakeApp,
    scripted_llm: ScriptedLLM,
) -> StartApp:
    """Start the app against the scripted model; keywords are options, ``ha_url``/``ha_token``."""

    async def start(**options: Any) -> TestClient[Any, Any]:
        options.setdefault("llm_base_url", scripted_llm.base_url)
        options.setdefault("llm_model", "scripted-model")
        client: TestClient[Any, Any] = await aiohttp_client(make_app(make_settings(**options)))
        return client

    return start


def wyoming_port(client: TestClient[Any, Any]) -> int:
    """The port the app's Wyoming server bound (the settings ask for any free one)."""
    return client.server.app[keys.WYOMING].bound_port


async def read_answer(client: AsyncTcpClient) -> list[Event]:
    """Every event of one answer: through ``handled-stop`` if a stream began, else the final one."""
    events: list[Event] = []
    while True:
        event = await client.read_event()
        assert event is not None, f"the server closed the connection after {events}"
        events.append(event)
        if HandledStop.is_type(event.type):
            return events
        final = Handled.is_type(event.type) or NotHandled.is_type(event.type)
        if final and not any(HandledStart.is_type(e.type) for e in events):
            return events


async def exchange(port: int, event: Event) -> list[Event]:
    """Send one event on a new connection, as Home Assistant does, and read the answer."""
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(event)
        return await read_answer(client)


async def converse(port: int, text: str, **fields: Any) -> list[Event]:
    """Send one transcript (``context``, ``language`` as keywords) and read the answer."""
    return await exchange(port, Transcript(text=text, **fields).event())


def home_assistant_2025_4_transcript(text: str) -> Event:
    """The transcript Home Assistant 2025.4 sends: the text alone.

    Its Wyoming conversation agent (``homeassistant/components/wyoming/conversation.py``)
    writes ``Transcript(user_input.text, context={"conversation_id": ...}).event()``, and the
    wyoming 1.5.4 it pins builds that event as ``{"text": text}``: no context, no language.
    The wyoming installed here keeps the context, so the event is built as 1.5.4 builds it.
    """
    return Event(type="transcript", data={"text": text})


async def say_as_home_assistant_2025_4(port: int, text: str) -> list[Event]:
    """Send ``text`` as Home Assistant 2025.4 does, on a new connection, and read the answer."""
    return await exchange(port, home_assistant_2025_4_transcript(text))


def final(events: list[Event]) -> Event:
    """The ``handled`` or ``not-handled`` event of an answer."""
    return next(e for e in events if Handled.is_type(e.type) or NotHandled.is_type(e.type))


def types(events: list[Event]) -> list[str]:
    """Event types in order, chunks collapsed to one entry per run, for readable assertions."""
    collapsed: list[str] = []
    for event in events:
        if not (collapsed and collapsed[-1] == event.type == "handled-chunk"):
            collapsed.append(event.type)
    return collapsed
