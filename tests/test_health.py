"""What /health reports."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.test_utils import TestClient

from addon import keys
from addon.health import ComponentHealth


async def test_health_reports_the_store(app_client: TestClient[Any, Any]) -> None:
    """A freshly started app is healthy and reports its store."""
    response = await app_client.get("/health")
    assert response.status == 200
    body = await response.json()
    assert body["status"] == "ok"
    assert body["components"]["store"]["status"] == "ok"


async def test_degraded_component_keeps_the_service_up(app_client: TestClient[Any, Any]) -> None:
    """Home Assistant being away is reported but does not fail the watchdog."""

    async def away() -> ComponentHealth:
        return ComponentHealth("degraded", "connection refused")

    app_client.app[keys.HEALTH].register("elsewhere", away)
    body = await (await app_client.get("/health")).json()
    assert body["status"] == "ok"
    assert body["components"]["elsewhere"] == {"status": "degraded", "detail": "connection refused"}


async def test_hanging_critical_check_reports_down(app_client: TestClient[Any, Any]) -> None:
    """A critical check that hangs turns /health into a 503 instead of hanging it."""

    async def hangs() -> ComponentHealth:
        await asyncio.sleep(60)
        return ComponentHealth("ok")

    app_client.app[keys.HEALTH].register("stuck", hangs, critical=True)
    response = await app_client.get("/health")
    assert response.status == 503
    assert (await response.json())["components"]["stuck"]["status"] == "down"
