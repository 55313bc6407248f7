"""The static part of a large home's prompt: its places and what kinds of device it has.

Above the overview's token budget the prompt lists no entities: the same for every turn, it
says which floors and areas there are (with their aliases, so the model can name them to the
intent tools) and how many entities of each domain and device class, so "do I have blinds?" is
answerable without a tool call. Each turn's relevant entities come after the cached prefix
(:mod:`addon.home.context.selection`).
"""

from __future__ import annotations

from collections import Counter

from addon.home.context.overview import dump_yaml, overview_entities
from addon.home.model.live import HomeModel

NO_FLOOR = "(no floor)"


def compact_summary(model: HomeModel) -> str | None:
    """Floors with their areas, then entity counts by domain and device class; None if empty."""
    entities = overview_entities(model)
    if not entities:
        return None
    places: dict[str, list[str]] = {}
    for floor in model.floors.values():
        places[", ".join((floor.name, *floor.aliases))] = []
    floor_keys = {f.floor_id: ", ".join((f.name, *f.aliases)) for f in model.floors.values()}
    for area in model.areas.values():
        key = floor_keys.get(area.floor_id, NO_FLOOR) if area.floor_id else NO_FLOOR
        places.setdefault(key, []).append(", ".join((area.name, *area.aliases)))
    domains: Counter[str] = Counter(entity.domain for entity in entities)
    classes: dict[str, Counter[str]] = {}
    for entity in entities:
        if entity.device_class:
            classes.setdefault(entity.domain, Counter())[entity.device_class] += 1
    counts: dict[str, int | str] = {}
    for domain in sorted(domains):
        by_class = classes.get(domain)
        if by_class:
            detail = ", ".join(f"{name} {n}" for name, n in sorted(by_class.items()))
            counts[domain] = f"{domains[domain]} ({detail})"
        else:
            counts[domain] = domains[domain]
    layout = {
        "floors and their areas": {key: areas for key, areas in places.items() if areas},
        "devices by domain (device classes)": counts,
    }
    return dump_yaml(layout)
