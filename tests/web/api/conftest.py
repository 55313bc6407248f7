"""The whole app answering through the scripted model; Home Assistant is away (a dead port)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from openai import AsyncOpenAI

from addon import keys
from addon.config.settings import Settings
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings

TOKEN = "test-api-token-0123456789abcdef"
ADMIN_TOKEN = "test-admin-token-0123456789abcdef"
SUPERVISOR_PROXY = ("172.30.32.2",)

AppClient = TestClient[Any, Any]
StartApp = Callable[[Settings], Any]


def on_direct_port(settings: Settings) -> Settings:
    """The same settings with loopback no longer an ingress proxy, so tests reach the direct port.

    ``make_settings(settings={"trusted_proxies": …})`` cannot do this: it passes the field twice.
    """
    return settings.model_copy(update={"trusted_proxies": SUPERVISOR_PROXY})


@pytest.fixture
def start_app(aiohttp_client: Callable[..., Any], make_app: MakeApp) -> Callable[[Settings], Any]:
    """Start the app for some settings, without the 2 s wait of the outcome check.

    The check sleeps before comparing states and the app drains it at shutdown; with Home
    Assistant away there is nothing to compare, so waiting would only slow every test.
    """

    async def start(settings: Settings) -> AppClient:
        client: AppClient = await aiohttp_client(make_app(settings))
        client.app[keys.AGENT].outcome_delay = 0.0
        return client

    return start


@pytest.fixture
def agent_settings(make_settings: MakeSettings, scripted_llm: ScriptedLLM) -> Settings:
    """Settings with the scripted model and both tokens; loopback counts as ingress."""
    return make_settings(
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        api_token=TOKEN,
        admin_token=ADMIN_TOKEN,
    )


@pytest.fixture
async def api(start_app: StartApp, agent_settings: Settings) -> AppClient:
    """The app reached through ingress, as the add-on's own UI reaches it."""
    client: AppClient = await start_app(agent_settings)
    return client


@pytest.fixture
async def direct(start_app: StartApp, agent_settings: Settings) -> AppClient:
    """The app reached on its direct port, where a token is required (``api_token`` or admin)."""
    client: AppClient = await start_app(on_direct_port(agent_settings))
    return client


@pytest.fixture
async def openai_client(direct: AppClient) -> AsyncIterator[AsyncOpenAI]:
    """The official client pointed at the façade on the direct port, with the right token."""
    async with AsyncOpenAI(
        base_url=str(direct.make_url("/v1")), api_key=TOKEN, max_retries=0, timeout=30
    ) as client:
        yield client
