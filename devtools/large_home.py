"""Large generated homes and requests about them, written as people say them, targets known.

For the large-home benchmark (``bench/large_home.py``) and the selection tests: a home of about
``exposed`` entities exposed to Assist (:func:`large_home`, over :mod:`devtools.synthetic`) and
requests about it (:func:`generated_requests`) from templates over the home itself:

* partial names with an area, by name or alias ("switch on the ceiling light in the lounge");
* aliases as paraphrases ("the big light in the living room 3");
* area-only forms ("turn off the kitchen": everything that switches there);
* a kind of device in an area ("close the blinds in the office", "how warm is it in the gym");
* whole names, and names missing a word, where they are unique in the home;
* a partial name from a satellite in the entity's area ("turn on the desk lamp");
* follow-ups about the entity of the turn before ("turn it off again");
* a request whose entity only a recalled memory names ("put my reading light on").

Each request knows its targets: every exposed entity the words can mean (all lamps of an area
for "the lamps in the bedroom"). Requests for a whole floor or the whole home are left out:
the intent tools take a floor and a domain without any entity being listed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from addon.home.context.context_index import ContextIndex
from addon.home.context.lexicon import words
from addon.home.context.overview import overview_entities
from addon.home.model.entities import Entity
from addon.home.model.live import HomeModel
from addon.home.model.records import Area
from devtools.synthetic import SyntheticHome, synthetic_home

EXPOSED_SHARE = 0.62
"""About this share of a synthetic home's entities end up listed (exposed, not scripts)."""


@dataclass(frozen=True, slots=True)
class GeneratedRequest:
    """One request about a generated home and the entities it means."""

    text: str
    targets: frozenset[str]
    form: str
    speaker_area_id: str | None = None
    history_entity_ids: tuple[str, ...] = ()
    memory_entity_ids: tuple[str, ...] = ()


def large_home(exposed: int, *, seed: int = 0) -> tuple[SyntheticHome, HomeModel]:
    """A synthetic home with at least ``exposed`` listed entities (one correction if short)."""
    count = round(exposed / EXPOSED_SHARE)
    home = synthetic_home(count, seed=seed)
    model = home.build()
    listed = len(overview_entities(model))
    if listed < exposed:
        home = synthetic_home(count + round((exposed - listed) / EXPOSED_SHARE * 1.1), seed=seed)
        model = home.build()
    return home, model


_SWITCHABLE = frozenset({"light", "switch", "fan", "media_player"})
_VERBS: dict[str, tuple[str, ...]] = {
    "light": (
        "turn on the {p} in the {a}",
        "switch off the {a} {p}",
        "could you dim the {p} in the {a} to 30 percent",
        "{a} {p} on please",
        "is the {p} in the {a} on",
        "put the {p} in the {a} on",
    ),
    "switch": ("turn off the {p} in the {a}", "switch the {a} {p} on", "is the {p} in the {a} on"),
    "fan": ("turn on the {p} in the {a}", "set the {a} {p} to 66 percent"),
    "media_player": ("pause the {p} in the {a}", "turn the {a} {p} up", "what's on the {a} {p}"),
    "cover": ("open the {p} in the {a}", "close the {a} {p}", "set the {p} in the {a} to half"),
    "climate": ("set the {p} in the {a} to 21", "what is the {a} {p} set to"),
    "lock": ("lock the {p} in the {a}", "is the {a} {p} locked"),
    "vacuum": ("start the {p} in the {a}", "send the {a} {p} home"),
    "valve": ("close the {p} in the {a}", "is the {a} {p} open"),
    "sensor": ("what does the {p} in the {a} say", "what's the {a} {p} reading"),
    "binary_sensor": ("is the {p} in the {a} on", "what's the {a} {p} showing"),
}
_KIND_FORMS: tuple[tuple[str, str | None, str], ...] = (
    ("light", None, "turn off the lights in the {a}"),
    ("light", None, "are the lamps in the {a} on"),
    ("cover", "blind", "close the blinds in the {a}"),
    ("sensor", "temperature", "what's the temperature in the {a}"),
    ("sensor", "temperature", "how warm is it in the {a}"),
    ("sensor", "humidity", "how humid is the {a}"),
    ("binary_sensor", "window", "is any window open in the {a}"),
    ("binary_sensor", "motion", "has there been motion in the {a}"),
    ("binary_sensor", "door", "is the door in the {a} open"),
    ("fan", None, "turn on the fan in the {a}"),
    ("media_player", None, "pause the music in the {a}"),
)
_AREA_ONLY = ("turn off the {a}", "switch everything off in the {a}", "turn on the {a}")
_WHOLE = ("turn on {n}", "switch {n} off", "what's the state of {n}", "toggle the {n}")
_HISTORY = (
    ("turn on the {p} in the {a}", "turn it off again"),
    ("is the {p} in the {a} on", "ok switch it off then"),
    ("what's the {a} {p} reading", "and what was it before"),
)
_MEMORY = ("put my favourite light on", "turn on the usual one", "switch on my reading spot")


