"""Home Assistant's intents tests run through our local path and through hassil, scored alike.

The suite (tests/data/intents_suite/<tag>/, made by :mod:`devtools.intents_tests`) holds, for
each pinned ``home-assistant-intents`` (:data:`TAGS`) and served language, fixture homes and
sentences with the intent and slots each must give. Each tag is read as the Home Assistant
release that runs those sentences (:data:`RELEASES`). Two runners read each sentence in its home:

* :class:`OursRunner`: our local path's :class:`~addon.local.matcher.LocalMatcher` over a
  :class:`~addon.home.model.live.HomeModel` of the fixture home, everything exposed, the home
  reporting the tag's release as its version (what the product reads from ``get_config``, so
  every release-dependent behaviour is that release's); a sentence for an intent we do not
  handle locally gets no match, which counts as a miss.
* :class:`HassilRunner`: hassil as that release's default agent runs it: its sentences
  (2025.3.28 for Home Assistant 2025.4.4, 2026.10.27 for 2026.11.0; every intent), its slot
  lists (names and aliases with ``{"domain", "device_class"}`` as context, areas, floors) and
  ``recognize_best`` preferring a name, with only the satellite's area known as intent context.
  2025.4 offers hassil the names a trie finds in the text; 2026.11 offers every name, each with
  its punctuation removed, and areas and floors likewise (``_make_slot_lists``). 2026.11's
  gazetteer fallback, tried only when no other agent is configured behind the default one, is
  not run: it is not the recognizer the tests are written for.

:func:`score` judges a reading as the repository's test script (tests/test_language_sentences.py)
does: the intent name equal; every slot matched is expected, with the same value (a list on
either side: one of / a subset of); every slot expected is matched. Two things are added: an
area or floor named by another of its names (or in another case) is the same value, as Home
Assistant resolves it; and a reading that lacks an expected slot but contradicts none is
:attr:`Outcome.PARTIAL`, not right and not wrong. The script's check of
hassil's internal ``result.context`` is not made: it is not a slot, has no effect on what is
done, and our matcher does not return it. Where the test gives an ``area`` context, both runners
are told that area as the satellite's; other context keys (``domain``, ``device_class``) are
the script's way to satisfy a template's ``requires_context``, which Home Assistant never passes
in, so neither runner gets them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from hassil import Intents, TextSlotList, TextSlotValue, Trie
from hassil.recognize import recognize_best
from hassil.util import remove_punctuation
from home_assistant_intents import get_intents

from addon.home.model.live import HomeModel
from addon.local.language import LEGACY_DIR
from addon.local.library import SentenceLibrary
from addon.local.matcher import LocalMatcher

SUITE_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "intents_suite"
LANGUAGES = ("en", "de", "fr", "es", "nl", "it", "pl", "pt")
TAGS = ("2025.3.28", "2026.10.27")
"""The pinned ``home-assistant-intents`` versions (requirements-intents.txt, requirements.txt):
one copy of the repository's tests each."""
RELEASES = {"2025.3.28": "2025.4.4", "2026.10.27": "2026.11.0"}
"""The Home Assistant release whose agent runs each tag's sentences."""
STAND_IN = frozenset({"2026.10.27"})
"""Tags whose copy was made from an earlier commit (the stored snapshot of the repository
lacks the tag; see the copy's README): a few of its tests predate a change the pinned
sentences made, and Home Assistant itself no longer reads them as they expect."""
_METADATA_CUSTOM_SENTENCE = "hass_custom_sentence"
"""Home Assistant's ``METADATA_CUSTOM_SENTENCE``: its agent prefers custom sentences."""
_LIGHT = {"supported_color_modes": ["brightness"], "color_mode": "brightness"}
"""A fixture light as Home Assistant would hold a dimmable one (the fixtures give no modes)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One sentence and what Home Assistant's test says it must give."""

    language: str
    file: str
    """The test file's stem (``light_HassTurnOn``)."""
    sentence: str
    intent: str
    slots: Mapping[str, Any]
    area: str | None
    """The area the test says the sentence was heard in (its ``context``), if any."""
    one_of: frozenset[str] = frozenset()
    """Slots whose expected list is the values allowed, one or several of them (a
    slot-combination file's implied domains), rather than values all to be given."""
    home: str = ""
    """The key of the case's own home in :attr:`Suite.homes` (a slot-combination file's);
    empty for the language's shared fixture home."""


