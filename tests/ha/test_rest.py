"""The REST helpers, over the same session, against the scripted server."""

from __future__ import annotations

import pytest

from addon.errors import HomeAssistantCommandError, HomeAssistantUnavailableError
from addon.ha.client import HomeAssistantClient
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeHomeAssistant


@pytest.fixture
async def rest_client(make_client: MakeClient) -> HomeAssistantClient:
    """A client that need not be connected: REST works on its own."""
    return await make_client(start=False)


async def test_post_sends_bearer_token_and_json(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """rest_post posts JSON to rest_url + path with the Bearer token."""
    fake_ha.rest_answer = (200, {"response_type": "action_done"})
    answer = await rest_client.rest_post("/intent/handle", {"name": "HassTurnOn"})
    method, path, headers, body = fake_ha.rest_requests[-1]
    assert (method, path, body) == ("POST", "/api/intent/handle", {"name": "HassTurnOn"})
    assert headers["Authorization"] == f"Bearer {fake_ha.token}"
    assert answer == {"response_type": "action_done"}


async def test_get_decodes_json(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """rest_get returns the decoded JSON body."""
    fake_ha.rest_answer = (200, {"message": "API running."})
    assert await rest_client.rest_get("/") == {"message": "API running."}


async def test_non_2xx_raises_command_error_with_status_and_body(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A 4xx/5xx answer raises HomeAssistantCommandError naming status and body."""
    fake_ha.rest_answer = (400, "Intent not found: HassNope")
    with pytest.raises(HomeAssistantCommandError, match="400: Intent not found") as caught:
        await rest_client.rest_post("/intent/handle", {"name": "HassNope"})
    assert caught.value.code == "http_400"


async def test_unreachable_raises_unavailable(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A refused connection raises HomeAssistantUnavailableError."""
    await fake_ha.close()
    with pytest.raises(HomeAssistantUnavailableError, match="POST /intent/handle"):
        await rest_client.rest_post("/intent/handle", {})
