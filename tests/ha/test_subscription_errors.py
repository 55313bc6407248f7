"""A subscription's callback that raises: the link stays up and the subscriber is told."""

from __future__ import annotations

from typing import Any

from addon.ha.client import HomeAssistantClient
from tests.ha.fake_ws_server import FakeHomeAssistant
from tests.ha.waiting import until


async def test_a_failing_callback_is_reported_to_its_subscriber(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The error reaches ``on_error``; the next event is delivered as usual."""
    delivered: list[Any] = []
    errors: list[Exception] = []

    def callback(event: Any) -> None:
        if event == "bad":
            raise ValueError("cannot take this in")
        delivered.append(event)

    sub = await client.subscribe(
        {"type": "subscribe_events", "event_type": "state_changed"},
        callback,
        on_error=errors.append,
    )
    assert sub.wire_id is not None
    await fake_ha.latest.event(sub.wire_id, "bad")
    await fake_ha.latest.event(sub.wire_id, "good")
    await until(lambda: bool(delivered))
    assert [str(error) for error in errors] == ["cannot take this in"]
    assert delivered == ["good"]
    assert client.connected