class _Generator:
    """Templates over one home; each method returns a request or None when it does not fit."""

    def __init__(self, model: HomeModel, rng: random.Random) -> None:
        self.model = model
        self.rng = rng
        self.index = ContextIndex.build(model)
        self.listed = list(self.index.entities.values())
        self.in_area = [e for e in self.listed if e.area_id in model.areas]

    def place(self, area: Area) -> str:
        """The area as someone might say it: its name, or one of its aliases."""
        return self.rng.choice((area.name, *area.aliases)).lower()

    def partial(self, entity: Entity, area: Area) -> tuple[str, bool]:
        """The name or an alias without its area in front ("Kitchen 3 Lamp" → "lamp").

        Also whether it is an alias (a paraphrase of the name the overview lists first).
        """
        aliased = entity.aliases and self.rng.random() < 0.6
        name = self.rng.choice(entity.aliases) if aliased else entity.name
        phrase = name.lower()
        for prefix in sorted((area.name, *area.aliases), key=len, reverse=True):
            if phrase.startswith(prefix.lower() + " "):
                phrase = phrase[len(prefix) + 1 :]
                break
        return phrase, name != entity.name

    def meant(self, area_id: str, phrase: str) -> frozenset[str]:
        """Entities of the area whose names hold every word of ``phrase``."""
        wanted = set(words(phrase))
        return frozenset(
            e for e in self.index.by_area.get(area_id, ()) if wanted <= self.index.entity_words[e]
        )

    def area_partial(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.in_area)
        area = self.model.areas[str(entity.area_id)]
        phrase, alias = self.partial(entity, area)
        template = self.rng.choice(_VERBS.get(entity.domain, _VERBS["light"]))
        text = template.format(p=phrase, a=self.place(area))
        targets = self.meant(area.area_id, phrase) | {entity.entity_id}
        return GeneratedRequest(text, targets, "area_alias" if alias else "area_partial")

    def area_only(self) -> GeneratedRequest | None:
        area = self.model.areas[str(self.rng.choice(self.in_area).area_id)]
        targets = frozenset(
            e
            for e in self.index.by_area.get(area.area_id, ())
            if self.index.entities[e].domain in _SWITCHABLE
        )
        if not targets:
            return None
        text = self.rng.choice(_AREA_ONLY).format(a=self.place(area))
        return GeneratedRequest(text, targets, "area_only")

    def area_kind(self) -> GeneratedRequest | None:
        domain, device_class, template = self.rng.choice(_KIND_FORMS)
        area = self.model.areas[str(self.rng.choice(self.in_area).area_id)]
        targets = frozenset(
            e
            for e in self.index.by_area.get(area.area_id, ())
            if self.index.entities[e].domain == domain
            and (device_class is None or self.index.entities[e].device_class == device_class)
        )
        if not targets:
            return None
        return GeneratedRequest(template.format(a=self.place(area)), targets, "area_kind")

    def whole_name(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.listed)
        name = self.rng.choice(entity.names)
        if len(self.index.by_phrase.get(words(name), ())) != 1:
            return None
        text = self.rng.choice(_WHOLE).format(n=name.lower())
        return GeneratedRequest(text, frozenset({entity.entity_id}), "whole_name")

    def missing_word(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.listed)
        said = list(words(entity.name))
        if len(said) < 3:
            return None
        del said[self.rng.randrange(len(said))]
        if self.index.named(said, 1) != (entity.entity_id,):
            return None
        text = self.rng.choice(_WHOLE).format(n=" ".join(said))
        return GeneratedRequest(text, frozenset({entity.entity_id}), "missing_word")

    def speaker(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.in_area)
        area = self.model.areas[str(entity.area_id)]
        phrase, _alias = self.partial(entity, area)
        template = self.rng.choice(_VERBS.get(entity.domain, _VERBS["light"]))
        text = template.replace(" in the {a}", "").replace("{a} ", "").format(p=phrase)
        targets = self.meant(area.area_id, phrase) | {entity.entity_id}
        return GeneratedRequest(text, targets, "speaker_area", speaker_area_id=area.area_id)

    def follow_up(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.in_area)
        _first, second = self.rng.choice(_HISTORY)
        targets = frozenset({entity.entity_id})
        return GeneratedRequest(second, targets, "history", history_entity_ids=(entity.entity_id,))

    def remembered(self) -> GeneratedRequest | None:
        entity = self.rng.choice(self.listed)
        targets = frozenset({entity.entity_id})
        text = self.rng.choice(_MEMORY)
        return GeneratedRequest(text, targets, "memory", memory_entity_ids=(entity.entity_id,))


_FORMS: tuple[tuple[int, Callable[[_Generator], GeneratedRequest | None]], ...] = (
    (30, _Generator.area_partial),
    (10, _Generator.area_only),
    (20, _Generator.area_kind),
    (10, _Generator.whole_name),
    (8, _Generator.missing_word),
    (12, _Generator.speaker),
    (5, _Generator.follow_up),
    (5, _Generator.remembered),
)


def generated_requests(model: HomeModel, count: int, *, seed: int = 0) -> list[GeneratedRequest]:
    """``count`` distinct requests about ``model``, in the proportions of :data:`_FORMS`."""
    rng = random.Random(seed)
    generator = _Generator(model, rng)
    weights = [weight for weight, _form in _FORMS]
    seen: set[tuple[str, str | None]] = set()
    made: list[GeneratedRequest] = []
    attempts = 0
    while len(made) < count and attempts < count * 50:
        attempts += 1
        form = rng.choices(_FORMS, weights)[0][1]
        request = form(generator)
        if request is None or (request.text, request.speaker_area_id) in seen:
            continue
        if request.form not in ("history", "memory"):
            seen.add((request.text, request.speaker_area_id))
        made.append(request)
    return made
