"""The Home Assistant client against the scripted server: protocol, faults and recovery."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any

import pytest

from addon.errors import (
    HomeAssistantCommandError,
    HomeAssistantUnavailableError,
)
from addon.ha.client import HomeAssistantClient
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.ha.waiting import until

CLIENT_LOGGER = "addon.ha"


async def _never_answer(_connection: FakeConnection, _message: dict[str, Any]) -> None:
    await asyncio.Event().wait()


async def test_sends_supported_features_as_id_1_after_auth(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The first command after auth turns on coalescing, with id 1."""
    first = fake_ha.latest.received[0]
    assert first == {"id": 1, "type": "supported_features", "features": {"coalesce_messages": 1}}


async def test_reports_version_and_health_when_connected(client: HomeAssistantClient) -> None:
    """A connected client is healthy and knows Home Assistant's version."""
    health = await client.health()
    assert (client.connected, client.ha_version, health.status) == (True, "2025.4.4", "ok")


async def test_command_returns_result(client: HomeAssistantClient) -> None:
    """A command resolves to the ``result`` of its answer."""
    assert await client.command({"type": "get_config"}) == {
        "location_name": "Fake",
        "version": "2025.4.4",
    }


async def test_error_result_raises_command_error(client: HomeAssistantClient) -> None:
    """``success: false`` becomes HomeAssistantCommandError with Home Assistant's code."""
    with pytest.raises(HomeAssistantCommandError, match="unknown_command") as caught:
        await client.command({"type": "no/such/command"})
    assert caught.value.code == "unknown_command"


async def test_command_before_connecting_fails_at_once(make_client: MakeClient) -> None:
    """Without a link a command raises HomeAssistantUnavailableError without waiting at all."""
    idle = await make_client(start=False)
    command = idle.command({"type": "get_config"})
    try:
        with pytest.raises(HomeAssistantUnavailableError, match="get_config"):
            command.send(None)  # its first step: a command that waited would suspend instead
    finally:
        command.close()


