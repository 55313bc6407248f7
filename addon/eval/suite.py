"""The ready-made suite: a task file written from the user's own exposed entities.

So a user can judge a model on their own home without writing anything: the home is the exposed
part of theirs (names, aliases, areas, floors, states, the attributes the tasks touch) and the
tasks are the everyday commands and questions for it, each with the state set up first so the
command has something to change. The result is task-file YAML, run like any other and shown so
it can be downloaded and edited.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Protocol

import yaml

from addon.home.actions.confirmation import ConfirmationPolicy
from addon.home.model.entities import Entity
from addon.home.model.features import CoverEntityFeature, MediaPlayerEntityFeature
from addon.home.model.live import HomeModel
from addon.text import JsonArray, JsonObject, JsonValue

PER_KIND = 4
"""Tasks of each kind at most, so the suite stays a few minutes long with a model."""

_KEPT_ATTRIBUTES: Mapping[str, tuple[str, ...]] = {
    "light": ("brightness", "supported_color_modes"),
    "cover": ("current_position",),
    "fan": ("percentage",),
    "media_player": ("volume_level",),
    "climate": ("temperature", "current_temperature", "hvac_modes"),
    "sensor": ("unit_of_measurement",),
}
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri")
"""Home Assistant's time condition's working days (as ``addon.tools.automation.WEEKDAYS``)."""
_SKIPPED_STATES = frozenset({"unavailable", "unknown", ""})
_ON_OFF = ("light", "switch", "fan", "input_boolean")


def suite_yaml(
    model: HomeModel, *, name: str = "Your home", policy: ConfirmationPolicy | None = None
) -> str:
    """The suite for ``model``'s exposed entities as task-file YAML (empty tasks: no entities).

    An action ``policy`` holds for a "yes" gets ``confirm: yes``, so the run answers the
    question as a person would and the task tests the action, not the policy; one held for a
    PIN is left out (the suite cannot know the PIN).
    """
    entities = [
        entity
        for entity in model.exposed_entities()
        if (state := model.state(entity.entity_id)) is not None
        and state.state not in _SKIPPED_STATES
    ]
    home = exposed_home(model, name=name, entities=entities)
    tasks = _tasks(model, entities, policy)
    return yaml.safe_dump(
        {"home": home, "tasks": tasks}, sort_keys=False, allow_unicode=True, width=100
    )


def exposed_home(
    model: HomeModel, *, name: str = "Your home", entities: list[Entity] | None = None
) -> JsonObject:
    """The task file's ``home``: the exposed entities with a state, as they are now."""
    if entities is None:
        entities = [
            entity
            for entity in model.exposed_entities()
            if (state := model.state(entity.entity_id)) is not None
            and state.state not in _SKIPPED_STATES
        ]
    language = str(model.config.get("language") or "en").split("-")[0]
    return _home(model, entities, name, language)


def _home(model: HomeModel, entities: list[Entity], name: str, language: str) -> JsonObject:
    used_areas = {entity.area_id for entity in entities if entity.area_id in model.areas}
    used_floors = {model.areas[a].floor_id for a in used_areas if a is not None}
    listed: JsonArray = []
    for entity in entities:
        state = model.state(entity.entity_id)
        assert state is not None  # kept above only with a state
        item: JsonObject = {"entity_id": entity.entity_id, "name": entity.name}
        if entity.area_id in used_areas:
            item["area"] = entity.area_id
        if entity.aliases:
            item["aliases"] = list(entity.aliases)
        if entity.device_class:
            item["device_class"] = entity.device_class
        item["state"] = state.state
        kept = {
            key: _plain(state.attributes[key])
            for key in _KEPT_ATTRIBUTES.get(entity.domain, ())
            if key in state.attributes
        }
        if kept:
            item["attributes"] = kept
        item["supported_features"] = _whole(state.attributes.get("supported_features"))
        listed.append(item)
    return {
        "name": name,
        "language": language,
        "floors": [
            {"id": f.floor_id, "name": f.name, "aliases": list(f.aliases), "level": f.level}
            for f in model.floors.values()
            if f.floor_id in used_floors
        ],
        "areas": [
            {
                "id": a.area_id,
                "name": a.name,
                "aliases": list(a.aliases),
                "floor": a.floor_id if a.floor_id in used_floors else None,
            }
            for a in model.areas.values()
            if a.area_id in used_areas
        ],
        "entities": listed,
    }


class _AddTask(Protocol):
    """Adds one task of a kind, unless the kind has :data:`PER_KIND` already (see ``_tasks``)."""

    def __call__(
        self, kind: str, sentence: str, action: str | None = None, **parts: JsonValue
    ) -> None: ...


