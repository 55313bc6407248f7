"""The demo behaves like the add-on: only its ingress proxy is trusted, the port wants a token.

The demo once trusted 127.0.0.1 as the ingress proxy, so anything on the machine reached the API
and ``/mcp`` with any bearer or none. Then its proxy (``devtools/ingress_proxy.py``) connected
from 127.0.0.2, the one address the add-on trusts; but any local process can connect from there
too. Now the proxy also sends the secret the demo made for the run, and a request from 127.0.0.2
without it gets nothing an unknown caller would not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.config.load import load_settings
from addon.config.settings import Settings
from devtools.demo import PROXY_SOURCE, addon_command, build_parser, proxy_environment
from devtools.ingress_proxy import SECRET_ENV, SECRET_HEADER, IngressProxy
from tests.web.ui.conftest import UI

QUESTION = {"text": "what time is it"}
SECRET = "the-demo-run-secret-0123456789abcdef"
# Administration, open to ingress and the admin token alone: the tools, the panel's settings.
ADMIN_PATHS = ("/api/tools", "/settings")


@pytest.fixture
def demo_settings(ui_settings: Settings) -> Settings:
    """The settings the add-on ``make demo`` starts reads: its flags, its environment."""
    command = addon_command("http://127.0.0.1:8123", build_parser().parse_args([]))
    loaded = load_settings(command[3:], {**proxy_environment(SECRET), "HA_TOKEN": "t"})
    return ui_settings.model_copy(
        update={
            "trusted_proxies": loaded.trusted_proxies,
            "ingress_secret": loaded.ingress_secret,
        }
    )


@pytest.fixture
async def demo_ui(start_ui: Any, demo_settings: Settings) -> UI:
    """The app trusting only the demo proxy, as ``make demo`` starts it."""
    return await start_ui(demo_settings, "")


@pytest.fixture
async def demo_proxy(demo_ui: UI) -> AsyncIterator[IngressProxy]:
    """The demo's ingress proxy in front of it: its address, the secret from its environment."""
    upstream = str(demo_ui.client.make_url("/"))
    secret = proxy_environment(SECRET)[SECRET_ENV]
    async with IngressProxy(upstream, source=PROXY_SOURCE, secret=secret) as proxy:
        yield proxy


@pytest.fixture
async def impostor(demo_ui: UI) -> AsyncIterator[IngressProxy]:
    """Another local process connecting from the proxy's address, without the secret."""
    upstream = str(demo_ui.client.make_url("/"))
    async with IngressProxy(upstream, source=PROXY_SOURCE) as proxy:
        yield proxy


def test_the_demo_trusts_only_its_proxy() -> None:
    """The add-on the demo starts trusts the proxy's address and nothing else."""
    command = addon_command("http://127.0.0.1:8123", build_parser().parse_args([]))
    trusted = [command[i + 1] for i, part in enumerate(command) if part == "--trusted-proxy"]
    assert trusted == [PROXY_SOURCE]


def test_the_demo_gives_the_add_on_its_proxy_secret(demo_settings: Settings) -> None:
    """The add-on the demo starts requires the secret the proxy's environment holds."""
    assert demo_settings.ingress_secret is not None
    assert demo_settings.ingress_secret.get_secret_value() == SECRET


async def test_the_panel_opens_through_the_proxy(demo_ui: UI, demo_proxy: IngressProxy) -> None:
    """Through the proxy the panel opens without a token, under the ingress prefix."""
    async with demo_ui.client.session.get(demo_proxy.url("/settings")) as response:
        assert response.status == 200
        assert "Settings" in await response.text()


@pytest.mark.parametrize("path", ADMIN_PATHS)
async def test_the_proxy_has_admin_rights(demo_ui: UI, demo_proxy: IngressProxy, path: str) -> None:
    """The demo's proxy reaches administration without a token, as ingress does."""
    async with demo_ui.client.session.get(demo_proxy.url(path)) as response:
        assert response.status == 200, await response.text()


@pytest.mark.parametrize("path", ADMIN_PATHS)
async def test_the_proxy_address_without_the_secret_has_no_admin_rights(
    demo_ui: UI, impostor: IngressProxy, path: str
) -> None:
    """From 127.0.0.2 without the secret, administration asks for a token like anywhere else."""
    async with demo_ui.client.session.get(impostor.url(path)) as response:
        assert response.status == 401


async def test_the_proxy_address_with_a_wrong_secret_has_no_admin_rights(demo_ui: UI) -> None:
    """A guessed secret from 127.0.0.2 is no better than none."""
    upstream = str(demo_ui.client.make_url("/"))
    async with (
        IngressProxy(upstream, source=PROXY_SOURCE, secret="a-guess-0123456789abcdef") as guess,
        demo_ui.client.session.get(guess.url("/api/tools")) as response,
    ):
        assert response.status == 401


async def test_the_proxy_replaces_a_secret_the_browser_sends(
    demo_ui: UI, impostor: IngressProxy
) -> None:
    """A header of the secret's name from the browser does not pass through a proxy without it."""
    async with demo_ui.client.session.get(
        impostor.url("/api/tools"), headers={SECRET_HEADER: SECRET}
    ) as response:
        assert response.status == 401


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
