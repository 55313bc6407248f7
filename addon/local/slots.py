"""From a home to hassil's slot lists, and from hassil's match to our intent slots.

Slot lists follow Home Assistant 2025.4's ``DefaultAgent._make_slot_lists``:

* ``name``: every exposed entity with a state, by its aliases and its name, each with itself as
  the value (Home Assistant does not use entity ids because two entities may share a name; the
  intent handler resolves the name) and ``{"domain": …, "device_class": …}`` as context, which
  sentences test with ``requires_context``;
* ``area``: every area by name and by alias, the alias itself as the value;
* ``floor``: every floor by name and by alias, the floor's name as the value.

Per recognition, the ``name`` list is cut to the names that occur in the text (Home Assistant's
trie filter): hassil then tries a handful of names instead of the whole home.

Slots are then shaped as our ``handle_intent`` (and Home Assistant's intent handlers after
voluptuous) take them: ``{"name": "Kitchen Lights", "domain": ["light"], "brightness": 50}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hassil.intents import SlotList, TextSlotList, TextSlotValue
from hassil.recognize import RecognizeResult
from hassil.trie import Trie

from addon.home.actions.intents import ASSISTANT, IntentSpec, SlotKind
from addon.home.actions.service_intents import service_rule
from addon.home.model.live import HomeModel
from addon.home.model.names import normalize_name
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints
from addon.text import JsonObject, JsonValue


@dataclass(frozen=True, slots=True)
class HomeSlotLists:
    """The slot lists of one home; built once per :class:`HomeModel` object."""

    names: Trie
    """Lower-cased name or alias → its :class:`TextSlotValue` (several for a shared name)."""
    area: TextSlotList
    floor: TextSlotList
    name_count: int

    @classmethod
    def build(cls, model: HomeModel, *, exposed: bool = True) -> HomeSlotLists:
        """Read the exposed entities, areas and floors of ``model``.

        ``exposed=False`` reads the names of the entities *not* exposed instead, for Home
        Assistant's second stage (``_get_unexposed_entity_names``): a sentence that matches
        only with one of them is answered "… is not exposed", never acted on.
        """
        names = Trie()
        count = 0
        entities = (
            model.exposed_entities()
            if exposed
            else [
                entity
                for entity_id in model.entity_ids()
                if (entity := model.entity(entity_id)) is not None and not model.is_exposed(entity)
            ]
        )
        for entity in entities:
            # DEFAULT_EXPOSED_ATTRIBUTES is just device_class, read from the state.
            context: dict[str, str] = {"domain": entity.domain}
            if entity.device_class is not None:
                context["device_class"] = entity.device_class
            for text in (*entity.aliases, entity.name):
                text = text.strip()
                if not text:
                    continue
                value = TextSlotValue.from_tuple((text, text, context), allow_template=False)
                names.insert(text.lower(), value)
                count += 1
        area_names = [
            (text, text)
            for area in model.areas.values()
            for text in _texts(area.name, area.aliases)
        ]
        floor_names = [
            (text, floor.name)
            for floor in model.floors.values()
            for text in _texts(floor.name, floor.aliases)
        ]
        return cls(
            names=names,
            area=TextSlotList.from_tuples(area_names, allow_template=False, name="area"),
            floor=TextSlotList.from_tuples(floor_names, allow_template=False, name="floor"),
            name_count=count,
        )

    def for_text(self, text: str) -> dict[str, SlotList]:
        """Slot lists for recognising ``text``: only the names that occur in it."""
        found = [value for _end, _text, value in self.names.find(text.strip().lower())]
        return {
            "area": self.area,
            "floor": self.floor,
            "name": TextSlotList(name="name", values=found),
        }


def _texts(name: str, aliases: tuple[str, ...]) -> list[str]:
    """The name then each non-blank alias, stripped."""
    return [text for text in (name.strip(), *(alias.strip() for alias in aliases)) if text]


def speech_slots(result: RecognizeResult) -> dict[str, object]:
    """Each slot's spoken text, else its value: the ``slots`` a response template reads."""
    return {entity.name: entity.text or entity.value for entity in result.entities_list}


