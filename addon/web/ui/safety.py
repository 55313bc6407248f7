"""The Safety page: what must be confirmed before it is done, and how.

Thin views over the confirmation policy's rows (``keys.CONFIRMATION_POLICY``): the list, a form
to add an entry for a domain, a device class or one entity with the actions it covers and its
method (a spoken "yes" or a PIN), and a switch per entry. A PIN is hashed here, before the
store sees it, never shown again, and taught to the log's filters.
"""

from __future__ import annotations

import logging

from aiohttp import web

from addon import keys
from addon.errors import NotFoundError, PolicyEntryInvalid
from addon.home.actions.confirmation import hash_pin
from addon.logs import remember_secrets
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

NOTICES = {
    "added": "Entry added: it holds from the next turn on.",
    "enabled": "Switched on: covered actions ask first.",
    "disabled": "Switched off: covered actions no longer ask.",
}
MIN_PIN = 4


def add_safety_pages(router: web.UrlDispatcher) -> None:
    """Mount the Safety page and its forms (routes named ``ui.*`` like the rest)."""
    router.add_get("/safety", safety_view, name="ui.safety")
    router.add_post("/safety", safety_add_view, name="ui.safety_add")
    router.add_post("/safety/{entry_id:\\d+}/switch", safety_switch_view, name="ui.safety_switch")


async def safety_view(request: web.Request) -> web.Response:
    """The policy's entries and the form to add one."""
    return _page(request)


async def safety_add_view(request: web.Request) -> web.Response:
    """Add an entry: scope, target, actions (comma-separated), method and, for a PIN, the PIN."""
    form = await _form(request)
    method = form.get("method", "yes")
    pin = form.get("pin", "").strip()
    pin_hash: str | None = None
    if method == "pin":
        if not pin.isdigit() or len(pin) < MIN_PIN:
            return _page(request, problem=f"A PIN is {MIN_PIN} or more digits.", form=form)
        remember_secrets([pin])
        pin_hash = hash_pin(pin)
    actions = [part for part in form.get("actions", "").split(",") if part.strip()]
    try:
        entry = await request.app[keys.CONFIRMATION_POLICY].add(
            form.get("scope", ""), form.get("target", ""), actions, method, pin_hash
        )
    except PolicyEntryInvalid as err:
        return _page(request, problem=str(err), form=form)
    _LOGGER.info("Confirmation entry %s added for %s (%s)", entry.id, entry.target, entry.method)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {"done": "added"}))


async def safety_switch_view(request: web.Request) -> web.Response:
    """Switch one entry on or off: ``enabled=on|off``."""
    form = await _form(request)
    enabled = form.get("enabled") == "on"
    try:
        entry_id = int(request.match_info["entry_id"])
        await request.app[keys.CONFIRMATION_POLICY].set_enabled(entry_id, enabled)
    except (ValueError, NotFoundError):
        raise web.HTTPNotFound(text="no such entry") from None
    done = "enabled" if enabled else "disabled"
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {"done": done}))


def _page(
    request: web.Request, *, problem: str = "", form: dict[str, str] | None = None
) -> web.Response:
    shown = {k: v for k, v in (form or {}).items() if k in ("scope", "target", "actions", "method")}
    return render(
        request,
        "safety.html",
        {
            "entries": request.app[keys.CONFIRMATION_POLICY].entries,
            "timeout": request.app[keys.SETTINGS].options.confirmation_timeout,
            "problem": problem,
            "form": shown,
            "notice": NOTICES.get(request.query.get("done", ""), ""),
        },
        status=422 if problem else 200,
    )


async def _form(request: web.Request) -> dict[str, str]:
    posted = await request.post()
    return {key: value for key, value in posted.items() if isinstance(value, str)}
