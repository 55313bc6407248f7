"""What the model is shown of the home: the whole overview, or a summary and a per-turn list.

While the static overview fits the ``overview_token_budget`` option it is the prompt's home context,
exactly as before. Above the budget the cached prefix carries a compact summary
(:mod:`addon.home.context.summary`) and each turn adds, after the prefix, the entities selected for
it (:mod:`addon.home.context.selection`), and the model gets the ``SearchEntities`` tool to look
further. Everything derived from the home is built once per home model object and revision (an
entity added, removed or renamed in place), as the overview is: so are the home's tools
(:class:`~addon.tools.home_tools.HomeToolSet`), which every turn's registry starts with.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from addon.embeddings.source import EmbeddingSource
from addon.home.context.context_index import ContextIndex
from addon.home.context.entity_vectors import EntityVectors
from addon.home.context.lexicon import Kind, words
from addon.home.context.overview import OverviewCache, grouped_overview
from addon.home.context.selection import ContextSelection, SelectionRequest, select
from addon.home.context.summary import compact_summary
from addon.home.model.live import HomeModel
from addon.llm.messages import AssistantMessage, ChatMessage, ToolMessage
from addon.text import JsonObject, JsonValue
from addon.tools.home_tools import HomeToolSet

_LOGGER = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
"""The estimate the budget is measured in: tokenizer-free, as history's budget is."""
HISTORY_ENTITIES = 10
"""Entities taken from the conversation's recent tool calls, the newest first."""
EMBEDDING_HITS = 5
EMBEDDING_FLOOR = 0.2
"""Neighbours less similar than this are noise, whatever their rank."""


@dataclass(frozen=True, slots=True)
class HomePrefix:
    """The home's part of the cached prefix."""

    overview: str | None
    """The full static overview, or in a large home the summary; None when nothing is exposed."""
    large: bool


@dataclass(frozen=True, slots=True)
class TurnContext:
    """One turn's selection, its text for the model, and what the trace keeps of it."""

    selection: ContextSelection
    text: str
    elapsed_ms: float

    def trace(self, index: ContextIndex, searched: Iterable[str] = ()) -> JsonObject:
        """The selection and its reasons as the turn's trace stores them (JSON)."""
        chosen = {selected.entity_id for selected in self.selection.entities}
        found = [e for e in dict.fromkeys(searched) if e in index.entities and e not in chosen]
        selected: list[JsonValue] = [
            _entry(index, selected.entity_id, list(selected.reasons))
            for selected in self.selection.entities
        ]
        selected.extend(_entry(index, entity_id, ["search"]) for entity_id in found)
        return {
            "selected": selected,
            "areas": list(self.selection.area_ids),
            "floors": list(self.selection.floor_ids),
            "kinds": [_kind(kind) for kind in self.selection.kinds],
            "kind_words": {
                word: [_kind(kind) for kind in kinds] for word, kinds in self.selection.kind_words
            },
            "unlisted": {_kind(kind): left for kind, left in self.selection.unlisted},
            "select_ms": round(self.elapsed_ms, 3),
        }


def _kind(kind: Kind) -> str:
    domain, device_class = kind
    return domain if device_class is None else f"{domain}.{device_class}"


def _entry(index: ContextIndex, entity_id: str, reasons: list[JsonValue]) -> JsonObject:
    entity = index.entities[entity_id]
    return {"entity_id": entity_id, "name": entity.name, "reasons": reasons}