def intent_slots(
    result: RecognizeResult, spec: IntentSpec, *, preferred_area_id: str | None = None
) -> JsonObject | None:
    """The recognised slots shaped for ``handle_intent``; None if one is not ``spec``'s.

    Home Assistant passes ``{"value", "text"}`` per slot and its handlers' voluptuous schemas
    convert the values; we convert here instead: lists for list slots ("light" → ["light"]),
    whole numbers as ints (hassil's ranges give 50.0), wildcard text stripped.
    """
    slots: JsonObject = {}
    for entity in result.entities_list:
        slot = spec.slot(entity.name)
        if slot is None:
            return None
        value = entity.value
        if isinstance(value, str):
            value = value.strip()
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        if slot.kind is SlotKind.TEXT_LIST and not isinstance(value, list):
            value = [value]
        slots[entity.name] = value
    if preferred_area_id is not None:
        slots["preferred_area_id"] = preferred_area_id
    return slots


ITEM_ONLY_INTENTS = frozenset({"HassShoppingListAddItem", "HassShoppingListCompleteItem"})
"""Intents whose only slot is free text by design: the shopping list's item. Their sentences
name the list in words ("… to my shopping list"), so the item is free text only when it holds
most of the sentence."""

TITLE_SLOTS = frozenset({("HassMediaSearchAndPlay", "search_query")})
"""Wildcards that hold a title by design: what to play. Its templates frame it with a play
verb and nothing else ("play {search_query}", "spiele {search_query} ab"), and a title is most
of such a sentence ("play The Dark Side of the Moon"), so it is never counted as free text: a
sentence that says something else is read by its own, more literal template first (hassil's
order), and a search that finds nothing fails back to the model."""


def wildcard_heavy(result: RecognizeResult, text: str, model: HomeModel | None = None) -> bool:
    """True when free text (a wildcard slot) carries the sentence rather than the template.

    A sentence whose only slots are wildcards (but for :data:`ITEM_ONLY_INTENTS`), or whose
    wildcards hold more than half of its words, matched a catch-all template ("add {item} to
    …") more than it matched a command; the model reads such sentences better than a template
    does. A wildcard that holds a name the home knows is not free text: Home Assistant's zones
    are a wildcard list ("how many people are at {zone}"), and a zone's name or a state a
    person is in reads as a list value. Nor is a title to play (:data:`TITLE_SLOTS`).
    """
    known = _place_names(model) if model is not None else frozenset()
    about_people = "person" in reading_values(result, "domain")
    spoken = [entity for entity in result.entities_list if entity.text]
    wildcards = [
        entity
        for entity in spoken
        if entity.is_wildcard
        # Where people are: a zone is a place's name, whether or not the home knows it (a
        # name is a word or two; "Türen im Flur öffnen" is a command a catch-all swallowed).
        and not (
            about_people
            and entity.name in ("state", "zone")
            and len(str(entity.text).split()) <= _PLACE_WORDS
        )
        and normalize_name(str(entity.text)) not in known
        and (result.intent.name, entity.name) not in TITLE_SLOTS
    ]
    if not wildcards:
        return False
    if len(wildcards) == len(spoken) and result.intent.name not in ITEM_ONLY_INTENTS:
        return True
    wildcard_words = sum(len(str(entity.text).split()) for entity in wildcards)
    return wildcard_words * 2 > len(text.split())


_PLACE_WORDS = 2
"""The most words a place's name unknown to the home may have ("Schule", "the office")."""


def reading_values(result: RecognizeResult, slot: str) -> frozenset[str]:
    """A reading's slot value or values as a set of strings (empty when it has none).

    A template's fixed value (``domain: light`` in its slots) counts as the reading's own.
    """
    entity = result.entities.get(slot)
    if entity is None:
        return frozenset()
    value = entity.value
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(item) for item in value)
    return frozenset()


