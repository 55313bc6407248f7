"""Which entities a request in a large home is about, and why.

Above the overview's token budget the prompt no longer lists every entity; each turn lists the few
the request is likely about instead, after the cached prefix. They are drawn, in order of weight,
from: the names and aliases the request says (whole, or in part: "the ceiling light"), the areas and
floors it names (by name or alias, so "the lounge" is the Living Room, and "turn off the kitchen" is
everything in it), the kinds of device it mentions ("lights", "blinds", "temperature", and the
verbs, objects and uses that name them: "start vacuuming", "next song", "water the garden",
:mod:`addon.home.context.lexicon`), every device of a kind the request names without a name or a
place ("lock the door": every lock, the most recently changed first; above the cap the request's
words and "outside" first, spread over areas), entities acted on or asked about earlier in the
conversation, entities named in the memories recalled for it, entities near it by embedding when
there is an embedding source, and the speaker's area. Every entity keeps the reasons it was chosen
for, which the turn's trace shows. At most :data:`LIMIT` are chosen; the search tool finds the rest.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from addon.home.context.context_index import ContextIndex
from addon.home.context.lexicon import FILLER, KIND_WORDS, Kind
from addon.home.context.request_words import ParsedRequest, parse_request
from addon.home.model.records import EntityState

LIMIT = 40
"""Entities listed per turn at most: a whole area and the request's names fit, prefix stays ~97%."""
AREA_LIMIT = 30
"""Entities taken from one named area; the ones matching the request's words come first."""
NAME_LIMIT = 12
"""Home-wide name matches taken when the request names no place ("the desk lamp")."""
FLOOR_LIMIT = 15

# Weights: a named entity beats the rest of its area; history and memory beat the speaker's
# area, which is only where the speaker stands.
NAME, AREA, HISTORY, MEMORY, EMBEDDING, SPEAKER = 100.0, 50.0, 80.0, 70.0, 55.0, 30.0
EVERY_OF_KIND = 45.0
"""Every device of a kind named alone: above the speaker's area, below what a name or place says."""
SPREAD = 4
"""A kind above the cap is spread over areas among its likeliest ``SPREAD`` × the cap."""
MEDIA_ACTIVE = frozenset({"playing", "paused"})
"""States Home Assistant's media intents act on (next, volume, pause: playing; resume: paused)."""
KIND_BONUS, WORDS_BONUS = 40.0, 40.0


@dataclass(frozen=True, slots=True)
class SelectionRequest:
    """What a turn knows when it selects: the words, where they were said, what came before."""

    text: str
    speaker_area_id: str | None = None
    history_entity_ids: Sequence[str] = ()
    """Entities acted on or asked about in the conversation's recent turns."""
    memory_entity_ids: Sequence[str] = ()
    """Entities named in the memories recalled for this turn."""
    embedding_hits: Sequence[tuple[str, float]] = ()
    """``(entity id, cosine similarity)`` of the entities nearest the request, when embedded."""
    state: Callable[[str], EntityState | None] | None = None
    """An entity's current state: every device of a kind is listed most recently changed first
    (media players playing or paused before the rest)."""


@dataclass(frozen=True, slots=True)
class SelectedEntity:
    """One entity in the turn's context and why it is there."""

    entity_id: str
    reasons: tuple[str, ...]
    """The strongest first: ``name``, ``area``, ``floor``, ``every_of_kind`` (the request named
    its kind and no name or place, or a place without that kind), ``history``, ``memory``,
    ``embedding``, ``speaker_area``; ``kind`` beside a place's reason when the entity is of a
    kind the request named; ``outdoors`` beside ``every_of_kind`` when the request said
    "outside" and the entity's name or area is outdoors."""


@dataclass(frozen=True, slots=True)
class ContextSelection:
    """The entities chosen for one request, strongest first, and the places it named."""

    entities: tuple[SelectedEntity, ...]
    area_ids: tuple[str, ...] = ()
    floor_ids: tuple[str, ...] = ()
    kinds: tuple[Kind, ...] = ()
    kind_words: tuple[tuple[str, tuple[Kind, ...]], ...] = ()
    """Each word of the request that named a kind, with the kinds it was read as."""
    unlisted: tuple[tuple[Kind, int], ...] = ()
    """Each kind named alone with more devices than the cap let in, and how many were left out:
    the model is told they exist and that ``SearchEntities`` finds them."""

    @property
    def entity_ids(self) -> list[str]:
        """The chosen entity ids, strongest first."""
        return [selected.entity_id for selected in self.entities]

    def unlisted_note(self) -> str:
        """A line telling the model which kinds have more devices than it was shown, or ""."""
        if not self.unlisted:
            return ""
        counts = ", ".join(f"{left} more {_kind_text(kind)}" for kind, left in self.unlisted)
        return f"Not listed: {counts}; `SearchEntities` finds them by name, area or kind.\n"


