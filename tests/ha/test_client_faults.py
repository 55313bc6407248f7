"""The client when Home Assistant misbehaves: rejected token, dropped link, missing pong."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest

from addon.errors import HomeAssistantAuthError, HomeAssistantUnavailableError
from addon.ha.client import HomeAssistantClient
from addon.ha.protocol import backoff_delay
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.ha.waiting import Pauses, until

WRONG_TOKEN = "wrong-token-abcdefghijkl"


async def _never_answer(_connection: FakeConnection, _message: dict[str, Any]) -> None:
    await asyncio.Event().wait()


async def _wait_until_connected_on(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant, count: int
) -> FakeConnection:
    connection = await fake_ha.wait_for_connection(count)
    await client.wait_connected(5.0)
    return connection


async def test_rejected_token_is_logged_once_without_hot_loop(
    make_client: MakeClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """After auth_invalid the client logs one error and pauses the auth retry interval."""
    pauses = Pauses()
    client = await make_client(token=WRONG_TOKEN, auth_retry_interval=300.0, sleep=pauses)
    pause = await pauses.next()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert (pause.seconds, fake_ha.auth_attempts) == (300.0, 1)
    assert [r.getMessage().split(" (")[0] for r in errors] == [
        "Home Assistant rejected the access token"
    ]
    assert client.auth_failed


async def test_rejected_token_is_retried_slowly(
    make_client: MakeClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """Each retry comes after a full auth retry interval; the error is still logged once."""
    pauses = Pauses()
    await make_client(token=WRONG_TOKEN, auth_retry_interval=300.0, sleep=pauses)
    for attempts in (1, 2, 3):
        pause = await pauses.next()
        assert (pause.seconds, fake_ha.auth_attempts) == (300.0, attempts)
        pause.end()
    await pauses.next()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert (fake_ha.auth_attempts, pauses.asked) == (4, [300.0] * 4)
    assert len(errors) == 1


async def test_rejected_token_shows_in_health(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """Health is degraded and names the token problem."""
    client = await make_client(token=WRONG_TOKEN)
    with pytest.raises(HomeAssistantAuthError):
        await client.wait_connected(2.0)
    health = await client.health()
    assert (health.status, "rejected the access token" in health.detail) == ("degraded", True)


async def test_token_never_logged(
    make_client: MakeClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """Neither a good nor a rejected token appears in any log record, even at debug."""
    caplog.set_level(logging.DEBUG)
    good = await make_client()
    await good.wait_connected(5.0)
    await good.command({"type": "get_config"})
    rejected = await make_client(token=WRONG_TOKEN)
    with pytest.raises(HomeAssistantAuthError):
        await rejected.wait_connected(5.0)  # returns once the rejection has been logged
    assert fake_ha.token not in caplog.text
    assert WRONG_TOKEN not in caplog.text


async def test_drop_fails_pending_commands(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Commands waiting when the server drops the link fail with HomeAssistantUnavailableError."""
    fake_ha.handlers["slow/thing"] = _never_answer
    pending = asyncio.ensure_future(client.command({"type": "slow/thing"}, timeout=30))
    await fake_ha.wait_for_message(fake_ha.latest, "slow/thing")
    await fake_ha.drop_all()
    with pytest.raises(HomeAssistantUnavailableError, match="lost"):
        await asyncio.wait_for(pending, 5.0)


async def test_reconnects_after_drop(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """After the server drops the link the client reconnects and commands work again."""
    await fake_ha.drop_all()
    await _wait_until_connected_on(client, fake_ha, 2)
    assert await client.command({"type": "get_config"})


async def test_subscriptions_reestablished_after_drop(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A subscription is sent again on the new connection and its events still arrive."""
    events: list[Any] = []
    await client.subscribe({"type": "subscribe_events", "event_type": "x"}, events.append)
    await fake_ha.drop_all()
    second = await _wait_until_connected_on(client, fake_ha, 2)
    (sub_id,) = second.subscriptions
    await second.event(sub_id, {"after": "reconnect"})
    await client.command({"type": "get_config"})
    assert second.subscriptions[sub_id]["event_type"] == "x"
    assert events == [{"after": "reconnect"}]


async def test_one_shot_subscription_ends_with_its_connection(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """With resubscribe=False the subscription is not sent again and turns inactive."""
    sub = await client.subscribe(
        {"type": "subscribe_entities"}, lambda _event: None, resubscribe=False
    )
    await fake_ha.drop_all()
    second = await _wait_until_connected_on(client, fake_ha, 2)
    assert (sub.active, second.subscriptions) == (False, {})


async def test_connect_listener_runs_after_reconnect(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """Connect listeners run after the first connect and again after each reconnect."""
    client = await make_client(start=False)
    calls: list[int] = []

    async def listener() -> None:
        calls.append(len(fake_ha.connections))

    client.add_connect_listener(listener)
    await client.start()
    await client.wait_connected(5.0)
    await fake_ha.drop_all()
    await _wait_until_connected_on(client, fake_ha, 2)
    assert calls == [1, 2]


async def test_failing_connect_listener_does_not_keep_link_down(
    make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A connect listener that raises is logged; the client still connects."""
    client = await make_client(start=False)

    async def broken() -> None:
        raise RuntimeError("listener bug")

    client.add_connect_listener(broken)
    await client.start()
    await client.wait_connected(5.0)
    assert "listener bug" in caplog.text


async def test_missing_pong_reconnects(
    make_client: MakeClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """When pings go unanswered the client gives up on the link and connects again."""
    fake_ha.answer_pings = False
    client = await make_client(heartbeat_interval=0.1, command_timeout=0.3)
    await fake_ha.wait_for_connection(2)
    assert "no pong from Home Assistant" in caplog.text
    fake_ha.answer_pings = True
    await client.wait_connected(5.0)


async def test_answered_pings_keep_link(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """Answered pings keep the same connection open."""
    client = await make_client(heartbeat_interval=0.05, command_timeout=0.5)
    await client.wait_connected(5.0)
    first = fake_ha.latest
    # A ping is sent only once the one before it was answered: four pings, three pongs taken.
    await until(lambda: first.sent_types().count("ping") >= 4)
    assert (len(fake_ha.connections), client.connected) == (1, True)


async def test_unreachable_home_assistant_is_degraded_not_fatal(
    make_client: MakeClient, fake_ha: FakeHomeAssistant
) -> None:
    """With nothing listening the client backs off, tries again, and health says why."""
    await fake_ha.close()
    pauses = Pauses()
    client = await make_client(sleep=pauses)
    first = await pauses.next()  # the first attempt failed; the client is backing off
    with pytest.raises(HomeAssistantUnavailableError, match="not connected"):
        await client.wait_connected(0)
    health = await client.health()
    assert health.status == "degraded"
    assert client.last_error
    first.end()
    await pauses.next()  # and it tried again
    assert len(pauses.asked) == 2


def test_backoff_grows_to_cap_with_jitter() -> None:
    """Delays double from the initial step, stay under the cap, and vary."""
    rng = random.Random(1)
    delays = [backoff_delay(attempt, 0.5, 30.0, rng) for attempt in range(12)]
    assert 0.25 <= delays[0] <= 0.5
    assert 2.0 <= delays[3] <= 4.0
    assert all(15.0 <= d <= 30.0 for d in delays[7:])
    assert len(set(delays[7:])) == len(delays[7:])