@dataclass(frozen=True, slots=True)
class Suite:
    """One language's fixture home and cases."""

    language: str
    home: Mapping[str, Any]
    cases: tuple[Case, ...]
    tag: str = TAGS[0]
    homes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Homes of their own, by test file: from 2026 the repository gives each file one."""

    def home_of(self, case: Case) -> Mapping[str, Any]:
        """The fixture home ``case`` is read in."""
        return self.homes[case.home] if case.home else self.home

    @property
    def release(self) -> str:
        """The Home Assistant release that runs this tag's sentences."""
        return RELEASES[self.tag]


@dataclass(frozen=True, slots=True)
class Reading:
    """What a runner made of a sentence: an intent and its slots, or nothing."""

    intent: str | None
    slots: Mapping[str, Any]


NO_MATCH = Reading(None, {})


class Outcome(StrEnum):
    """How a reading compares with the expected intent and slots."""

    RIGHT = "right"
    MISS = "miss"
    """No match: the sentence would go elsewhere (the model, or nothing)."""
    PARTIAL = "partial"
    """The intent and every slot given agree, but a slot the test expects is missing (mostly
    ``domain`` and ``device_class``, which hassil copies from the named entity): not right by
    the repository's rule, yet nothing given contradicts it."""
    STALE = "stale"
    """At a :data:`STAND_IN` tag: the very reading hassil gives with the pinned sentences, as
    the Home Assistant release runs them, where the test (older than those sentences) expects
    another. Not right, and no other effect than that Home Assistant's own."""
    WRONG = "wrong"
    """A match with another intent, a slot value that differs, or a slot the test does not
    expect (an added ``domain`` narrows the targets): it may act differently."""


def load(language: str, tag: str = TAGS[0], root: Path = SUITE_DIR) -> Suite:
    """Read one language's generated suite at ``tag``."""
    data = json.loads((root / tag / f"{language}.json").read_text(encoding="utf-8"))
    homes = data.get("homes", {})
    cases = tuple(
        Case(
            language=language,
            file=test["file"],
            sentence=sentence,
            intent=test["intent"],
            slots=test["slots"],
            area=_context_area(test["context"]),
            one_of=frozenset(test.get("one_of", ())),
            home=test["file"] if test["file"] in homes else "",
        )
        for test in data["tests"]
        for sentence in test["sentences"]
    )
    return Suite(language, data["home"], cases, tag, homes)


def _context_area(context: Mapping[str, Any]) -> str | None:
    area = context.get("area")
    if isinstance(area, list):
        area = area[0] if area else None
    return None if area is None else str(area)


def _plain(value: Any) -> Any:
    """A value as the test file writes it: whole floats as ints, text stripped."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def places(home: Mapping[str, Any]) -> dict[str, str]:
    """Each area's and floor's names, case folded, to its id: names of one place are one value.

    The fixtures give some areas as templates ("Salon[ie]", Polish cases) and some tests write
    an area in another case than the fixture; Home Assistant resolves either to the same area,
    so a reading naming it by another of its names acts alike and is scored alike.
    """
    named = {
        text.casefold(): str(place["id"])
        for kind in ("areas", "floors")
        for place in home.get(kind, [])
        for text in place["names"]
    }
    # Some tests give the satellite's area by its id in words ("Living Room" for the French
    # fixture's "salon", id living_room): the satellite is in that area, whatever it is called.
    by_id = {
        str(place["id"]).replace("_", " ").casefold(): str(place["id"])
        for kind in ("areas", "floors")
        for place in home.get(kind, [])
    }
    return {**by_id, **named}


def implied_domains(home: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Each device class of the fixture home to the domains its entities are in.

    A reading that adds ``domain: cover`` to "open the windows" (Home Assistant 2026.11's own
    sentences do) opens the same entities when every window of the home is a cover: the extra
    slot changes nothing, so it is not scored as another effect.
    """
    found: dict[str, set[str]] = {}
    for entity_id, entity in _entity_rows(home):
        device_class = entity["attributes"].get("device_class")
        if isinstance(device_class, str):
            found.setdefault(device_class, set()).add(entity_id.split(".", 1)[0])
    return {device_class: frozenset(domains) for device_class, domains in found.items()}