def _kind_text(kind: Kind) -> str:
    domain, device_class = kind
    return domain if device_class is None else f"{domain} ({device_class})"


@dataclass(slots=True)
class _Scores:
    """Running score and reasons per entity while one selection is made."""

    score: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def add(self, entity_id: str, weight: float, reason: str) -> None:
        old = self.score.get(entity_id)
        if old is None:
            self.score[entity_id] = weight
            self.reasons[entity_id] = [reason]
            return
        # The best reason counts fully, every further one a little: two weak signals beat one.
        self.score[entity_id] = max(old, weight) + min(old, weight) * 0.1
        self.note(entity_id, reason)

    def note(self, entity_id: str, reason: str) -> None:
        """Record a further reason for an entity already scored, without changing its score."""
        if reason not in self.reasons[entity_id]:
            self.reasons[entity_id].append(reason)


def select(
    index: ContextIndex, request: SelectionRequest, *, limit: int = LIMIT
) -> ContextSelection:
    """The entities of ``index`` most likely meant by ``request``, at most ``limit``."""
    parsed = parse_request(index, request.text)
    scores = _Scores()
    _names(index, parsed, request, limit, scores)
    _places(index, parsed, scores)
    every = _every_of_kind(index, parsed, request, limit, scores)
    _given(index, request.history_entity_ids, HISTORY, "history", scores)
    _given(index, request.memory_entity_ids, MEMORY, "memory", scores)
    for entity_id, similarity in request.embedding_hits:
        if entity_id in index.entities:
            scores.add(entity_id, EMBEDDING + 20.0 * similarity, "embedding")
    if request.speaker_area_id is not None:
        area_entities = index.in_areas([request.speaker_area_id])
        for entity_id in _best(index, area_entities, parsed, AREA_LIMIT):
            scores.add(entity_id, SPEAKER + _bonus(index, entity_id, parsed), "speaker_area")
            _note_kind(index, parsed, entity_id, scores)
    rank = index.rank
    chosen = sorted(scores.score, key=lambda e: (-scores.score[e], rank.get(e, 0)))[:limit]
    listed = set(chosen)
    unlisted = tuple(
        (kind, left)
        for kind in sorted(parsed.kinds, key=str)
        if every and (left := len(index.by_kind.get(kind, frozenset()) - listed))
    )
    return ContextSelection(
        entities=tuple(SelectedEntity(e, tuple(scores.reasons[e])) for e in chosen),
        area_ids=parsed.area_ids,
        floor_ids=parsed.floor_ids,
        kinds=tuple(sorted(parsed.kinds, key=str)),
        kind_words=parsed.kind_words,
        unlisted=unlisted,
    )


def _names(
    index: ContextIndex,
    parsed: ParsedRequest,
    request: SelectionRequest,
    limit: int,
    scores: _Scores,
) -> None:
    """Whole names said in the request, then names holding its words in order, then partly.

    The longest name said wins: "the desk lamp" is the Desk Lamps, not every "Lamp". A whole
    name shared by more than :data:`NAME_LIMIT` entities says little beside a named place, whose
    own entities cover it; without one, every entity with it is taken, up to ``limit``, the most
    recently changed first: they are the ones meant, and their areas tell them apart (unless
    the speaker's area has one, as Home Assistant prefers the satellite's area). Two words
    said in the order a longer name has them ("the light strip": "Desk light strip", not "Strip
    Light") come next, then the few shortest names holding all the words.
    """
    said = parsed.all_words
    placed = bool(parsed.area_ids or parsed.floor_ids)
    # With a place named, a name elsewhere is likelier a coincidence ("the lamp in the office"
    # finds every "Office Lamp"): it stays, below the named place's own entities.
    weight = NAME - 40.0 if placed else NAME
    spans = [
        (start, start + length, found)
        for start in range(len(said))
        for length in range(1, min(index.name_reach.get(said[start], 0), len(said) - start) + 1)
        if (found := index.by_phrase.get(said[start : start + length], ()))
    ]
    whole = [
        (start, end, found)
        for start, end, found in spans
        if not any(s <= start and end <= e and e - s > end - start for s, e, _f in spans)
    ]
    speaker = index.in_areas([request.speaker_area_id] if request.speaker_area_id else [])
    for start, end, found in whole:
        if len(found) <= NAME_LIMIT:
            taken: Sequence[str] = found
        elif placed:
            continue
        elif any(index.entity_words[e].issuperset(said[start:end]) for e in speaker):
            taken = found[:NAME_LIMIT]  # the speaker's area has one: that one is meant
        else:
            taken = _newest(index, found, limit, request.state)
        for entity_id in taken:
            scores.add(entity_id, weight, "name")
    for start in range(len(said) - 1):
        pair = said[start : start + 2]
        if not FILLER.isdisjoint(pair) or any(s <= start and start + 2 <= e for s, e, _f in whole):
            continue
        found = index.by_pair.get(pair, ())
        if found and (len(found) <= NAME_LIMIT or not placed):
            for entity_id in found[:NAME_LIMIT]:
                scores.add(entity_id, weight - 5.0, "name")
    if not parsed.all_name_words:
        return
    named = index.named(parsed.all_name_words, NAME_LIMIT)
    if len(named) <= NAME_LIMIT or not placed:
        for entity_id in named[:NAME_LIMIT]:
            scores.add(entity_id, weight - 10.0, "name")