class HomeContext:
    """The prompt's home context and tools per home model (and revision); each turn's selection."""

    def __init__(self, budget_tokens: int, embedder: EmbeddingSource | None = None) -> None:
        self._budget = budget_tokens
        self._embedder = embedder
        self._overview = OverviewCache()
        self._model: HomeModel | None = None
        self._revision = 0
        self._prefix: HomePrefix | None = None
        self._index: ContextIndex | None = None
        self._vectors: EntityVectors | None = None
        self._vectors_failed = False
        self._tools: HomeToolSet | None = None

    def home_tools(self, model: HomeModel) -> HomeToolSet:
        """The home's tools and their entries for ``model``, made on first use."""
        self._refresh(model)
        if self._tools is None:
            self._tools = HomeToolSet.of(model)
        return self._tools

    def prefix(self, model: HomeModel) -> HomePrefix:
        """The full overview while it fits the budget, else the compact summary."""
        self._refresh(model)
        if self._prefix is None:
            overview = self._overview.get(model)
            if overview is not None and len(overview) // CHARS_PER_TOKEN + 1 > self._budget:
                self._prefix = HomePrefix(compact_summary(model), large=True)
            else:
                self._prefix = HomePrefix(overview, large=False)
        return self._prefix

    def index(self, model: HomeModel) -> ContextIndex:
        """The selection index of ``model``'s exposed entities, built on first use."""
        self._refresh(model)
        if self._index is None:
            self._index = ContextIndex.build(model)
        return self._index

    async def select(
        self,
        model: HomeModel,
        text: str,
        *,
        speaker_area_id: str | None,
        history: Sequence[ChatMessage],
        memory_entity_ids: Sequence[str] = (),
    ) -> TurnContext:
        """The entities for this turn and the block of text that lists them."""
        index = self.index(model)
        hits = await self._embedding_hits(index, text)
        started = time.perf_counter()
        selection = select(
            index,
            SelectionRequest(
                text=text,
                speaker_area_id=speaker_area_id,
                history_entity_ids=history_entity_ids(index, history),
                memory_entity_ids=memory_entity_ids,
                embedding_hits=hits,
                state=model.state,
            ),
        )
        elapsed = (time.perf_counter() - started) * 1000
        chosen = set(selection.entity_ids)
        entities = [index.entities[e] for e in index.ordered(chosen)]
        block = grouped_overview(model, entities, floors=False) if entities else "(none)\n"
        block += selection.unlisted_note()
        return TurnContext(selection, block, elapsed)

    def _refresh(self, model: HomeModel) -> None:
        if self._model is not model or self._revision != model.revision:
            self._model, self._revision = model, model.revision
            self._prefix = None
            self._index = None
            self._vectors = None
            self._vectors_failed = False
            self._tools = None

    async def _embedding_hits(self, index: ContextIndex, text: str) -> list[tuple[str, float]]:
        """Entities nearest the request by embedding; none without a source or when it fails.

        The entities are embedded on the first turn after the home changed: one batch call,
        then one call per turn for the request. A failure costs only this signal, never the
        turn, and is not retried for the same home.
        """
        if self._embedder is None or self._vectors_failed:
            return []
        try:
            if self._vectors is None:
                self._vectors = await EntityVectors.build(index, self._embedder)
            query = await self._embedder.embed([text])
        except Exception:  # any embedding failure only loses this signal
            _LOGGER.exception("Embedding entities for context selection failed; lexical only")
            self._vectors_failed = True
            return []
        hits = self._vectors.nearest(query[0], EMBEDDING_HITS)
        return [(entity_id, score) for entity_id, score in hits if score >= EMBEDDING_FLOOR]


def history_entity_ids(index: ContextIndex, history: Sequence[ChatMessage]) -> list[str]:
    """Entities the recent turns acted on or asked about, newest first.

    Read from the tool results (the ids Home Assistant's intent responses and live context
    report) and from the names the model passed to tools.
    """
    found: list[str] = []
    for message in reversed(history):
        if isinstance(message, ToolMessage):
            found.extend(_ids_in(_json(message.content), index))
        calls = message.tool_calls if isinstance(message, AssistantMessage) else ()
        for call in calls:
            arguments = _json(call.arguments)
            name = arguments.get("name") if isinstance(arguments, dict) else None
            if isinstance(name, str):
                matches = index.by_phrase.get(words(name), ())
                found.extend(matches[:3])
        if len(dict.fromkeys(found)) >= HISTORY_ENTITIES:
            break
    return list(dict.fromkeys(found))[:HISTORY_ENTITIES]


def _json(value: str) -> JsonValue:
    try:
        parsed: JsonValue = json.loads(value)
        return parsed
    except ValueError:
        return None


def _ids_in(value: JsonValue, index: ContextIndex) -> list[str]:
    """Every ``id``/``entity_id`` value in a tool result that names a listed entity."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("id", "entity_id") and isinstance(item, str) and item in index.entities:
                found.append(item)
            else:
                found.extend(_ids_in(item, index))
    elif isinstance(value, list):
        for item in value:
            found.extend(_ids_in(item, index))
    return found