def _place_names(model: HomeModel) -> frozenset[str]:
    """Where people can be, as said: each zone's name and each state a person is in."""
    names = {"home", "not home"}  # a person's own states, the same in every language
    for entity_id in model.index.by_domain.get("zone", ()):
        if (entity := model.entity(entity_id)) is not None:
            names.add(normalize_name(entity.name))
    for entity_id in model.index.by_domain.get("person", ()):
        if (state := model.state(entity_id)) is not None:
            names.add(normalize_name(state.state.replace("_", " ")))
    return frozenset(names)


def slot_text(slots: Mapping[str, JsonValue], key: str) -> str | None:
    """A text slot as matching reads it; None when it is missing (or not text)."""
    value = slots.get(key)
    return value if isinstance(value, str) else None


def slot_texts(value: JsonValue) -> set[str]:
    """A list slot (``domain``, ``device_class``) as a set of its texts."""
    return {str(item) for item in value} if isinstance(value, list) else {str(value)}


def shared_name(
    model: HomeModel, slots: Mapping[str, JsonValue], intent: str | None = None
) -> bool:
    """True when the ``name`` slot names several exposed entities and nothing narrows it.

    Home Assistant would answer "there are multiple devices called …" or guess by the
    satellite's area; the model can ask which one was meant, so the sentence goes to it. As
    hassil and Home Assistant's matching do, the sentence's own words narrow first: a domain
    or device class it names ("the garage *light*", "is the phone *connected*") and the
    domains ``intent`` can act on; then the satellite's area.
    """
    name = slots.get("name")
    if not isinstance(name, str) or any(key in slots for key in ("area", "floor")):
        return False
    ids = [
        entity_id
        for entity_id in model.index.by_name.get(normalize_name(name), ())
        if model.is_exposed(entity_id)
    ]
    if len(ids) < 2:
        return False
    rule = service_rule(intent, model.release) if intent is not None else None
    domains = (
        slot_texts(slots["domain"])
        if "domain" in slots
        else (rule.required_domains if rule else None)
    )
    if domains:
        ids = [entity_id for entity_id in ids if entity_id.split(".", 1)[0] in domains]
    if "device_class" in slots:
        classes = slot_texts(slots["device_class"])
        ids = [
            entity_id
            for entity_id in ids
            if (entity := model.entity(entity_id)) is not None and entity.device_class in classes
        ]
    if len(ids) < 2:
        return False
    area_id = slots.get("preferred_area_id")
    if not isinstance(area_id, str):
        return True
    in_area = [entity_id for entity_id in ids if entity_id in model.index.by_area.get(area_id, ())]
    return len(in_area) != 1


def single_target(model: HomeModel, intent: str, slots: Mapping[str, JsonValue]) -> bool:
    """True when the call ``slots`` make would act on exactly one exposed entity.

    For sentences that name one device without its name ("turn off the tv", "pause"): the
    intent handler would act on every entity that fits, so the match stands only when one
    does; with several the model asks which was meant, with none it says so. The constraints
    are the handler's own (a service intent's required domains, features and states), so the
    entity counted here is the one the call moves.
    """
    rule = service_rule(intent, model.release)
    constraints = MatchTargetsConstraints(
        name=slot_text(slots, "name"),
        area_name=slot_text(slots, "area"),
        floor_name=slot_text(slots, "floor"),
        domains=slot_texts(slots["domain"])
        if "domain" in slots
        else (rule.required_domains if rule else None),
        device_classes=slot_texts(slots["device_class"]) if "device_class" in slots else None,
        features=rule.required_features if rule else None,
        states=rule.required_states if rule else None,
        assistant=ASSISTANT,
    )
    if not constraints.has_constraints:
        return False
    return len(match_targets(model, constraints).states) == 1
