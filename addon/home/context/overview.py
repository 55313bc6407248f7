"""The overview of exposed entities: compact and static for the prompt, Home Assistant's for live.

The live form (``GetLiveContext``) mirrors ``_get_exposed_entities`` in Home Assistant's
``helpers/llm.py``: exposed entities sorted by name, each with ``names`` (name and aliases),
``domain``, ``areas`` (area name and aliases), ``state`` and the few attributes Home Assistant
considers interesting.

The static form in the prompt carries the same facts (names, aliases, domain, area and its aliases,
and which floor each area is on) but grouped, as YAML, by area and then domain::

    Kitchen, Cooking Area:
      light:
      - Kitchen Lights
      - Ceiling, Overhead

Home Assistant repeats ``names:``, ``domain:`` and ``areas:`` for every entity; grouping says each
area and domain once, which is most of the prompt in a large home (about half the tokens at 1,000
entities), and gives the model exactly what the intent tools take: a name, an area, a domain.
Scripts are left out because they are offered as tools.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

import yaml

from addon.home.context.plain_yaml import dump_plain
from addon.home.model.entities import Entity
from addon.home.model.live import HomeModel
from addon.home.model.records import MODEL_ATTRIBUTES
from addon.llm.outside_text import as_data
from addon.text import JsonObject

# Home Assistant's list for its live context (``helpers/llm.py``), shared with intent results.
INTERESTING_ATTRIBUTES = frozenset(MODEL_ATTRIBUTES)
SEPARATE_DOMAINS = frozenset({"script", "calendar"})


def dump_yaml(value: object) -> str:
    """YAML exactly as Home Assistant dumps it for prompts (block style, keys in order).

    Names that need no quoting are written directly (:mod:`addon.home.context.plain_yaml`), the same
    text, without PyYAML's cost on every turn of a large home. Names and areas are written by
    whoever set up the home, so tool-call markup in them is broken (:func:`as_data`): every
    overview, summary and device list the model reads is made here.
    """
    text = dump_plain(value)
    if text is not None:
        return as_data(text)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    dumped: str = yaml.dump(
        value, Dumper=dumper, default_flow_style=False, allow_unicode=True, sort_keys=False
    )
    return as_data(dumped)


def overview_entities(model: HomeModel) -> list[Entity]:
    """Exposed entities in Home Assistant's prompt order (by name), scripts and calendars apart."""
    entities = [e for e in model.exposed_entities() if e.domain not in SEPARATE_DOMAINS]
    return sorted(entities, key=lambda entity: entity.name)


def entity_info(model: HomeModel, entity: Entity, *, include_state: bool) -> JsonObject:
    """One entry of the overview, with the keys in Home Assistant's order."""
    info: JsonObject = {"names": ", ".join(entity.names), "domain": entity.domain}
    state = model.state(entity.entity_id) if include_state else None
    if state is not None:
        info["state"] = state.state
    area = model.areas.get(entity.area_id) if entity.area_id else None
    if area is not None:
        info["areas"] = ", ".join((area.name, *area.aliases))
    if state is not None:
        attributes = {
            key: str(value)
            if isinstance(value, Enum | Decimal | int) and not isinstance(value, bool)
            else value
            for key, value in state.attributes.items()
            if key in INTERESTING_ATTRIBUTES
        }
        if attributes:
            info["attributes"] = attributes
    return info


NO_AREA = "(no area)"


def static_overview(model: HomeModel) -> str | None:
    """The prompt's overview (no states), grouped by area and domain; None if nothing is exposed."""
    entities = overview_entities(model)
    if not entities:
        return None
    return grouped_overview(model, entities)


def grouped_overview(model: HomeModel, entities: list[Entity], *, floors: bool = True) -> str:
    """``entities`` (in overview order) grouped by area and domain, floors listed after.

    The per-turn list of a large home uses it too, without floors (its summary names them).
    """
    areas = model.areas
    grouped: dict[str | None, dict[str, list[str]]] = {}
    for entity in entities:
        area_id = entity.area_id if entity.area_id in areas else None
        grouped.setdefault(area_id, {}).setdefault(entity.domain, []).append(
            ", ".join(entity.names)
        )
    layout: dict[str, dict[str, list[str]]] = {}
    area_order: list[str | None] = [area_id for area_id in areas if area_id in grouped]
    if None in grouped:
        area_order.append(None)
    for area_id in area_order:
        domains = grouped[area_id]
        if area_id is None:
            key = NO_AREA
        else:
            area = areas[area_id]
            key = ", ".join((area.name, *area.aliases))
        layout[key] = {domain: sorted(domains[domain]) for domain in sorted(domains)}
    text = dump_yaml(layout)
    on_floors = _floors(model, [a for a in area_order if a is not None]) if floors else {}
    if on_floors:
        text += dump_yaml({"floors": on_floors})
    return text


def _floors(model: HomeModel, area_ids: list[str]) -> dict[str, list[str]]:
    """Each floor (name and aliases) with the listed areas on it, in registry order."""
    floors: dict[str, list[str]] = {}
    for floor_id, floor in model.floors.items():
        names = [model.areas[a].name for a in area_ids if model.areas[a].floor_id == floor_id]
        if names:
            floors[", ".join((floor.name, *floor.aliases))] = names
    return floors


def live_overview(model: HomeModel, entities: list[Entity]) -> str:
    """The live overview of ``entities`` (states included), as ``GetLiveContext`` returns it."""
    return dump_yaml([entity_info(model, entity, include_state=True) for entity in entities])


class OverviewCache:
    """The static overview per home model object and revision.

    The home sync swaps in a new model whenever registries or exposure change; state changes
    happen in place, and only those that add, remove or rename an entity move the model's
    ``revision``, so the object and its revision are the right cache key. Rendering 10,000
    entities as YAML takes long enough that doing it every turn would show in the agent's
    overhead.
    """

    def __init__(self) -> None:
        self._revision = 0
        self._model: HomeModel | None = None
        self._text: str | None = None

    def get(self, model: HomeModel) -> str | None:
        """The overview for ``model``, rendered once per model object and revision."""
        if self._model is not model or self._revision != model.revision:
            self._text = static_overview(model)
            self._model, self._revision = model, model.revision
        return self._text
