"""Helpers for the contract tests against the real Home Assistant: setup, snapshots, outcomes.

Both homes get the same floors, area assignments and exposure (:func:`arrange_home`) so that
Home Assistant's own handler (reached through ``POST /api/intent/handle``, which applies no
exposure filter) and ours (which only sees what is exposed to Assist) are asked about the same
set of entities. States are compared over the domains intents act on, without the attributes
that differ between two processes by nature (media position clocks, image proxy tokens).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from addon.home.actions.response import IntentResult
from devtools.home_assistant import HomeAssistantProcess

COMPARED_DOMAINS = frozenset(
    {
        "light",
        "switch",
        "cover",
        "valve",
        "lock",
        "climate",
        "media_player",
        "fan",
        "vacuum",
        "lawn_mower",
        "todo",
    }
)
VOLATILE_ATTRIBUTES = frozenset({"media_position", "media_position_updated_at", "entity_picture"})
MOVING_STATES = frozenset({"opening", "closing", "locking", "unlocking"})

FLOORS = (("Ground Floor", 0), ("Upstairs", 1))
AREA_FLOORS = {"kitchen": "ground_floor", "living_room": "ground_floor", "bedroom": "upstairs"}
# Only entities with a registry entry can have an area: the demo's locks, valves, vacuums and
# media players have none (no unique id), so they are reached by name, domain or device class.
ENTITY_AREAS = {
    "kitchen": (
        "light.kitchen_lights",
        "light.entrance_color_white_lights",
        "cover.kitchen_window",
        "switch.ac",
        "fan.ceiling_fan",
    ),
    "living_room": (
        "light.living_room_rgbww_lights",
        "light.ceiling_lights",
        "cover.living_room_window",
        "fan.living_room_fan",
        "climate.hvac",
        "switch.decorative_lights",
    ),
    "bedroom": (
        "light.bed_light",
        "light.office_rgbw_lights",
        "climate.heatpump",
        "sensor.outside_humidity",
    ),
}
AREA_TEMPERATURE_SENSORS = {"kitchen": "sensor.outside_temperature"}
EXPOSED = (
    "lock.front_door",
    "lock.kitchen_door",
    "lock.openable_lock",
    "valve.front_garden",
    "valve.orchard",
    "weather.demo_weather_south",
    "weather.demo_weather_north",
)
LAWN_MOWER = "lawn_mower.my_lawn_mower"
"""The demo's mower (2026.11 only); lawn mowers are not exposed by default."""
UNEXPOSED_LOCK = "lock.poorly_installed_door"
"""Left unexposed (the default for locks): the exposure test's target."""

Snapshot = dict[str, tuple[str, dict[str, Any]]]


async def arrange_home(process: HomeAssistantProcess) -> None:
    """Floors, areas, a kitchen temperature sensor and exposure, identical in both homes."""
    for name, level in FLOORS:
        await process.websocket_command(
            {"type": "config/floor_registry/create", "name": name, "level": level}
        )
    for area_id, floor_id in AREA_FLOORS.items():
        update: dict[str, Any] = {"area_id": area_id, "floor_id": floor_id}
        if area_id in AREA_TEMPERATURE_SENSORS:
            update["temperature_entity_id"] = AREA_TEMPERATURE_SENSORS[area_id]
        await process.websocket_command({"type": "config/area_registry/update", **update})
    for area_id, entity_ids in ENTITY_AREAS.items():
        for entity_id in entity_ids:
            await process.put_in_area(entity_id, area_id)
    await process.expose_entities(EXPOSED)
    if LAWN_MOWER in await snapshot(process):
        await process.expose_entities([LAWN_MOWER])


async def snapshot(process: HomeAssistantProcess) -> Snapshot:
    """Every compared entity's state and stable attributes."""
    states = await process.states()
    return {
        raw["entity_id"]: (
            raw["state"],
            {k: v for k, v in raw["attributes"].items() if k not in VOLATILE_ATTRIBUTES},
        )
        for raw in states
        if raw["entity_id"].partition(".")[0] in COMPARED_DOMAINS
    }


