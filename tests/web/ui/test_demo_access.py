"""The demo behaves like the add-on: only its ingress proxy is trusted, the port wants a token.

The demo once trusted 127.0.0.1 as the ingress proxy, so anything on the machine reached the API
and ``/mcp`` with any bearer or none. Now its proxy (``devtools/ingress_proxy.py``) connects from
127.0.0.2, the one address the add-on trusts, and the add-on's port is as in production.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.config.settings import Settings
from devtools.demo import PROXY_SOURCE, addon_command, build_parser
from devtools.ingress_proxy import IngressProxy
from tests.web.ui.conftest import UI

QUESTION = {"text": "what time is it"}


@pytest.fixture
async def demo_ui(start_ui: Any, ui_settings: Settings) -> UI:
    """The app trusting only the demo proxy's address, as ``make demo`` starts it."""
    settings = ui_settings.model_copy(update={"trusted_proxies": (PROXY_SOURCE,)})
    return await start_ui(settings, "")


@pytest.fixture
async def demo_proxy(demo_ui: UI) -> AsyncIterator[IngressProxy]:
    """The demo's ingress proxy in front of it, connecting from its own address."""
    upstream = str(demo_ui.client.make_url("/"))
    async with IngressProxy(upstream, source=PROXY_SOURCE) as proxy:
        yield proxy


def test_the_demo_trusts_only_its_proxy() -> None:
    """The add-on the demo starts trusts the proxy's address and nothing else."""
    command = addon_command("http://127.0.0.1:8123", build_parser().parse_args([]))
    trusted = [command[i + 1] for i, part in enumerate(command) if part == "--trusted-proxy"]
    assert trusted == [PROXY_SOURCE]


async def test_the_panel_opens_through_the_proxy(demo_ui: UI, demo_proxy: IngressProxy) -> None:
    """Through the proxy the panel opens without a token, under the ingress prefix."""
    async with demo_ui.client.session.get(demo_proxy.url("/settings")) as response:
        assert response.status == 200
        assert "Settings" in await response.text()


async def test_the_direct_port_refuses_a_wrong_bearer(demo_ui: UI) -> None:
    """From loopback, not the proxy, a wrong bearer is refused on the API."""
    response = await demo_ui.client.post(
        "/api/conversation", json=QUESTION, headers={"Authorization": "Bearer wrong"}
    )
    assert response.status == 401


async def test_the_direct_port_refuses_the_panel_without_a_token(demo_ui: UI) -> None:
    """From loopback, not the proxy, the panel is not open."""
    response = await demo_ui.client.get("/settings")
    assert response.status == 401


async def test_the_direct_port_takes_the_api_token(demo_ui: UI, ui_settings: Settings) -> None:
    """The right api_token is let through on the add-on's port, as in production."""
    token = ui_settings.options.api_token.get_secret_value()
    response = await demo_ui.client.get(
        "/api/openapi.json", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status == 200