def _slot_fits(
    name: str,
    expected: Any,
    matched: Any,
    same_place: Mapping[str, str] | None = None,
    one_of: bool = False,
) -> bool:
    """The repository's comparison of one slot, lists on either side included.

    ``one_of``: the expected list holds the values allowed; what is read must be among them.
    """
    expected, matched = _plain(expected), _plain(matched)
    if same_place and name in ("area", "floor"):
        expected, matched = _place(expected, same_place), _place(matched, same_place)
    if one_of and isinstance(expected, list):
        return set(matched if isinstance(matched, list) else [matched]) <= set(expected)
    if isinstance(expected, list):
        if isinstance(matched, list):
            return set(expected).issubset(matched)
        return matched in set(expected)
    if isinstance(matched, list):
        return expected in matched
    return bool(expected == matched)


_READS = frozenset({"HassGetState"})
"""Intents that read: an added domain narrows what they report, so it always counts."""
_READ_ONLY = frozenset({"sensor", "binary_sensor"})
"""Domains no action can change: an action's added domain that leaves them out loses nothing."""


def _implied(
    expected: Mapping[str, Any],
    domain: Any,
    domains: Mapping[str, frozenset[str]] | None,
    *,
    acts: bool = False,
) -> bool:
    """Whether ``domain`` holds every entity of the expected device class anyway.

    For an action (``acts``), entities no action can change (a window's binary sensor beside
    its cover) are left out: "open the windows" opens the same covers either way. A class the
    home has none of is acted on nowhere either way.
    """
    if domains is None or "device_class" not in expected:
        return False
    classes = _plain(expected["device_class"])
    classes = classes if isinstance(classes, list) else [classes]
    said = _plain(domain)
    said = set(said) if isinstance(said, list) else {said}
    ignored = _READ_ONLY if acts else frozenset()
    # A class the home has none of is acted on nowhere, with the added domain or without it.
    return all((domains.get(str(kind), frozenset()) - ignored) <= said for kind in classes)


def _place(value: Any, same_place: Mapping[str, str]) -> Any:
    """An area or floor value as its place's id, when it names one."""
    if isinstance(value, list):
        return [_place(item, same_place) for item in value]
    if isinstance(value, str):
        return same_place.get(value.casefold(), value)
    return value


def score(
    case: Case,
    reading: Reading,
    same_place: Mapping[str, str] | None = None,
    domains: Mapping[str, frozenset[str]] | None = None,
) -> Outcome:
    """Judge ``reading`` as tests/test_language_sentences.py judges hassil's result.

    Right only when the script would pass it. ``same_place`` (:func:`places`) makes an area or
    floor named by another of its names the same value; ``domains`` (:func:`implied_domains`)
    lets a reading add the one domain every entity of the expected device class is in.
    """
    if reading.intent is None:
        return Outcome.MISS
    if reading.intent != case.intent:
        return Outcome.WRONG
    expected = case.slots
    for name, value in reading.slots.items():
        if (
            name == "domain"
            and name not in expected
            and _implied(expected, value, domains, acts=case.intent not in _READS)
        ):
            continue
        if name not in expected or not _slot_fits(
            name, expected[name], value, same_place, name in case.one_of
        ):
            return Outcome.WRONG
    if any(name not in reading.slots for name in expected):
        return Outcome.PARTIAL
    return Outcome.RIGHT


