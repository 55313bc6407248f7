"""Custom tools as an app resource: the runner with its own HTTP session, and the provider.

The runner's session has no cookie jar, so one tool's API never sees another's cookies or Home
Assistant's connection. The provider (``keys.CUSTOM_TOOLS``) offers the enabled tools to the
agent's turns; its ``trial`` becomes the panel's "Try it" (``keys.CUSTOM_TOOL_TRY``) once the
agent exists, which gives it a turn's confirmation policy (:mod:`addon.agent.lifecycle`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping

import aiohttp
from aiohttp import web

from addon import keys
from addon.custom_tools.definition import parse_definition
from addon.custom_tools.runner import Runner
from addon.custom_tools.source import StaticSource
from addon.ha.custom_tools_port import HomeAssistantToolPort
from addon.text import JsonValue
from addon.tools.custom import CustomToolProvider
from addon.tools.home_tools import builtin_tool_names


async def custom_tools_ctx(app: web.Application) -> AsyncIterator[None]:
    """Own the runner's HTTP session for the app's lifetime; needs the Home Assistant link."""
    session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())
    try:
        runner = Runner(
            session=session, port=HomeAssistantToolPort(app[keys.HA_CLIENT], app[keys.HOME_SYNC])
        )
        app[keys.CUSTOM_TOOL_RUNNER] = runner
        source = app.get(keys.CUSTOM_TOOL_SOURCE) or StaticSource()
        provider = CustomToolProvider(source, runner, builtin_tool_names())
        app[keys.CUSTOM_TOOLS] = provider
        yield
    finally:
        await session.close()


def definition_check() -> Callable[[Mapping[str, JsonValue]], None]:
    """The parser the agent runs custom tools with, as the check a definition passes to be saved.

    The built-in tools' names are reserved: a custom tool may not take one.
    """
    reserved = builtin_tool_names()

    def check(data: Mapping[str, JsonValue]) -> None:
        parse_definition(data, reserved=reserved)

    return check