def _places(index: ContextIndex, parsed: ParsedRequest, scores: _Scores) -> None:
    """Everything in a named area (the matching ones first); what matches on a named floor."""
    for area_id in parsed.area_ids:
        area_entities = index.in_areas([area_id])
        for entity_id in _best(index, area_entities, parsed, AREA_LIMIT):
            scores.add(entity_id, AREA + _bonus(index, entity_id, parsed), "area")
            _note_kind(index, parsed, entity_id, scores)
    if not parsed.floor_ids or not (parsed.kinds or parsed.name_words):
        return
    on_floor = index.in_areas(a for f in parsed.floor_ids for a in index.by_floor.get(f, ()))
    matching = [e for e in on_floor if _bonus(index, e, parsed) > 0]
    for entity_id in _best(index, matching, parsed, FLOOR_LIMIT):
        scores.add(entity_id, AREA + _bonus(index, entity_id, parsed), "floor")
        _note_kind(index, parsed, entity_id, scores)


def _every_of_kind(
    index: ContextIndex,
    parsed: ParsedRequest,
    request: SelectionRequest,
    limit: int,
    scores: _Scores,
) -> bool:
    """Every device of the kinds the request named, the likeliest first, up to ``limit``.

    When the request names a kind and nothing narrower ("start vacuuming", "next song"): no
    place, and no name of a device of that kind (beyond the kind words themselves: "the door"
    is a kind, "the desk lamp" a name; "is the front door locked" names a door sensor, so the
    locks still come) unless the kind has no more devices than ``limit`` ("add eggs to the
    list" lists every to-do list, though "eggs" is in a name). Also when it names a place that
    has no device of the kind ("vacuum the kitchen": the vacuum lives in the hall). The speaker's
    area counts as named when it has one ("turn the lamp on" from a satellite), unless the
    request says "outside". Returns whether the kind was listed this way.

    When the kind has more devices than fit, the likeliest come first: outdoors when the
    request says "outside" (a name saying so before an area), then those whose names hold more
    of the request's words ("close the blind": "Office blind" before "Gym Shades"), then media
    players a command can act on, each spread over areas, then the most recently changed
    (:func:`_likeliest`).
    """
    if not parsed.kinds:
        return False
    speaker = request.speaker_area_id
    if (
        speaker is not None
        and not parsed.outside
        and any(index.is_kind(entity_id, parsed.kinds) for entity_id in index.in_areas([speaker]))
    ):
        return False
    places = parsed.area_ids or parsed.floor_ids
    if places:
        in_places = index.in_areas(
            (*parsed.area_ids, *(a for f in parsed.floor_ids for a in index.by_floor.get(f, ())))
        )
        if any(index.is_kind(entity_id, parsed.kinds) for entity_id in in_places):
            return False
    candidates = index.of_kinds(parsed.kinds)
    if (
        not places
        and len(candidates) > limit
        and any(word not in KIND_WORDS for word in parsed.name_words)
        and any(
            "name" in reasons and index.is_kind(entity_id, parsed.kinds)
            for entity_id, reasons in scores.reasons.items()
        )
    ):
        return False

    def likeliest(kinds: Iterable[Kind]) -> list[str]:
        ids = index.of_kinds(kinds)
        if len(ids) <= limit:
            return _newest(index, ids, limit, request.state)
        return _likeliest(index, ids, limit, request.state, parsed)

    # Each word's kind gets its share ("the blinds and the curtains"), the likeliest first.
    per_word = [likeliest(kinds) for _word, kinds in parsed.kind_words]
    chosen = list(dict.fromkeys(e for row in itertools.zip_longest(*per_word) for e in row if e))
    for position, entity_id in enumerate(chosen[:limit]):
        # A hair less each, so the cap keeps this order rather than the overview's.
        scores.add(entity_id, EVERY_OF_KIND - position * 0.01, "every_of_kind")
        if parsed.outside and entity_id in index.outdoor:
            scores.note(entity_id, "outdoors")
    return True


