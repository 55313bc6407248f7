"""The whole app, its Home Assistant link fed the captured demo home, the model scripted.

``ui`` is the app behind Home Assistant's ingress (the ``X-Ingress-Path`` header names the prefix
the browser sees). A test about URLs or access is marked ``urls`` and runs twice: behind ingress
and at the root of the server (no header), as Datasette tests its pages with and without
``base_url``. Loopback is the trusted ingress proxy in tests, so both are let in by the access
middleware.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Page,
)

from addon import keys
from addon.config.settings import Settings
from addon.store.database import Store
from addon.web.ui.security import COOKIE_NAME
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings
from tests.ha.fake_ws_server import FakeHomeAssistant
from tests.web.csrf import TOKEN, plant_key
from tests.web.ui.home import demo_home, serve_home
from tests.web.ui.proxy import PREFIX as INGRESS_PREFIX
from tests.web.ui.proxy import IngressProxy

PREFIX = INGRESS_PREFIX
# Only bounds a connection that never comes: a loaded 2-core machine can take seconds.
CONNECT_S = 30.0


@dataclass
class UI:
    """A started app and the prefix its pages are requested under."""

    client: TestClient[Any, Any]
    prefix: str

    @property
    def store(self) -> Store:
        return self.client.app[keys.STORE]

    def headers(self, **extra: str) -> dict[str, str]:
        """The ingress header (when behind ingress) plus ``extra``."""
        headers = {"X-Ingress-Path": self.prefix} if self.prefix else {}
        return headers | extra

    async def get(self, path: str, **kwargs: Any) -> ClientResponse:
        """GET a server path as the ingress proxy forwards it."""
        return await self.client.get(path, headers=self.headers(), **kwargs)

    async def page(self, path: str) -> str:
        """GET a page that must answer 200 and return its HTML."""
        response = await self.get(path)
        body = await response.text()
        assert response.status == 200, body[:500]
        assert response.content_type == "text/html"
        return body

    async def post(
        self,
        path: str,
        data: dict[str, str],
        *,
        token: str | None = TOKEN,
        headers: dict[str, str] | None = None,
    ) -> ClientResponse:
        """POST a form with the CSRF cookie set to ``TOKEN`` (and the field if ``token``)."""
        form = dict(data)
        if token is not None:
            form["csrf_token"] = token
        return await self.client.post(
            path,
            data=form,
            headers=self.headers(Cookie=f"{COOKIE_NAME}={TOKEN}", **(headers or {})),
            allow_redirects=False,
        )


@pytest.fixture
async def fake_home() -> AsyncIterator[FakeHomeAssistant]:
    """A Home Assistant WebSocket server answering with the captured demo home."""
    server = FakeHomeAssistant()
    serve_home(server, demo_home())
    await server.start()
    yield server
    await server.close()


@pytest.fixture
def ui_settings(
    make_settings: MakeSettings, fake_home: FakeHomeAssistant, scripted_llm: ScriptedLLM
) -> Settings:
    """Settings for the demo home and the scripted model, with secrets set to spot leaks."""
    return make_settings(
        ha_url=fake_home.rest_url.removesuffix("/api"),
        ha_token=fake_home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        llm_api_key="sk-test-secret-llm-key-0123456789",
        api_token="api-token-secret-0123456789",
        retention_days=0,
    )


@pytest.fixture
def start_ui(aiohttp_client: Callable[..., Any], make_app: MakeApp) -> Callable[..., Any]:
    """Start the app for some settings and wait until the demo home is known."""

    async def start(settings: Settings, prefix: str) -> UI:
        plant_key(settings.data_dir)
        client: TestClient[Any, Any] = await aiohttp_client(make_app(settings))
        client.app[keys.AGENT].outcome_delay = 0.0
        await client.app[keys.HA_CLIENT].wait_connected(CONNECT_S)
        return UI(client, prefix)

    return start


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``ui`` at the site root and behind ingress for tests marked ``urls``, else ingress only."""
    if "ui" not in metafunc.fixturenames:
        return
    if metafunc.definition.get_closest_marker("urls") is not None:
        metafunc.parametrize("ui", ["", PREFIX], ids=["root", "ingress"], indirect=True)
    else:
        metafunc.parametrize("ui", [PREFIX], ids=["ingress"], indirect=True)


@pytest.fixture
async def ui(request: pytest.FixtureRequest, start_ui: Any, ui_settings: Settings) -> UI:
    """The app behind the ingress prefix, or at its root too for tests marked ``urls``."""
    started: UI = await start_ui(ui_settings, request.param)
    return started


@pytest.fixture
async def ingress_ui(start_ui: Any, ui_settings: Settings) -> UI:
    """The app behind the ingress prefix only, for behaviour that does not depend on it."""
    started: UI = await start_ui(ui_settings, PREFIX)
    return started


ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
# Collects securitypolicyviolation events; Playwright's init scripts are exempt from the CSP.
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""
PHASE_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item, so fixtures can tell a failed test at teardown."""
    report = yield
    item.stash.setdefault(PHASE_REPORTS, {})[report.when] = report
    return report


@dataclass
class Browsing:
    """A browser context on the app behind the ingress proxy, and what its pages complained of."""

    context: BrowserContext
    proxy: IngressProxy
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    async def open(self, path: str = "/") -> Page:
        """A new tab at an add-on path, watched for console errors and dialogs."""
        page = await self.context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.console_errors.append(f"pageerror: {error}"))
        page.on("dialog", self._dialog)
        await page.goto(self.proxy.url(path))
        return page

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.console_errors.append(f"{message.type}: {message.text}")

    async def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        await dialog.dismiss()

    async def csp_violations(self) -> list[str]:
        """Violations reported in every open tab (and its frames) so far."""
        found: list[str] = []
        for page in self.context.pages:
            for frame in page.frames:
                found.extend(await frame.evaluate("window.__cspViolations || []"))
        return found


MakeBrowsing = Callable[..., Any]


@pytest.fixture
async def proxy(ingress_ui: UI) -> AsyncIterator[IngressProxy]:
    """The ingress stand-in in front of the app."""
    async with IngressProxy(str(ingress_ui.client.make_url("/"))) as started:
        yield started


@pytest.fixture
async def browsing(
    request: pytest.FixtureRequest, browser: Browser, proxy: IngressProxy
) -> AsyncIterator[MakeBrowsing]:
    """Open browser contexts (keywords go to ``new_context``); screenshots if the test failed."""
    opened: list[Browsing] = []

    async def open_context(**options: Any) -> Browsing:
        context = await browser.new_context(**options)
        await context.add_init_script(CSP_LISTENER)
        browsing = Browsing(context, proxy)
        opened.append(browsing)
        return browsing

    yield open_context
    report = request.node.stash.get(PHASE_REPORTS, {}).get("call")
    for number, browsing in enumerate(opened):
        if report is not None and report.failed:
            ARTIFACTS.mkdir(exist_ok=True)
            for tab, page in enumerate(browsing.context.pages):
                name = f"{request.node.name}-{number}-{tab}.png".replace("/", "_")
                await page.screenshot(path=ARTIFACTS / name, full_page=True)
        await browsing.context.close()
