"""The live executor's call of a script's own service, as it goes over the WebSocket."""

from __future__ import annotations

from addon.ha.client import HomeAssistantClient
from addon.home.actions.live import LiveExecutor
from tests.ha.fake_ws_server import FakeHomeAssistant


async def test_a_script_service_is_called_with_variables_and_no_target(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The arguments are the service data; no target, which would become an entity_id variable."""
    await LiveExecutor(client).call_service("script", "dim_light", [], {"level": 40}, wait=1.0)
    sent = [m for m in fake_ha.latest.received if m["type"] == "call_service"]
    assert [{k: v for k, v in m.items() if k != "id"} for m in sent] == [
        {
            "type": "call_service",
            "domain": "script",
            "service": "dim_light",
            "service_data": {"level": 40},
        }
    ]


async def test_entity_calls_still_name_their_targets(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Calls on entities keep their explicit target."""
    await LiveExecutor(client).call_service("light", "turn_on", ["light.kitchen"], {})
    sent = [m for m in fake_ha.latest.received if m["type"] == "call_service"]
    assert sent[0]["target"] == {"entity_id": ["light.kitchen"]}