def _newest(
    index: ContextIndex,
    entity_ids: Iterable[str],
    limit: int,
    state: Callable[[str], EntityState | None] | None,
) -> list[str]:
    """At most ``limit`` of ``entity_ids``, most recently changed first (see :func:`_recency`)."""
    rank = index.rank
    if state is None:
        return heapq.nsmallest(limit, entity_ids, key=rank.__getitem__)
    return heapq.nsmallest(limit, entity_ids, key=lambda e: _recency(e, state(e), rank))


def _likeliest(
    index: ContextIndex,
    ids: frozenset[str] | set[str],
    limit: int,
    state: Callable[[str], EntityState | None] | None,
    parsed: ParsedRequest,
) -> list[str]:
    """``limit`` of a kind with more devices than that, the likeliest meant first.

    The request's words rank first: outdoors when it says "outside" (a name saying so before an
    area), then how many of its name words the entity's names hold (a word every candidate holds
    is skipped), then media players a command can act on (:func:`_recency`). Within each of
    these, the devices are spread over areas: each area's likeliest before any area's second,
    so the model sees every place that has one and can ask which is meant, rather than three
    blinds of one room and none of the next. Then the most recently changed.
    """
    rank = index.rank
    said: Counter[str] = Counter()
    for word in parsed.all_name_words:
        holding = ids & index.by_word.get(word, frozenset())
        if holding and len(holding) < len(ids):
            said.update(holding)
    if parsed.outside:
        for entity_id, outdoor in index.outdoor.items():
            if entity_id in ids:
                said[entity_id] += (2 - outdoor) * 100
    # The spread looks at the likeliest few times the cap, taken a whole tier at a time (all
    # holding two of the words, then one, then the rest), so a kind of thousands costs little.
    pool: list[str] = []
    for _count, tier in itertools.groupby(said.most_common(), key=lambda item: item[1]):
        pool.extend(entity_id for entity_id, _n in tier)
        if len(pool) >= SPREAD * limit:
            break
    else:
        pool.extend(ids - said.keys())

    get = said.get

    def key(entity_id: str) -> tuple[int, bool, float, int]:
        found = state(entity_id) if state is not None else None
        return (-get(entity_id, 0), *_recency(entity_id, found, rank))

    ordered = [(key(entity_id), entity_id) for entity_id in pool]
    if len(ordered) > SPREAD * limit:
        ordered = heapq.nsmallest(SPREAD * limit, ordered)
    else:
        ordered.sort()
    by_area: dict[str, int] = {}
    spread: list[tuple[int, bool, int, float, int, str]] = []
    for (first, idle, newest, order), entity_id in ordered:
        area = index.entities[entity_id].area_id or entity_id
        position = by_area[area] = by_area.get(area, -1) + 1
        spread.append((first, idle, position, newest, order, entity_id))
    return [row[-1] for row in heapq.nsmallest(limit, spread)]


def _recency(
    entity_id: str, state: EntityState | None, rank: Mapping[str, int]
) -> tuple[bool, float, int]:
    """Sort key: media players a media command can act on first, then the newest change."""
    if state is None:
        return (True, 0.0, rank[entity_id])
    idle = entity_id.startswith("media_player.") and state.state not in MEDIA_ACTIVE
    return (idle, -state.last_changed, rank[entity_id])


def _note_kind(index: ContextIndex, parsed: ParsedRequest, entity_id: str, scores: _Scores) -> None:
    """Mark an entity of a place that is of a kind the request named."""
    if parsed.kinds and index.is_kind(entity_id, parsed.kinds):
        scores.note(entity_id, "kind")


def _given(
    index: ContextIndex, entity_ids: Iterable[str], weight: float, reason: str, scores: _Scores
) -> None:
    """Entities handed in by the turn (history, memories): only those the index lists."""
    for entity_id in dict.fromkeys(entity_ids):
        if entity_id in index.entities:
            scores.add(entity_id, weight, reason)


def _bonus(index: ContextIndex, entity_id: str, parsed: ParsedRequest) -> float:
    """How well an entity of a place fits the request's kinds of device and name words."""
    bonus = KIND_BONUS if parsed.kinds and index.is_kind(entity_id, parsed.kinds) else 0.0
    if parsed.name_words:
        bonus += WORDS_BONUS * index.coverage(entity_id, parsed.name_words)
    return bonus


def _best(
    index: ContextIndex, entity_ids: Sequence[str], parsed: ParsedRequest, limit: int
) -> Sequence[str]:
    """``entity_ids`` if they fit ``limit``, else the ``limit`` matching the request best."""
    if len(entity_ids) <= limit:
        return entity_ids
    return sorted(entity_ids, key=lambda e: -_bonus(index, e, parsed))[:limit]
