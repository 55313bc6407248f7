"""The REST helper, over the same session, against the scripted server."""

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


async def test_get_sends_bearer_token_to_the_rest_url(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """rest_get requests rest_url + path with the Bearer token."""
    await rest_client.rest_get("/states/light.kitchen")
    method, path, headers, _body = fake_ha.rest_requests[-1]
    assert (method, path) == ("GET", "/api/states/light.kitchen")
    assert headers["Authorization"] == f"Bearer {fake_ha.token}"


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
    fake_ha.rest_answer = (404, "Entity not found.")
    with pytest.raises(HomeAssistantCommandError, match="404: Entity not found") as caught:
        await rest_client.rest_get("/states/light.nope")
    assert caught.value.code == "http_404"


async def test_unreachable_raises_unavailable(
    rest_client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A refused connection raises HomeAssistantUnavailableError."""
    await fake_ha.close()
    with pytest.raises(HomeAssistantUnavailableError, match="GET /config"):
        await rest_client.rest_get("/config")
