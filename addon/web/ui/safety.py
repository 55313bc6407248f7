"""The Safety page: what must be confirmed before it is done, and how.

Thin views over the confirmation policy's rows (``keys.CONFIRMATION_POLICY``): the list, a form
to add an entry for a domain, a device class or one entity with the actions it covers and its
method (a spoken "yes" or a PIN), picked from the live home (:mod:`addon.web.ui.safety_home`),
a switch, an edit form and a delete per entry, the audit trail of those changes, and which
entry governs each exposed entity. A PIN is hashed here, before the store sees it, never shown
again, and taught to the log's filters.
"""

from __future__ import annotations

import logging

from aiohttp import web

from addon import keys
from addon.errors import NotFoundError, PolicyEntryInvalid
from addon.home.actions.confirmation import ConfirmationPolicy, hash_pin
from addon.logs import remember_secrets
from addon.web.ui import notices
from addon.web.ui.forms import text_fields
from addon.web.ui.safety_home import governing, pickers
from addon.web.ui.safety_people import people, satellites
from addon.web.ui.saved_tests import live_home
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

MIN_PIN = 4
PLACEHOLDERS = {"entity": "lock.front_door", "device_class": "cover.garage", "domain": "lock"}
"""What the target field shows, empty, for each scope."""


async def safety_view(request: web.Request) -> web.Response:
    """The policy's entries and the form to add one."""
    return await _page(request)


async def safety_add_view(request: web.Request) -> web.Response:
    """Add an entry: scope, target, actions (comma-separated), method and, for a PIN, the PIN."""
    form = await text_fields(request)
    method = form.get("method", "yes")
    pin = form.get("pin", "").strip()
    if method == "pin" and not _pin_ok(pin):
        return await _page(request, problem=f"A PIN is {MIN_PIN} or more digits.", form=form)
    actions = [part for part in form.get("actions", "").split(",") if part.strip()]
    try:
        entry = await request.app[keys.CONFIRMATION_POLICY].add(
            form.get("scope", ""), form.get("target", ""), actions, method, _hashed(method, pin)
        )
    except PolicyEntryInvalid as err:
        return await _page(request, problem=str(err), form=form)
    _LOGGER.info("Confirmation entry %s added for %s (%s)", entry.id, entry.target, entry.method)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: "added"}))


async def safety_edit_view(request: web.Request) -> web.Response:
    """The form of one entry, filled in, to change it."""
    entry_id = _entry_id(request)
    entries = request.app[keys.CONFIRMATION_POLICY].entries
    entry = next((e for e in entries if e.id == entry_id), None)
    if entry is None:
        raise web.HTTPNotFound(text="no such entry")
    form = {
        "scope": entry.scope,
        "target": entry.target,
        "actions": ", ".join(entry.actions),
        "method": entry.method,
    }
    return await _page(request, form=form, editing=entry_id)


async def safety_save_view(request: web.Request) -> web.Response:
    """Save an edited entry; a PIN entry left without a new PIN keeps its PIN."""
    entry_id = _entry_id(request)
    form = await text_fields(request)
    method = form.get("method", "yes")
    pin = form.get("pin", "").strip()
    if method == "pin" and pin and not _pin_ok(pin):
        problem = f"A PIN is {MIN_PIN} or more digits."
        return await _page(request, problem=problem, form=form, editing=entry_id)
    actions = [part for part in form.get("actions", "").split(",") if part.strip()]
    try:
        await request.app[keys.CONFIRMATION_POLICY].update(
            entry_id,
            form.get("scope", ""),
            form.get("target", ""),
            actions,
            method,
            _hashed(method, pin) if pin else None,
        )
    except NotFoundError:
        raise web.HTTPNotFound(text="no such entry") from None
    except PolicyEntryInvalid as err:
        return await _page(request, problem=str(err), form=form, editing=entry_id)
    _LOGGER.info("Confirmation entry %s changed (%s)", entry_id, method)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: "edited"}))


async def safety_delete_view(request: web.Request) -> web.Response:
    """Delete one entry (the audit trail keeps what it was)."""
    entry_id = _entry_id(request)
    await text_fields(request)  # the CSRF check reads the form
    try:
        await request.app[keys.CONFIRMATION_POLICY].delete(entry_id)
    except NotFoundError:
        raise web.HTTPNotFound(text="no such entry") from None
    _LOGGER.info("Confirmation entry %s deleted", entry_id)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: "deleted"}))


def _entry_id(request: web.Request) -> int:
    try:
        return int(request.match_info["entry_id"])
    except ValueError:
        raise web.HTTPNotFound(text="no such entry") from None


def _pin_ok(pin: str) -> bool:
    return pin.isdigit() and len(pin) >= MIN_PIN


def _hashed(method: str, pin: str) -> str | None:
    """The PIN's hash for a PIN entry (and the log taught to hide the PIN), else None."""
    if method != "pin" or not pin:
        return None
    remember_secrets([pin])
    return hash_pin(pin)


async def safety_switch_view(request: web.Request) -> web.Response:
    """Switch one entry on or off: ``enabled=on|off``."""
    form = await text_fields(request)
    enabled = form.get("enabled") == "on"
    try:
        entry_id = int(request.match_info["entry_id"])
        await request.app[keys.CONFIRMATION_POLICY].set_enabled(entry_id, enabled)
    except (ValueError, NotFoundError):
        raise web.HTTPNotFound(text="no such entry") from None
    done = "enabled" if enabled else "disabled"
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: done}))


async def _page(
    request: web.Request,
    *,
    problem: str = "",
    form: dict[str, str] | None = None,
    editing: int | None = None,
) -> web.Response:
    shown = {k: v for k, v in (form or {}).items() if k in ("scope", "target", "actions", "method")}
    records = request.app[keys.CONFIRMATION_POLICY]
    policy = ConfirmationPolicy.of_rows(records.entries)
    home = await live_home(request)
    return render(
        request,
        "safety.html",
        {
            "entries": records.entries,
            "timeout": request.app[keys.SETTINGS].options.confirmation_timeout,
            "problem": problem,
            "form": shown,
            "editing": editing,
            "pickers": pickers(home),
            "placeholders": PLACEHOLDERS,
            "governs": governing(home, policy, policy.entries),
            "changes": await records.changes(),
            "notice": notices.notice(request, notices.SAFETY),
            "rules": request.app[keys.ACTOR_RULES].rules,
            "people": people(home),
            "satellites": satellites(home),
            "rule_problem": request.query.get("rule_problem", ""),
        },
        status=422 if problem else 200,
    )