async def settled(
    process: HomeAssistantProcess,
    *,
    steady: float = 0.0,
    timeout: float = 15.0,  # noqa: ASYNC109
) -> Snapshot:
    """The snapshot once nothing is opening, closing, locking or unlocking.

    ``steady`` > 0 also waits until two snapshots that far apart agree: a demo cover moving to
    a set position stays ``open`` while its position changes once a second.
    """
    async with asyncio.timeout(timeout):
        previous: Snapshot | None = None
        while True:
            current = await snapshot(process)
            if not any(state in MOVING_STATES for state, _ in current.values()):
                if not steady or current == previous:
                    return current
                previous = current
                await asyncio.sleep(steady)
                continue
            previous = None
            await asyncio.sleep(0.2)


def differences(
    left: Snapshot, right: Snapshot, entity_ids: Iterable[str] | None = None
) -> list[str]:
    """Human-readable differences between two snapshots (over ``entity_ids`` if given)."""
    keys = sorted(set(left) | set(right)) if entity_ids is None else sorted(entity_ids)
    found = []
    for entity_id in keys:
        a, b = left.get(entity_id), right.get(entity_id)
        if a != b:
            found.append(f"{entity_id}: {a} != {b}")
    return found


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an intent did, comparable across Home Assistant's answer and ours."""

    kind: str
    """``error``, ``action_done`` or ``query_answer``."""
    success: tuple[tuple[str, str, str | None], ...] = ()
    failed: tuple[tuple[str, str, str | None], ...] = ()


def loosely(outcome: Outcome) -> tuple[str, tuple[tuple[str, str, str | None], ...], int]:
    """Kind, every target, and how many failed: for answers whose failures HA misattributes."""
    return outcome.kind, tuple(sorted(outcome.success + outcome.failed)), len(outcome.failed)


def with_failures(outcome: Outcome, entity_ids: Iterable[str]) -> Outcome:
    """HA's outcome with the calls it wrongly counted as successes moved to ``failed``.

    With nothing left in ``success`` the answer is an error, as HA's handler makes it.
    """
    ids = set(entity_ids)
    if not ids:
        return outcome
    success = tuple(t for t in outcome.success if t[2] not in ids)
    moved = tuple(t for t in outcome.success if t[2] in ids)
    if not success:
        return Outcome("error")
    return Outcome(outcome.kind, success, tuple(sorted(outcome.failed + moved)))


def _targets(raw: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, str, str | None], ...]:
    return tuple(sorted((str(t["type"]), str(t["name"]), t.get("id")) for t in raw))


async def home_assistant_outcome(
    process: HomeAssistantProcess, session: aiohttp.ClientSession, name: str, slots: Any
) -> Outcome:
    """Home Assistant's own handling of the intent, through ``POST /api/intent/handle``.

    A match failure escapes that view as HTTP 500; an ``IntentHandleError`` comes back as an
    ``action_done`` with only speech. Both are errors here.
    """
    async with session.post(
        f"{process.url}/api/intent/handle",
        headers={"Authorization": f"Bearer {process.token}"},
        json={"name": name, "data": slots},
    ) as response:
        if response.status >= 500:
            return Outcome("error")
        body = json.loads(await response.text())
    data = body.get("data", {})
    success, failed = data.get("success", []), data.get("failed", [])
    is_handle_error = body["speech"] and not success and not failed
    if body["response_type"] == "error" or (is_handle_error and name != "HassRespond"):
        return Outcome("error")
    return Outcome(str(body["response_type"]), _targets(success), _targets(failed))


def our_outcome(result: IntentResult) -> Outcome:
    """Our result in the same terms."""
    if result.is_error:
        return Outcome("error")
    data = result.as_dict()["data"]
    return Outcome(result.response_type.value, _targets(data["success"]), _targets(data["failed"]))


def plain(value: Any) -> Any:
    """Tuples as lists, as a state looks after a JSON round trip."""
    return json.loads(json.dumps(value))
