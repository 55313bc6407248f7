"""Areas and floors, and finding them by what a person calls them.

``find`` is Home Assistant's ``find_areas``/``find_floors`` (``helpers/intent.py``, 2025.4): a
place matches by its exact id, or by its name or any alias under ``_normalize_name``, and results
keep registry order. The rest is ours, for messages after a miss: the nearest place names, and
splitting "bedroom lamp" into the Bedroom and "lamp".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.home.model.names import loose_name, normalize_name
from addon.home.model.records import Area, Floor
from addon.home.model.suggest import FuzzyIndex


def _keys(places: Iterable[tuple[str, str, tuple[str, ...]]]) -> Mapping[str, tuple[str, ...]]:
    """Normalized name or alias → ids of the places that have it."""
    keys: dict[str, list[str]] = {}
    for place_id, name, aliases in places:
        for key in {normalize_name(text) for text in (name, *aliases)}:
            keys.setdefault(key, []).append(place_id)
    return MappingProxyType({key: tuple(ids) for key, ids in keys.items()})


def _find[P: (Area, Floor)](
    name: str, items: Mapping[str, P], keys: Mapping[str, tuple[str, ...]]
) -> list[P]:
    wanted = set(keys.get(normalize_name(name), ()))
    if name in items:
        wanted.add(name)
    return [item for item_id, item in items.items() if item_id in wanted]


@dataclass(frozen=True, slots=True)
class Places:
    """The area and floor registries with their lookup tables; immutable, shared by copies."""

    areas: Mapping[str, Area]
    floors: Mapping[str, Floor]
    area_keys: Mapping[str, tuple[str, ...]]
    floor_keys: Mapping[str, tuple[str, ...]]
    area_prefixes: tuple[tuple[str, str], ...]
    """(loose name or alias followed by a space, area id), longest first."""
    fuzzy: FuzzyIndex

    @classmethod
    def build(cls, areas: Iterable[Area], floors: Iterable[Floor]) -> Places:
        """Index areas and floors, in registry order."""
        area_list, floor_list = list(areas), list(floors)
        prefixes = {
            (f"{loose_name(text)} ", area.area_id)
            for area in area_list
            for text in (area.name, *area.aliases)
            if loose_name(text)
        }
        return cls(
            areas=MappingProxyType({area.area_id: area for area in area_list}),
            floors=MappingProxyType({floor.floor_id: floor for floor in floor_list}),
            area_keys=_keys((a.area_id, a.name, a.aliases) for a in area_list),
            floor_keys=_keys((f.floor_id, f.name, f.aliases) for f in floor_list),
            area_prefixes=tuple(sorted(prefixes, key=lambda item: (-len(item[0]), item))),
            fuzzy=FuzzyIndex.build(
                [(f"area:{a.area_id}", text) for a in area_list for text in (a.name, *a.aliases)]
                + [(f"floor:{f.floor_id}", t) for f in floor_list for t in (f.name, *f.aliases)]
            ),
        )

    def find_areas(self, name: str) -> list[Area]:
        """Home Assistant's ``find_areas``: areas whose id, name or alias is ``name``."""
        return _find(name, self.areas, self.area_keys)

    def find_floors(self, name: str) -> list[Floor]:
        """Home Assistant's ``find_floors``: floors whose id, name or alias is ``name``."""
        return _find(name, self.floors, self.floor_keys)

    def closest(self, name: str, kind: str, *, limit: int = 5) -> list[str]:
        """Names of the areas (``kind="area"``) or floors (``"floor"``) nearest ``name``."""
        prefix = f"{kind}:"
        found = self.fuzzy.closest(name, lambda item: item.startswith(prefix), limit=limit)
        names: list[str] = []
        for _score, item in found:
            place_id = item.removeprefix(prefix)
            place = self.areas.get(place_id) if kind == "area" else self.floors.get(place_id)
            if place is not None and place.name not in names:
                names.append(place.name)
        return names

    def split_area(self, name: str) -> list[tuple[str, str]]:
        """``(area id, rest)`` for each area whose name or alias starts ``name``.

        "Bedroom lamp" gives ``[("bedroom", "lamp")]``: people put the room in front of a name.
        """
        loose = f"{loose_name(name)} "
        return [
            (area_id, loose[len(prefix) :].strip())
            for prefix, area_id in self.area_prefixes
            if loose.startswith(prefix) and len(loose) > len(prefix)
        ]
