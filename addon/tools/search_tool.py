"""``SearchEntities``: how the model looks past the entities listed with a large home's request.

Offered only when the prompt lists a summary instead of every entity. It searches the same index as
the per-turn selection (:mod:`addon.home.context.context_index`), which holds only the entities
exposed to Assist, so it can never reveal one the user hid. Results are listed as the prompt lists
entities (by area and domain, name then aliases), without states: ``GetLiveContext`` reads those.
The trace keeps the ids found (``detail``) as the selection's "search" reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from addon.errors import ToolError
from addon.home.context.context_index import ContextIndex, Phrase
from addon.home.context.lexicon import FILLER, fold, words
from addon.home.context.overview import grouped_overview
from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue
from addon.tools.base import ToolContext, ToolReply

SEARCH_LIMIT = 25
"""Entities listed per search at most; the count says how many more there are."""
SEARCH_TOOL = "SearchEntities"
NOT_CONNECTED = "Home Assistant is not connected right now; try again in a moment"


@dataclass(frozen=True, slots=True)
class SearchEntitiesTool:
    """Exposed entities by name (or part of one), area, floor, domain or device class."""

    index_of: Callable[[HomeModel], ContextIndex]
    name: str = SEARCH_TOOL
    description: str = (
        "Finds devices and entities of this home that are not listed with the request, by name "
        "or part of a name, area, floor, domain (e.g. 'light', 'cover', 'sensor') or device "
        "class (e.g. 'temperature', 'window'); filters combine. Returns their names, aliases, "
        "areas and domains, not their states: use GetLiveContext for those."
    )
    kind: str = "builtin"

    @property
    def parameters(self) -> JsonObject:
        """Optional filters; at least one must be given."""
        text = {"type": "string"}
        return {
            "type": "object",
            "properties": {
                "name": {**text, "description": "A name, alias or part of one."},
                "area": {**text, "description": "An area's name or alias."},
                "floor": {**text, "description": "A floor's name or alias."},
                "domain": {**text, "description": "A domain, e.g. 'light'."},
                "device_class": {**text, "description": "A device class, e.g. 'temperature'."},
            },
        }

    async def call(self, arguments: JsonObject, context: ToolContext) -> ToolReply:
        """The matching entities, at most :data:`SEARCH_LIMIT`, and how many matched."""
        model = context.home
        if model is None:
            raise ToolError(NOT_CONNECTED)
        index = self.index_of(model)
        found = search(index, model, arguments)
        shown = found[:SEARCH_LIMIT]
        result: JsonObject = {"success": True, "count": len(found)}
        if not shown:
            result["result"] = "No exposed entities match."
        else:
            result["result"] = grouped_overview(
                model, [index.entities[e] for e in shown], floors=False
            )
            if len(found) > len(shown):
                result["note"] = f"Showing {len(shown)} of {len(found)}; narrow the search."
        entity_ids: list[JsonValue] = list(shown)
        return ToolReply(result, detail={"entity_ids": entity_ids})


def search(index: ContextIndex, model: HomeModel, arguments: JsonObject) -> list[str]:
    """Entity ids matching every given filter, in the overview's order."""
    name, area, floor = (str(arguments.get(key) or "").strip() for key in ("name", "area", "floor"))
    domain = fold(str(arguments.get("domain") or "").strip().lower())
    device_class = str(arguments.get("device_class") or "").strip().lower()
    if not (name or area or floor or domain or device_class):
        raise ToolError("Give at least one of name, area, floor, domain or device_class")
    keep: list[Callable[[str], bool]] = []
    if area:
        area_ids = _place_ids(
            "Area",
            area,
            index.area_phrases,
            lambda: (a.area_id for a in model.find_areas(area, loose=True)),
        )
        keep.append(lambda e: index.entities[e].area_id in area_ids)
    if floor:
        floor_ids = _place_ids(
            "Floor",
            floor,
            index.floor_phrases,
            lambda: (f.floor_id for f in model.find_floors(floor, loose=True)),
        )
        keep.append(lambda e: index.entities[e].floor_id in floor_ids)
    if domain:
        keep.append(lambda e: index.entities[e].domain == domain)
    if device_class:
        keep.append(lambda e: index.entities[e].device_class == device_class)
    if name:
        wanted = frozenset(words(name)) - FILLER or frozenset(words(name))
        keep.append(lambda e: wanted <= index.entity_words[e])
    found = [e for e in index.entities if all(test(e) for test in keep)]
    if not found and name:
        # No entity holds every word: the ones holding the most of the rarer ones, filtered.
        named = index.named(words(name), SEARCH_LIMIT)
        found = index.ordered(e for e in named if all(test(e) for test in keep[:-1]))
    return found


def _place_ids(
    kind: str,
    phrase: str,
    indexed: Mapping[Phrase, tuple[str, ...]],
    loose: Callable[[], Iterable[str]],
) -> frozenset[str]:
    """The areas (or floors) ``phrase`` names: by the index's phrases, else by a loose name.

    The loose lookup runs only when the phrases name none; none at all is an error for the model.
    """
    ids = frozenset(indexed.get(words(phrase), ())) or frozenset(loose())
    if not ids:
        raise ToolError(f"{kind} '{phrase}' does not exist")
    return ids