def _tasks(
    model: HomeModel, entities: list[Entity], policy: ConfirmationPolicy | None
) -> list[JsonObject]:
    by_domain: dict[str, list[Entity]] = defaultdict(list)
    for entity in entities:
        by_domain[entity.domain].append(entity)
    tasks: list[JsonObject] = []
    kinds: Counter[str] = Counter()

    def add(kind: str, sentence: str, action: str | None = None, **parts: JsonValue) -> None:
        if kinds[kind] >= PER_KIND:
            return
        expect = parts.get("expect")
        first = next(iter(expect), None) if isinstance(expect, dict) else None
        asks = _asks(model, policy, action, first)
        if asks == "pin":
            return  # the suite cannot answer a PIN question
        confirm: JsonObject = {"confirm": "yes"} if asks == "yes" else {}
        tasks.append({"sentence": sentence, **parts, **confirm, "tags": [kind]})
        kinds[kind] += 1

    for domain in _ON_OFF:
        for entity in by_domain.get(domain, []):
            add(f"{domain}-on", f"turn on the {entity.name}",
                setup={entity.entity_id: {"state": "off"}},
                expect={entity.entity_id: {"state": "on"}})  # fmt: skip
            add(f"{domain}-off", f"turn off the {entity.name}",
                setup={entity.entity_id: {"state": "on"}},
                expect={entity.entity_id: {"state": "off"}})  # fmt: skip
    for entity in by_domain.get("light", [])[:1]:
        # Nothing acts: the draft waits, and the answer "yes" approves it (addon.tools.automation).
        add("automation", f"every weekday at seven turn on the {entity.name}",
            confirm="yes",
            automation={
                "triggers": [{"trigger": "time", "at": "07:00:00"}],
                "conditions": [{"condition": "time", "weekday": list(WEEKDAYS)}],
                "actions": [{"action": "light.turn_on", "target": {"entity_id": entity.entity_id}}],
            })  # fmt: skip
    for entity in by_domain.get("lock", []):
        add("lock-question", f"is the {entity.name} locked",
            setup={entity.entity_id: {"state": "locked"}}, answer=["yes"])  # fmt: skip
        add("lock", f"lock the {entity.name}", "lock.lock",
            setup={entity.entity_id: {"state": "unlocked"}},
            expect={entity.entity_id: {"state": "locked"}})  # fmt: skip
    for entity in by_domain.get("cover", []):
        if _features(model, entity) & CoverEntityFeature.OPEN:
            closed: JsonObject = {"state": "closed", "attributes": {"current_position": 0}}
            add("cover-open", f"open the {entity.name}", "cover.open_cover",
                setup={entity.entity_id: closed},
                expect={entity.entity_id: {"state": "open"}})  # fmt: skip
    for entity in by_domain.get("media_player", []):
        if _features(model, entity) & MediaPlayerEntityFeature.PAUSE:
            add("media-pause", f"pause the {entity.name}",
                setup={entity.entity_id: {"state": "playing"}},
                expect={entity.entity_id: {"state": "paused"}})  # fmt: skip
    for entity in by_domain.get("sensor", []):
        if entity.device_class == "temperature":
            state = model.state(entity.entity_id)
            value = state.state if state is not None else ""
            add("sensor-question", f"what is the {entity.name}",
                answer=[value.split(".")[0] or value])  # fmt: skip
    _area_lights(model, by_domain.get("light", []), add)
    return tasks


def _area_lights(model: HomeModel, lights: list[Entity], add: _AddTask) -> None:
    """The "set <area> lights to 30%" tasks: every dimmable light of the area ends on at 30%."""
    by_area: dict[str, list[Entity]] = defaultdict(list)
    for light in lights:
        state = model.state(light.entity_id)
        modes = state.attributes.get("supported_color_modes") if state else None
        area_id = light.area_id
        if (
            area_id is not None
            and area_id in model.areas
            and isinstance(modes, list)
            and set(modes) - {"onoff"}
        ):
            by_area[area_id].append(light)
    for area_id, members in by_area.items():
        area = model.areas[area_id]
        add("area-brightness", f"set the {area.name} lights to 30%",
            setup={m.entity_id: {"state": "off"} for m in members},
            expect={m.entity_id: {"state": "on", "attributes": {"brightness": 77}}
                    for m in members})  # fmt: skip


def _asks(
    model: HomeModel, policy: ConfirmationPolicy | None, action: str | None, entity_id: str | None
) -> str | None:
    """How ``policy`` confirms ``action`` on ``entity_id`` ("yes", "pin"), or None."""
    if policy is None or action is None or entity_id is None:
        return None
    domain, service = action.split(".", 1)
    entity = model.entity(entity_id)
    entry = policy.covering(domain, service, entity_id, entity.device_class if entity else None)
    return entry.method if entry is not None else None


def _features(model: HomeModel, entity: Entity) -> int:
    state = model.state(entity.entity_id)
    return _whole(state.attributes.get("supported_features")) if state else 0


def _whole(value: JsonValue) -> int:
    """A whole-number attribute (``supported_features``) as Home Assistant sends it; 0 if unset."""
    if isinstance(value, int | float | str) and value:
        return int(value)
    return 0


def _plain(value: object) -> JsonValue:
    """An attribute as YAML can write it: tuples as lists, any other object as its text.

    The attributes kept (:data:`_KEPT_ATTRIBUTES`) are numbers, text and lists of them.
    """
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)
