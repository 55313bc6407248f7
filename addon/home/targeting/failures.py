"""Turning a failed match into something a model can act on.

Home Assistant's ``MatchFailedError`` carries the result, the constraints and the preferences;
ours does too, and its message says which constraint failed and what would work instead: the
closest exposed names (never an unexposed one), the same name in other areas, the areas that
exist, or the tied candidates with their areas.
"""

from __future__ import annotations

from collections.abc import Callable

from addon.home.model.live import HomeModel
from addon.home.model.names import dice, loose_name, normalize_name, trigrams
from addon.home.model.records import Area, Floor
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsConstraints,
    MatchTargetsResult,
    Suggestion,
)

MAX_SUGGESTIONS = 5
CUTOFF = 0.3
"""Least trigram similarity worth suggesting: "bedroom lamp" → "Lamp" scores 0.5, "Chroes" →
"Chores" 0.33, unrelated names of similar length under 0.2."""
SAME_NAME_FIRST = 2
"""Entities sharing one name ("Thermostat" in six rooms) that may come before other names."""


def suggest_entity(model: HomeModel, entity_id: str) -> Suggestion | None:
    """An entity as a suggestion: its name, id and area name."""
    entity = model.entity(entity_id)
    if entity is None:
        return None
    area = model.areas.get(entity.area_id) if entity.area_id else None
    return Suggestion(entity.name, entity_id, area.name if area is not None else None)


def closest_entities(
    model: HomeModel, name: str, accept: Callable[[str], bool]
) -> tuple[Suggestion, ...]:
    """The acceptable entities whose names or aliases are nearest ``name``, best first.

    A name that starts with an area ("bedroom lamp") is also tried as the rest of the name
    within that area, because that is how people (and models) guess at "Lamp" in the Bedroom.
    """
    best: dict[str, float] = {}
    found = model.index.fuzzy.closest(name, accept, limit=MAX_SUGGESTIONS * 3, cutoff=CUTOFF)
    for area_id, rest in model.places.split_area(name):
        # An area holds a handful of entities: score them directly.
        wanted = trigrams(loose_name(rest))
        for entity_id in model.index.by_area.get(area_id, ()):
            entity = model.entity(entity_id)
            if entity is None or not accept(entity_id):
                continue
            score = max(dice(wanted, trigrams(loose_name(text))) for text in entity.names)
            if score >= CUTOFF:
                found.append((score, entity_id))
    for score, entity_id in found:
        best[entity_id] = max(score, best.get(entity_id, 0.0))
    ranked = [
        suggestion
        for entity_id, _score in sorted(best.items(), key=lambda item: (-item[1], item[0]))
        if (suggestion := suggest_entity(model, entity_id)) is not None
    ]
    # Keep room for other names: five "Thermostat"s would hide "Porch Thermostat".
    seen: dict[str, int] = {}
    head: list[Suggestion] = []
    tail: list[Suggestion] = []
    for suggestion in ranked:
        key = suggestion.name.casefold()
        seen[key] = seen.get(key, 0) + 1
        (head if seen[key] <= SAME_NAME_FIRST else tail).append(suggestion)
    return tuple((head + tail)[:MAX_SUGGESTIONS])


def entities_named(
    model: HomeModel, name: str, accept: Callable[[str], bool]
) -> tuple[Suggestion, ...]:
    """Acceptable entities that do have ``name`` (when the area or floor was wrong)."""
    matching = set(model.index.by_name.get(normalize_name(name), ()))
    if name in model.index.order:
        matching.add(name)
    found = [
        suggestion
        for entity_id in model.index.ordered(e for e in matching if accept(e))
        if (suggestion := suggest_entity(model, entity_id)) is not None
    ]
    return tuple(found[:MAX_SUGGESTIONS])


def place_suggestions(model: HomeModel, name: str, kind: str) -> tuple[Suggestion, ...]:
    """The areas or floors (``kind``) whose names are nearest ``name``."""
    return tuple(Suggestion(place) for place in model.places.closest(name, kind))


def failure_result(
    model: HomeModel,
    constraints: MatchTargetsConstraints,
    reason: MatchFailedReason,
    floors: tuple[Floor, ...],
    areas: tuple[Area, ...],
    accept: Callable[[str], bool],
) -> MatchTargetsResult:
    """The result Home Assistant gives for ``reason``, plus suggestions among ``accept``ed."""
    if reason in (MatchFailedReason.INVALID_FLOOR, MatchFailedReason.INVALID_AREA):
        # No such floor or area: name it, and the nearest that exist.
        kind, place = (
            ("floor", constraints.floor_name)
            if reason is MatchFailedReason.INVALID_FLOOR
            else ("area", constraints.area_name)
        )
        return MatchTargetsResult(
            False,
            reason,
            no_match_name=place,
            suggestions=place_suggestions(model, place or "", kind),
        )
    name = constraints.name
    suggestions: tuple[Suggestion, ...] = ()
    if name and reason in (MatchFailedReason.NAME, MatchFailedReason.ASSISTANT):
        suggestions = closest_entities(model, name, accept)
    elif name and reason in (MatchFailedReason.AREA, MatchFailedReason.FLOOR):
        # The name exists but elsewhere: say where.
        suggestions = entities_named(model, name, accept) or closest_entities(model, name, accept)
    return MatchTargetsResult(
        False,
        reason,
        areas=areas if reason is MatchFailedReason.AREA else (),
        floors=floors if reason is MatchFailedReason.FLOOR else (),
        suggestions=suggestions,
    )