async def test_ids_increase_per_command(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Each command carries a fresh, increasing id, as Home Assistant requires."""
    await client.command({"type": "get_config"})
    await client.command({"type": "get_config"})
    ids = [message["id"] for message in fake_ha.latest.received]
    assert ids == sorted(set(ids))


async def test_coalesced_frame_answers_each_command(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Answers joined into one JSON array frame each reach their own command."""
    waiting: list[dict[str, Any]] = []

    async def answer_in_pairs(connection: FakeConnection, message: dict[str, Any]) -> None:
        waiting.append(message)
        if len(waiting) == 2:
            await connection.send(
                [
                    {"id": m["id"], "type": "result", "success": True, "result": m["n"]}
                    for m in reversed(waiting)
                ]
            )

    fake_ha.handlers["pair"] = answer_in_pairs
    results = await asyncio.gather(
        client.command({"type": "pair", "n": 1}), client.command({"type": "pair", "n": 2})
    )
    assert results == [1, 2]


async def test_event_in_same_frame_as_subscribe_result_is_delivered(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A snapshot event coalesced with the subscribe result is not lost."""

    async def result_and_snapshot(connection: FakeConnection, message: dict[str, Any]) -> None:
        connection.subscriptions[message["id"]] = message
        await connection.send(
            [
                {"id": message["id"], "type": "result", "success": True, "result": None},
                {"id": message["id"], "type": "event", "event": {"a": {"light.x": {"s": "on"}}}},
            ]
        )

    fake_ha.handlers["subscribe_entities"] = result_and_snapshot
    events: list[Any] = []
    await client.subscribe({"type": "subscribe_entities"}, events.append)
    await until(lambda: bool(events))
    assert events == [{"a": {"light.x": {"s": "on"}}}]


@pytest.mark.parametrize(
    ("frame", "logged"),
    [
        ("this is not json", "not JSON"),
        (b"\x00\x01binary", "binary frame"),
        (json.dumps({"id": 999, "type": "result", "success": True}), "never issued"),
        (json.dumps({"type": "surprise"}), "unexpected type"),
        (json.dumps([1, "two"]), "not an object"),
    ],
    ids=["not-json", "binary", "unknown-id", "unknown-type", "array-of-non-objects"],
)
async def test_odd_frame_is_logged_and_link_stays_up(
    client: HomeAssistantClient,
    fake_ha: FakeHomeAssistant,
    caplog: pytest.LogCaptureFixture,
    frame: str | bytes,
    logged: str,
) -> None:
    """An odd frame is logged at warning level and later commands still work."""
    caplog.set_level(logging.WARNING, CLIENT_LOGGER)
    await fake_ha.latest.send_raw(frame)
    assert await client.command({"type": "get_config"})
    assert client.connected
    assert logged in caplog.text
    assert len(fake_ha.connections) == 1


async def test_slow_answer_times_out_while_others_proceed(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A withheld answer times out naming the command; commands after it are answered."""
    fake_ha.handlers["slow/thing"] = _never_answer
    slow = asyncio.ensure_future(client.command({"type": "slow/thing"}, timeout=0.3))
    assert await client.command({"type": "get_config"})
    with pytest.raises(HomeAssistantUnavailableError, match=r"'slow/thing' within 0\.3 s"):
        await slow


async def test_late_answer_after_timeout_is_ignored(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """An answer arriving after its command timed out is logged at debug and harms nothing."""
    caplog.set_level(logging.DEBUG, CLIENT_LOGGER)
    fake_ha.handlers["slow/thing"] = _never_answer
    with pytest.raises(HomeAssistantUnavailableError):
        await client.command({"type": "slow/thing"}, timeout=0.1)
    late_id = fake_ha.latest.received[-1]["id"]
    await fake_ha.latest.result(late_id, "too late")
    assert await client.command({"type": "get_config"})
    late = [r for r in caplog.records if f"id {late_id}" in r.getMessage()]
    assert [r.levelno for r in late] == [logging.DEBUG]


async def test_subscription_receives_events(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The callback gets each event's payload."""
    events: list[Any] = []
    await client.subscribe({"type": "subscribe_events", "event_type": "x"}, events.append)
    (sub_id,) = fake_ha.latest.subscriptions
    await fake_ha.latest.event(sub_id, {"event_type": "x", "data": {"n": 1}})
    await client.command({"type": "get_config"})  # a round trip: the event came first
    assert events == [{"event_type": "x", "data": {"n": 1}}]


async def test_unsubscribe_stops_events(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """After unsubscribe Home Assistant is told and the callback hears nothing more."""
    events: list[Any] = []
    sub = await client.subscribe({"type": "subscribe_events", "event_type": "x"}, events.append)
    (sub_id,) = fake_ha.latest.subscriptions
    await sub.unsubscribe()
    await fake_ha.latest.event(sub_id, {"late": True})
    await client.command({"type": "get_config"})
    assert (events, fake_ha.latest.subscriptions, sub.active) == ([], {}, False)


async def test_failing_callback_does_not_break_link(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """A callback that raises is logged with its subscription; the link stays up."""

    def broken(_event: Any) -> None:
        raise ValueError("subscriber bug")

    await client.subscribe({"type": "subscribe_events", "event_type": "x"}, broken)
    (sub_id,) = fake_ha.latest.subscriptions
    await fake_ha.latest.event(sub_id, {})
    assert await client.command({"type": "get_config"})
    assert "Callback for subscription subscribe_events" in caplog.text


async def test_large_message_is_received(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A 10 MiB answer (a big home's registry) does not drop the link."""
    big = "x" * (10 * 1024 * 1024)

    async def answer_big(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.result(message["id"], big)

    fake_ha.handlers["big"] = answer_big
    assert len(await client.command({"type": "big"})) == len(big)


async def test_call_service_sends_target_data_and_response_flag(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """call_service sends Home Assistant's message shape and returns its result."""
    result = await client.call_service(
        "light",
        "turn_on",
        service_data={"brightness": 10},
        target={"entity_id": "light.x"},
        return_response=True,
    )
    sent = fake_ha.latest.received[-1]
    assert sent == {
        "id": sent["id"],
        "type": "call_service",
        "domain": "light",
        "service": "turn_on",
        "service_data": {"brightness": 10},
        "target": {"entity_id": "light.x"},
        "return_response": True,
    }
    assert result["response"] == {"echo": {"brightness": 10}}


async def test_call_service_without_a_time_limit_outlasts_the_command_timeout(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """``timeout=math.inf`` waits for a long service (a script) past the command timeout."""
    client = await make_client(command_timeout=0.1)
    await client.wait_connected(5.0)
    finished = asyncio.Event()

    async def slow(connection: FakeConnection, message: dict[str, Any]) -> None:
        await finished.wait()
        await connection.result(message["id"], {"context": {}})

    fake_ha.handlers["call_service"] = slow
    fake_ha.handlers["slow/thing"] = _never_answer
    with pytest.raises(HomeAssistantUnavailableError, match=r"within 0\.1 s"):
        await client.call_service("script", "slow")
    unbounded = asyncio.ensure_future(client.call_service("script", "slow", timeout=math.inf))
    await until(lambda: fake_ha.latest.sent_types().count("call_service") == 2)
    # A command sent after it times out first: the unbounded call has outlived the timeout.
    with pytest.raises(HomeAssistantUnavailableError, match=r"within 0\.1 s"):
        await client.command({"type": "slow/thing"})
    assert not unbounded.done()
    finished.set()
    assert await unbounded == {"context": {}}


async def test_fire_event_sends_type_and_data(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """fire_event sends the event type and data."""
    await client.fire_event("home_agent_test", {"n": 1})
    sent = fake_ha.latest.received[-1]
    assert (sent["type"], sent["event_type"], sent["event_data"]) == (
        "fire_event",
        "home_agent_test",
        {"n": 1},
    )


async def test_connect_listener_runs_before_connected(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """A connect listener can use commands and finishes before ``connected`` turns True."""
    client = await make_client(start=False)
    seen: list[tuple[bool, Any]] = []

    async def listener() -> None:
        seen.append((client.connected, await client.command({"type": "get_config"})))

    client.add_connect_listener(listener)
    await client.start()
    await client.wait_connected(5.0)
    assert seen == [(False, {"location_name": "Fake", "version": "2025.4.4"})]


async def test_removed_connect_listener_is_not_called(make_client: MakeClient) -> None:
    """The function add_connect_listener returns removes the listener."""
    client = await make_client(start=False)
    calls: list[str] = []

    async def listener() -> None:
        calls.append("called")

    remove = client.add_connect_listener(listener)
    remove()
    await client.start()
    await client.wait_connected(5.0)
    assert calls == []


async def test_stop_fails_pending_commands_with_shutting_down(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Commands still waiting when the client stops fail with 'shutting down'."""
    fake_ha.handlers["slow/thing"] = _never_answer
    pending = asyncio.ensure_future(client.command({"type": "slow/thing"}))
    await fake_ha.wait_for_message(fake_ha.latest, "slow/thing")
    await client.stop()
    with pytest.raises(HomeAssistantUnavailableError, match="shutting down"):
        await pending
    assert not client.connected
