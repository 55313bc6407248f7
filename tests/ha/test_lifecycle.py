"""The Home Assistant link inside the whole app: started with it, reported on /health.

On the newest release: the link itself runs on both in tests/ha/test_real_home_assistant.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.app import MakeApp, MakeSettings


async def test_app_serves_health_while_home_assistant_is_unreachable(
    app_client: TestClient[Any, Any],
) -> None:
    """With nothing at the Home Assistant URL the app still starts and says why on /health."""
    response = await app_client.get("/health")
    body = await response.json()
    assert response.status == 200
    assert body["components"]["home_assistant"]["status"] == "degraded"
    assert body["components"]["home_assistant"]["detail"].startswith("not connected")
    assert body["components"]["home"] == {
        "status": "degraded",
        "detail": "no home model yet: waiting for Home Assistant",
    }


async def test_app_exposes_client_and_sync(app_client: TestClient[Any, Any]) -> None:
    """The client and the home sync are reachable under their app keys."""
    app = app_client.server.app
    assert (app[keys.HA_CLIENT].connected, app[keys.HOME_SYNC].model) == (False, None)


@pytest.mark.homeassistant
@pytest.mark.newest_ha_only
async def test_app_connects_and_builds_model(
    aiohttp_client: Callable[..., Any],
    make_settings: MakeSettings,
    make_app: MakeApp,
    home_assistant: HomeAssistantProcess,
) -> None:
    """Against the real Home Assistant the app's link connects and the model gets built."""
    settings = make_settings(ha_url=home_assistant.url, ha_token=home_assistant.token)
    client: TestClient[Any, Any] = await aiohttp_client(make_app(settings))
    await client.server.app[keys.HOME_SYNC].wait_ready(15.0)
    body = await (await client.get("/health")).json()
    assert body["components"]["home_assistant"]["status"] == "ok"
    home = body["components"]["home"]
    assert (home["status"], home["detail"].split("; ")[1]) == (
        "ok",
        "snapshots taken: 1, registry patches: 0",
    )
