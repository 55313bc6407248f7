"""Every route of the app, with every method, answers: none holds a request open unanswered.

The app runs as a new install does before it is set up: Home Assistant away (a dead port) and
no model configured. Each route the router lists is asked with each method (those it does not
serve included), one request at a time, and must answer, headers and body, inside a hang guard.
Any status will do: what is wrong is a request left waiting (as ``GET /mcp`` once was, issue 26).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

from aiohttp import web

from tests.fixtures.app import MakeApp, MakeSettings
from tests.web.api.conftest import ADMIN_TOKEN, TOKEN, AppClient, StartApp, on_direct_port

HANG_GUARD_S = 2.0
"""Far above what any answer takes; a request still waiting by then may be left hanging."""
SECOND_CHANCE_S = 30.0
"""The same request asked again after a first wait ran out: a route that holds requests open
holds this one too, while one that a loaded machine (or a collector's pause) slowed answers."""
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
PARAMETER = re.compile(r"\{[^}]*\}")


def paths_of(app: web.Application) -> list[str]:
    """One path per resource the router serves, its parameters filled and static files named."""
    paths = set()
    for resource in app.router.resources():
        path = PARAMETER.sub("1", resource.canonical)
        if isinstance(resource, web.StaticResource):
            path += "/app.css"
        paths.add(path)
    return sorted(paths)


async def unanswered(client: AppClient, headers: Mapping[str, str]) -> list[str]:
    """Each ``METHOD path`` whose answer did not come in full before the hang guard ran out."""
    left_waiting = []
    for path in paths_of(client.app):
        for method in METHODS:
            if not await answered(client, method, path, headers, HANG_GUARD_S) and not (
                await answered(client, method, path, headers, SECOND_CHANCE_S)
            ):
                left_waiting.append(f"{method} {path}")
    return left_waiting


async def answered(
    client: AppClient, method: str, path: str, headers: Mapping[str, str], within_s: float
) -> bool:
    """Whether one request got its whole answer, headers and body, within ``within_s``."""
    try:
        async with asyncio.timeout(within_s):
            async with client.request(method, path, headers=headers) as response:
                await response.read()
    except TimeoutError:
        return False
    return True


def test_every_resource_is_asked(make_settings: MakeSettings, make_app: MakeApp) -> None:
    """The paths asked are the router's own, ``/mcp`` and the static files included."""
    paths = paths_of(make_app(make_settings()))
    assert {"/mcp", "/health", "/static/app.css", "/api/tools/1", "/chat"} <= set(paths)


async def test_every_route_answers_through_ingress(app_client: AppClient) -> None:
    """Through the ingress proxy, every route answers every method with Home Assistant away."""
    assert await unanswered(app_client, {}) == []


async def test_every_route_answers_on_the_direct_port(
    start_app: StartApp, make_settings: MakeSettings
) -> None:
    """On the direct port with the admin token, every route answers every method, nothing set up.

    The admin token, so each request gets past the access check to the route's own handler.
    """
    settings = make_settings(api_token=TOKEN, admin_token=ADMIN_TOKEN)
    client: AppClient = await start_app(on_direct_port(settings))
    assert await unanswered(client, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) == []
