"""The Jinja environment of the UI: autoescaping, the URL globals and the display filters.

Autoescaping is on for every template, and nothing in the UI marks text safe: model output, tool
results and entity names are written by parties we do not control. JSON is pretty-printed into a
plain string (not Jinja's ``tojson``, which returns markup meant for script blocks) so that it is
escaped like any other text inside ``<pre>``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Mapping
from datetime import datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiohttp_jinja2
import jinja2
from aiohttp import web
from markupsafe import Markup

from addon import keys
from addon.tools.result import ToolResult
from addon.web.ui.security import csrf_token, set_csrf_cookie
from addon.web.ui.urls import Query, Urls

_LOGGER = logging.getLogger(__name__)

_ENTITY_ID = re.compile(r"[a-z0-9_]+\.[a-z0-9_]+")
_ENTITY_KEYS = frozenset({"entity_id", "id"})
TIMEZONE: web.RequestKey[tzinfo] = web.RequestKey("ui_tz", tzinfo)


def create_environment(app: web.Application, templates: Path) -> jinja2.Environment:
    """Set up aiohttp-jinja2 for ``app`` with the UI's globals and filters."""
    env = aiohttp_jinja2.setup(
        app,
        loader=jinja2.FileSystemLoader(templates),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        default_helpers=False,
    )
    env.globals.update(url=url, static=static, home_assistant_url=home_assistant_url)
    env.filters.update(
        ms=format_ms,
        number=format_number,
        when=format_when,
        pretty_json=pretty_json,
        entity_ids=entity_ids,
        call_failure=call_failure,
    )
    return env


def render(
    request: web.Request, template: str, context: Mapping[str, object], *, status: int = 200
) -> web.Response:
    """Render a UI page with what every page needs added to ``context``.

    Done here rather than with aiohttp-jinja2's context processors, whose middleware would run
    for every request to the app (API included) and mint CSRF cookies for JSON clients.
    """
    page = {
        "request": request,
        "csrf_token": csrf_token(request),
        "tz": home_timezone(request),
        **context,
    }
    response = aiohttp_jinja2.render_template(template, request, page)
    response.set_status(status)
    set_csrf_cookie(request, response)
    return response


def render_fragment(request: web.Request, template: str, context: Mapping[str, object]) -> str:
    """A partial rendered to a string (for JSON answers that carry HTML), escaped as pages are."""
    env = aiohttp_jinja2.get_env(request.app)
    page = {"request": request, "tz": home_timezone(request), **context}
    return env.get_template(template).render(page)


def home_timezone(request: web.Request) -> tzinfo:
    """The home's time zone from Home Assistant's config, else the add-on's own local zone."""
    if TIMEZONE in request:
        return request[TIMEZONE]
    zone: tzinfo | None = None
    model = request.app[keys.HOME_SYNC].model if keys.HOME_SYNC in request.app else None
    name = model.config.get("time_zone") if model is not None else None
    if isinstance(name, str) and name:
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            _LOGGER.warning("Unknown time zone %r in Home Assistant's config; using local", name)
    if zone is None:
        zone = datetime.now().astimezone().tzinfo or ZoneInfo("UTC")
    request[TIMEZONE] = zone
    return zone


@jinja2.pass_context
def url(
    context: jinja2.runtime.Context,
    name: str,
    query: Query | None = None,
    fragment: str = "",
    **parts: str,
) -> str:
    """Template global: the URL of a named route, under the request's ingress prefix."""
    return Urls.of(context["request"]).page(name, query, fragment, **parts)


@jinja2.pass_context
def static(context: jinja2.runtime.Context, filename: str) -> str:
    """Template global: the URL of a static file, under the request's ingress prefix."""
    return Urls.of(context["request"]).static(filename)


@jinja2.pass_context
def home_assistant_url(
    context: jinja2.runtime.Context, path: str, query: Query | None = None
) -> str | None:
    """Template global: a Home Assistant page (None outside ingress); open with target=_top."""
    return Urls.of(context["request"]).home_assistant(path, query)


def format_ms(value: float | None) -> str:
    """A duration for people: "850 ms", "1.2 s", "—" when unknown."""
    if value is None:
        return "—"
    if value < 1000:
        return f"{value:.0f} ms"
    return f"{value / 1000:.1f} s"


def format_number(value: float | None) -> str:
    """A count with thousands separators."""
    return "—" if value is None else f"{value:,.0f}"


@jinja2.pass_context
def format_when(context: jinja2.runtime.Context, value: datetime | None) -> Markup | str:
    """A stored UTC time in the home's zone, "2026-11-22 14:03:05", as a ``<time>`` element.

    The element keeps the date and time from breaking apart in a narrow table cell (app.css)
    and carries the instant and the zone's name, so hovering a time says which zone it is in.
    """
    if value is None:
        return "—"
    local = value.astimezone(context["tz"])
    return Markup('<time datetime="{}" title="{}">{}</time>').format(
        local.isoformat(timespec="seconds"),
        f"Home time zone ({context['tz']})",
        f"{local:%Y-%m-%d %H:%M:%S}",
    )


def pretty_json(value: object) -> str:
    """Indented JSON as plain text (escaped by the template like everything else)."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        value = parsed
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def call_failure(result: object) -> str | None:
    """Badge a stored tool result that says the call did not happen: "refused" or "failed".

    A call that ran without an error may still have done nothing: an intent's error response
    ("not exposed"), a tool's ``"success": false``, the gate's refusal. The trace says so beside
    the executor's badge, which only says where the call would have acted.
    """
    if not isinstance(result, dict):
        return None
    gate = result.get("gate")
    if isinstance(gate, list) and any(
        isinstance(entry, dict) and entry.get("verdict") == "refuse" for entry in gate
    ):
        return "refused"
    return None if ToolResult.of(result).succeeded else "failed"


def entity_ids(*values: object) -> list[str]:
    """Entity ids named in tool arguments, results or outcome details, in first-seen order.

    Only values under an ``entity_id`` or ``id`` key that look like ``domain.object_id`` count,
    which is how Home Assistant's intent results and our outcome check name targets.
    """
    seen: dict[str, None] = {}
    for value in values:
        for found in _walk_entity_ids(value):
            seen.setdefault(found, None)
    return list(seen)


def _walk_entity_ids(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ENTITY_KEYS and isinstance(item, str) and _ENTITY_ID.fullmatch(item):
                yield item
            else:
                yield from _walk_entity_ids(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_entity_ids(item)