def _entity_rows(home: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each fixture entity with a unique id (a few fixtures repeat one; the later gets ``_2``)."""
    seen: set[str] = set()
    for entity in home["entities"]:
        entity_id = entity["id"]
        number = 2
        while entity_id in seen:
            entity_id = f"{entity['id']}_{number}"
            number += 1
        seen.add(entity_id)
        yield entity_id, entity


def home_model(suite: Suite, home: Mapping[str, Any] | None = None) -> HomeModel:
    """A fixture home as a :class:`HomeModel`: every entity exposed, names then aliases.

    The home runs the tag's release (``version``), as a connected Home Assistant reports it.
    """
    home = suite.home if home is None else home
    states = {}
    for entity_id, entity in _entity_rows(home):
        base = _LIGHT if entity_id.startswith("light.") else {}
        attributes = {**base, **entity["attributes"], "friendly_name": entity["names"][0]}
        states[entity_id] = {"s": entity["state"], "a": attributes}
    return HomeModel.build(
        config={
            "location_name": "Intents fixture",
            "language": suite.language,
            "version": suite.release,
        },
        floors=[
            {"floor_id": f["id"], "name": f["names"][0], "aliases": f["names"][1:], "level": i}
            for i, f in enumerate(home["floors"])
        ],
        areas=[
            {
                "area_id": a["id"],
                "name": a["names"][0],
                "aliases": a["names"][1:],
                "floor_id": a["floor"],
            }
            for a in home["areas"]
        ],
        devices=[],
        entities=[
            {"entity_id": entity_id, "area_id": entity["area"], "platform": "intents_fixture"}
            for entity_id, entity in _entity_rows(home)
        ],
        entity_details={
            entity_id: {
                "aliases": entity["names"][1:],
                "options": {"conversation": {"should_expose": True}},
            }
            for entity_id, entity in _entity_rows(home)
        },
        exposure={},
        states=states,
    )


def area_id(home: Mapping[str, Any], name: str | None) -> str | None:
    """The id of the fixture area called ``name`` (case aside), None when none is.

    Also by its id in words: a test may give the satellite's area as "Living Room" in a home
    whose area living_room is called "salon".
    """
    if name is None:
        return None
    wanted = name.casefold()
    for area in home["areas"]:
        if any(text.casefold() == wanted for text in area["names"]):
            return str(area["id"])
    for area in home["areas"]:
        if str(area["id"]).replace("_", " ").casefold() == wanted:
            return str(area["id"])
    return None


class OursRunner:
    """Our local path's matcher over the fixture home of one language."""

    def __init__(
        self,
        suite: Suite,
        library: SentenceLibrary | None = None,
        home: Mapping[str, Any] | None = None,
    ) -> None:
        """Build the home (default: the suite's shared one); sentences load on first use."""
        self._home = suite.home if home is None else home
        self._model = home_model(suite, self._home)
        self._matcher = LocalMatcher(suite.language, library=library)

    def read(self, case: Case) -> Reading:
        """Our match for the case's sentence, heard in its area."""
        match = self._matcher.recognize(
            case.sentence,
            self._model,
            preferred_area_id=area_id(self._home, case.area),
            language=case.language,
        )
        if match is None:
            return NO_MATCH
        slots = {k: v for k, v in match.slots.items() if k != "preferred_area_id"}
        return Reading(match.intent, slots)


def legacy_intents(language: str, root: Path = LEGACY_DIR) -> Intents:
    """Home Assistant 2025.4.4's sentences for ``language``: every intent, as its agent has."""
    path = root / "home_assistant_intents" / "data" / f"{language}.json"
    return Intents.from_dict(json.loads(path.read_text(encoding="utf-8")))


def release_intents(language: str, tag: str) -> Intents:
    """The sentences Home Assistant's agent matches with at ``tag``: every intent."""
    if tag == TAGS[0]:
        return legacy_intents(language)
    return Intents.from_dict(get_intents(language))


class HassilRunner:
    """hassil as the tag's Home Assistant release runs it in its default agent, on one home."""

    def __init__(
        self,
        suite: Suite,
        intents: Intents | None = None,
        home: Mapping[str, Any] | None = None,
    ) -> None:
        """The slot lists of that release's ``_make_slot_lists``: names, areas, floors."""
        self._intents = (
            intents if intents is not None else release_intents(suite.language, suite.tag)
        )
        home = suite.home if home is None else home
        # 2025.4 offers the names a trie finds in the text; 2026.11 every name, and the text
        # of each name, area and floor without its punctuation.
        self._by_trie = suite.tag == TAGS[0]
        clean = (lambda text: text) if self._by_trie else _unpunctuated
        self._names = Trie()
        every: list[TextSlotValue] = []
        for entity_id, entity in _entity_rows(home):
            context = {"domain": entity_id.split(".", 1)[0]}
            if (device_class := entity["attributes"].get("device_class")) is not None:
                context["device_class"] = device_class
            for text in entity["names"]:
                if not clean(text):
                    continue
                value = TextSlotValue.from_tuple((clean(text), text, context), allow_template=False)
                self._names.insert(text.lower(), value)
                every.append(value)
        self._every = TextSlotList(name="name", values=every)
        self._area = TextSlotList.from_tuples(
            [(clean(text), text) for area in home["areas"] for text in area["names"]],
            allow_template=False,
            name="area",
        )
        self._floor = TextSlotList.from_tuples(
            [
                (clean(text), floor["names"][0])
                for floor in home["floors"]
                for text in floor["names"]
            ],
            allow_template=False,
            name="floor",
        )

    def read(self, case: Case) -> Reading:
        """The best match hassil finds, with the case's area as the satellite's."""
        if self._by_trie:
            found = [value for _end, _text, value in self._names.find(case.sentence.lower())]
            names = TextSlotList(name="name", values=found)
        else:
            names = self._every
        context = None
        if case.area is not None:
            context = {"area": {"value": case.area, "text": case.area}}
        result = recognize_best(
            case.sentence,
            self._intents,
            slot_lists={
                "name": names,
                "area": self._area,
                "floor": self._floor,
            },
            intent_context=context,
            language=self._intents.language,
            best_metadata_key=_METADATA_CUSTOM_SENTENCE,
            best_slot_name="name",
        )
        if result is None:
            return NO_MATCH
        return Reading(result.intent.name, {e.name: e.value for e in result.entities_list})


@dataclass(frozen=True, slots=True)
class Scored:
    """One case with both readings and their outcomes."""

    case: Case
    ours: Reading
    hassil: Reading
    ours_outcome: Outcome
    hassil_outcome: Outcome


def same_reading(one: Reading, other: Reading) -> bool:
    """The same intent and the same slot values (a value and a list of it alike)."""

    def values(slots: Mapping[str, Any]) -> dict[str, Any]:
        plain = {k: _plain(v) for k, v in slots.items()}
        return {k: v[0] if isinstance(v, list) and len(v) == 1 else v for k, v in plain.items()}

    return one.intent == other.intent and values(one.slots) == values(other.slots)


def with_satellite_areas(home: Mapping[str, Any], areas: set[str]) -> Mapping[str, Any]:
    """``home`` with an area for each satellite's area the tests name and its fixture lacks.

    A few tests put the satellite in an area their fixture home does not have (the French
    "bureau"); in Home Assistant a satellite's area is always one of the home's, so the home
    gets it, empty. hassil is told the area's name either way; our matcher needs its id.
    """
    missing = sorted(a for a in areas if area_id(home, a) is None)
    if not missing:
        return home
    added = [
        {"id": f"satellite_{i}", "names": [name], "floor": None} for i, name in enumerate(missing)
    ]
    return {**home, "areas": [*home["areas"], *added]}


def _unpunctuated(text: str) -> str:
    return str(remove_punctuation(text)).strip()


def run(
    suite: Suite, *, limit: int | None = None, library: SentenceLibrary | None = None
) -> list[Scored]:
    """Both runners on the suite's first ``limit`` cases (all by default), each in its home."""
    if library is None:
        library = SentenceLibrary()
    intents = release_intents(suite.language, suite.tag)
    runners: dict[str, tuple[OursRunner, HassilRunner, dict[str, str], Any]] = {}
    results = []
    cases = suite.cases[:limit]
    for case in cases:
        if case.home not in runners:
            home = with_satellite_areas(
                suite.home_of(case), {c.area for c in cases if c.home == case.home and c.area}
            )
            runners[case.home] = (
                OursRunner(suite, library, home),
                HassilRunner(suite, intents, home),
                places(home),
                implied_domains(home),
            )
        ours, hassil, same_place, domains = runners[case.home]
        ours_reading, hassil_reading = ours.read(case), hassil.read(case)
        ours_outcome = score(case, ours_reading, same_place, domains)
        hassil_outcome = score(case, hassil_reading, same_place, domains)
        if (
            suite.tag in STAND_IN
            and hassil_outcome is Outcome.WRONG
            and same_reading(ours_reading, hassil_reading)
        ):
            ours_outcome = hassil_outcome = Outcome.STALE
        results.append(Scored(case, ours_reading, hassil_reading, ours_outcome, hassil_outcome))
    return results
