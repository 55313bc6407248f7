"""The Safety page's rules per person and per satellite: list, add, switch, delete.

Thin views over ``keys.ACTOR_RULES``. A rule names a person (their person entity, or a Home
Assistant user id) or a satellite (its device), a preset (guest), a default level and one level
per domain, area (``area:kids_room``) or entity, one a line (``lock: none``), and for a
satellite the switch that keeps it to its own area. The people and satellites offered are
the live home's person entities and devices.
"""

from __future__ import annotations

import logging

from aiohttp import web

from addon import keys
from addon.errors import NotFoundError, PolicyEntryInvalid
from addon.home.model.live import HomeModel
from addon.web.ui import notices
from addon.web.ui.forms import text_fields
from addon.web.ui.safety_home import Choice
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)


def people(home: HomeModel | None) -> list[Choice]:
    """The home's person entities (a rule on one follows the Home Assistant user it names)."""
    if home is None:
        return []
    found = (home.entity(entity_id) for entity_id in home.index.by_domain.get("person", ()))
    return sorted(
        (Choice(entity.entity_id, entity.name) for entity in found if entity is not None),
        key=lambda choice: choice.label,
    )


def satellites(home: HomeModel | None) -> list[Choice]:
    """The devices with an ``assist_satellite`` entity, first; a device id can be typed too."""
    if home is None:
        return []
    devices: dict[str, Choice] = {}
    for entity_id in home.index.by_domain.get("assist_satellite", ()):
        entity = home.entity(entity_id)
        device = home.devices.get(entity.device_id) if entity and entity.device_id else None
        if device is not None:
            area = home.areas.get(device.area_id) if device.area_id else None
            name = device.name or device.device_id
            label = f"{name} ({area.name})" if area is not None else name
            devices[device.device_id] = Choice(device.device_id, label)
    return sorted(devices.values(), key=lambda choice: choice.label)


def parse_targets(text: str) -> dict[str, str]:
    """``lock: none`` lines (or comma-separated) as a mapping; PolicyEntryInvalid when unread."""
    targets: dict[str, str] = {}
    for part in text.replace(",", "\n").splitlines():
        if not part.strip():
            continue
        target, sep, level = part.rpartition(":")
        if not sep or not target.strip():
            raise PolicyEntryInvalid(f"{part.strip()!r}: write a target, a colon and a level")
        targets[target.strip().lower()] = level.strip().lower()
    return targets


async def rule_add_view(request: web.Request) -> web.Response:
    """Add a rule from the form (kind, subject, name, preset, default, targets, own area)."""
    form = await text_fields(request)
    kind = form.get("kind", "")
    subject = form.get("subject", "").strip()
    preset = form.get("preset") or None
    try:
        await request.app[keys.ACTOR_RULES].add(
            kind,
            subject,
            form.get("name", ""),
            default=form.get("default", "act"),
            targets=parse_targets(form.get("targets", "")),
            own_area=form.get("own_area") == "on",
            preset=preset,
        )
    except PolicyEntryInvalid as err:
        raise web.HTTPSeeOther(
            Urls.of(request).page("ui.safety", {"rule_problem": str(err)[:200]}, fragment="rules")
        ) from None
    _LOGGER.info("Rule added for %s %s", kind, subject)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: "rule_added"}))


def _rule_id(request: web.Request) -> int:
    try:
        return int(request.match_info["rule_id"])
    except ValueError:
        raise web.HTTPNotFound(text="no such rule") from None


async def rule_switch_view(request: web.Request) -> web.Response:
    """Switch a rule on or off: ``enabled=on|off``."""
    posted = await request.post()
    enabled = posted.get("enabled") == "on"
    try:
        await request.app[keys.ACTOR_RULES].set_enabled(_rule_id(request), enabled)
    except NotFoundError:
        raise web.HTTPNotFound(text="no such rule") from None
    done = "rule_enabled" if enabled else "rule_disabled"
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: done}))


async def rule_delete_view(request: web.Request) -> web.Response:
    """Delete a rule."""
    await request.post()  # the CSRF check reads the form
    try:
        await request.app[keys.ACTOR_RULES].delete(_rule_id(request))
    except NotFoundError:
        raise web.HTTPNotFound(text="no such rule") from None
    raise web.HTTPSeeOther(Urls.of(request).page("ui.safety", {notices.DONE: "rule_deleted"}))
