"""The intents we answer, described the way Home Assistant's Assist API describes them to a model.

Each :class:`IntentSpec` carries the intent's name, its description and its slots exactly as
Home Assistant 2025.4's ``helpers/llm.py`` hands them to a language model: ``IntentTool`` takes
the handler's ``slot_schema``, drops ``preferred_area_id``/``preferred_floor_id`` and
``voluptuous_openapi.convert`` turns the rest into JSON schema. :func:`parameters_schema`
rebuilds that JSON schema from our slot table, and a contract test compares it with the one
Home Assistant itself produces, so a tool the agent offers is the tool Home Assistant offers.

Two facts that surprise people, both checked against the real 2025.4.4 code:

* ``HassLightSet`` *does* have a ``domain`` slot (any string); it has no ``device_class``.
* ``HassTurnOn``/``HassTurnOff``/``HassToggle`` list no required slot, but the handler refuses
  a call with no name, area, floor, domain or device class ("cannot target all devices").

``HassFanSetSpeed`` is newer than 2025.4 (it arrived with ``fan/intent.py`` later); we describe
it as the later Home Assistant does. ``in_assist_api`` is False for the intents the Assist API
hides from models (``AssistAPI.IGNORE_INTENTS``): the agent may still offer them on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from addon.home.model.release import RELEASE_2026_11, Release
from addon.text import JsonObject

ASSISTANT = "conversation"
"""The assistant whose exposure settings decide what we may act on (as HA's LLM API uses)."""


class SlotKind(StrEnum):
    """How a slot's value is validated and how it appears in JSON schema."""

    TEXT = "text"
    """A non-empty string; numbers are turned into strings as ``cv.string`` does."""

    TEXT_LIST = "text_list"
    """A list of strings; a single string is accepted and wrapped, as ``cv.ensure_list`` does."""

    INTEGER = "integer"
    """``vol.Coerce(int)``: ints, floats and numeric strings like "40"."""

    NUMBER = "number"
    """``vol.Coerce(float)``."""

    COLOR = "color"
    """A colour name Home Assistant knows ("red", "warm white" is not one)."""

    BOOLEAN = "boolean"
    """``cv.boolean``/``probatio.Boolean()``: true/false, "on"/"off", "yes"/"no", 1/0."""

    STEP = "step"
    """One of ``choices`` ("up", "down") or a whole number in range (HassSetVolumeRelative)."""


@dataclass(frozen=True, slots=True)
class SlotSpec:
    """One slot of an intent: its validation and its JSON-schema description."""

    name: str
    kind: SlotKind
    required: bool = False
    description: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None
    """Allowed values (for a list: allowed items); None means any."""
    allow_empty: bool = False
    """``cv.string`` instead of ``non_empty_string`` (only HassGetState's target slots)."""


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """An intent as the agent offers it to a model."""

    name: str
    description: str
    slots: tuple[SlotSpec, ...]
    in_assist_api: bool = True
    """Offered to a model as a tool; False keeps the intent local-only (sentences only)."""
    platforms: frozenset[str] | None = None
    """Domains the intent serves; HA offers the tool only if one such entity is exposed."""
    since: Release | None = None
    """The first release whose sentences mean this intent; on an older (or unknown) release
    the local path leaves them alone: HassListRemoveItem's "delete X from my list" is a
    completion in Home Assistant 2025.4's sentences, and a removal cannot be undone."""

    def slot(self, name: str) -> SlotSpec | None:
        """The slot called ``name``, if the intent has one."""
        for slot in self.slots:
            if slot.name == name:
                return slot
        return None


# Device classes in the enum HA builds from the handler's device class enums. The order is
# the order of HA's own lists; HA iterates a *set* of enum classes, so the order of the groups
# in its output varies from run to run while the members stay the same.
_SWITCH_CLASSES = ("outlet", "switch")
_MEDIA_PLAYER_CLASSES = ("tv", "speaker", "receiver")
_COVER_CLASSES = (
    "awning",
    "blind",
    "curtain",
    "damper",
    "door",
    "garage",
    "gate",
    "shade",
    "shutter",
    "window",
)
_VALVE_CLASSES = ("water", "gas")
ON_OFF_DEVICE_CLASSES = _SWITCH_CLASSES + _MEDIA_PLAYER_CLASSES + _COVER_CLASSES + _VALVE_CLASSES
POSITION_DEVICE_CLASSES = _COVER_CLASSES + _VALVE_CLASSES


def _target_slots(
    *, domains: tuple[str, ...] | None = None, device_classes: tuple[str, ...] | None = None
) -> tuple[SlotSpec, ...]:
    """The name/area/floor/domain(/device_class) slots of a service intent handler."""
    slots = [
        SlotSpec("name", SlotKind.TEXT),
        SlotSpec("area", SlotKind.TEXT),
        SlotSpec("floor", SlotKind.TEXT),
        SlotSpec("domain", SlotKind.TEXT_LIST, choices=domains),
    ]
    if device_classes is not None:
        slots.append(SlotSpec("device_class", SlotKind.TEXT_LIST, choices=device_classes))
    return tuple(slots)


def _domain_intent(
    name: str,
    description: str,
    domain: str,
    *,
    device_classes: tuple[str, ...] | None = None,
    extra: tuple[SlotSpec, ...] = (),
) -> IntentSpec:
    """A ``ServiceIntentHandler`` that serves one domain, as Home Assistant builds them.

    Its ``domain`` slot takes only that domain, and Home Assistant offers it only where such an
    entity is exposed: the media player, fan, vacuum and lawn mower intents. ``extra`` are the
    slots the handler adds after the target ones.
    """
    return IntentSpec(
        name,
        description,
        (*_target_slots(domains=(domain,), device_classes=device_classes), *extra),
        platforms=frozenset({domain}),
    )


def _own(
    name: str,
    description: str,
    slots: tuple[SlotSpec, ...],
    platforms: frozenset[str] | None = None,
) -> IntentSpec:
    """One of our own intents: it answers local sentences only, so no model is offered it."""
    return IntentSpec(name, description, slots, in_assist_api=False, platforms=platforms)


_MEDIA = "media_player"
_NEWER_MEDIA_PLAYER_CLASSES = (*_MEDIA_PLAYER_CLASSES, "projector")
"""``MediaPlayerDeviceClass`` in 2026.11, which the intents it brought take."""
_MUTED = SlotSpec(
    "is_volume_muted",
    SlotKind.BOOLEAN,
    description="Whether the media player should be muted or unmuted",
)
"""Mute/Unmute's optional slot; the handler sets it from the intent whatever is passed."""
MEDIA_CLASSES = (
    "album",
    "app",
    "artist",
    "channel",
    "composer",
    "contributing_artist",
    "directory",
    "episode",
    "game",
    "genre",
    "image",
    "movie",
    "music",
    "playlist",
    "podcast",
    "season",
    "track",
    "tv_show",
    "url",
    "video",
)
"""``MediaClass`` values, HassMediaSearchAndPlay's ``media_class`` choices."""
_LIST_SLOTS = (
    SlotSpec("item", SlotKind.TEXT, required=True),
    SlotSpec("name", SlotKind.TEXT, required=True),
)
_SHOPPING_SLOTS = (SlotSpec("item", SlotKind.TEXT, required=True, allow_empty=True),)
"""The shopping list handlers' one slot (``shopping_list/intent.py``: ``cv.string``)."""
_CLIMATE_TARGET = (
    SlotSpec("area", SlotKind.TEXT),
    SlotSpec("name", SlotKind.TEXT),
    SlotSpec("floor", SlotKind.TEXT),
)
"""The climate handlers' optional targets, in the order ``climate/intent.py`` lists them."""
_BLANK_TARGET = (
    SlotSpec("name", SlotKind.TEXT, allow_empty=True),
    SlotSpec("area", SlotKind.TEXT, allow_empty=True),
    SlotSpec("floor", SlotKind.TEXT, allow_empty=True),
)
"""name/area/floor as ``cv.string`` (a blank value accepted), as HassGetState, the relative
volume and search-and-play handlers take them."""

_SPECS: tuple[IntentSpec, ...] = (
    IntentSpec(
        "HassTurnOn",
        "Turns on/opens a device or entity",
        _target_slots(device_classes=ON_OFF_DEVICE_CLASSES),
    ),
    IntentSpec(
        "HassTurnOff",
        "Turns off/closes a device or entity",
        _target_slots(device_classes=ON_OFF_DEVICE_CLASSES),
    ),
    IntentSpec(
        "HassToggle",
        "Toggles a device or entity",
        _target_slots(device_classes=ON_OFF_DEVICE_CLASSES),
        in_assist_api=False,
    ),
    IntentSpec(
        "HassLightSet",
        "Sets the brightness percentage or color of a light",
        (
            *_target_slots(),
            SlotSpec("color", SlotKind.COLOR),
            SlotSpec("temperature", SlotKind.INTEGER, minimum=0),
            SlotSpec(
                "brightness",
                SlotKind.INTEGER,
                description=(
                    "The brightness percentage of the light between 0 and 100, "
                    "where 0 is off and 100 is fully lit"
                ),
                minimum=0,
                maximum=100,
            ),
        ),
        platforms=frozenset({"light"}),
    ),
    IntentSpec(
        "HassSetPosition",
        "Sets the position of a device or entity",
        (
            *_target_slots(device_classes=POSITION_DEVICE_CLASSES),
            SlotSpec("position", SlotKind.INTEGER, required=True, minimum=0, maximum=100),
        ),
        platforms=frozenset({"cover", "valve"}),
    ),
    IntentSpec(
        "HassGetState",
        "Gets or checks the state of a device or entity",
        (
            *_BLANK_TARGET,
            SlotSpec("domain", SlotKind.TEXT_LIST),
            SlotSpec("device_class", SlotKind.TEXT_LIST),
            SlotSpec("state", SlotKind.TEXT_LIST),
        ),
        in_assist_api=False,
    ),
    IntentSpec(
        "HassClimateSetTemperature",
        "Sets the target temperature of a climate device or entity",
        (SlotSpec("temperature", SlotKind.NUMBER, required=True), *_CLIMATE_TARGET),
        platforms=frozenset({"climate"}),
    ),
    IntentSpec(
        "HassClimateGetTemperature",
        "Gets the current temperature of a climate device or entity",
        _CLIMATE_TARGET,
        in_assist_api=False,
        platforms=frozenset({"climate"}),
    ),
    _domain_intent(
        "HassMediaPause",
        "Pauses a media player",
        _MEDIA,
        device_classes=_MEDIA_PLAYER_CLASSES,
    ),
    _domain_intent(
        "HassMediaUnpause",
        "Resumes a media player",
        _MEDIA,
        device_classes=_MEDIA_PLAYER_CLASSES,
    ),
    _domain_intent(
        "HassMediaNext",
        "Skips a media player to the next item",
        _MEDIA,
        device_classes=_MEDIA_PLAYER_CLASSES,
    ),
    _domain_intent(
        "HassMediaPrevious",
        "Replays the previous item for a media player",
        _MEDIA,
        device_classes=_MEDIA_PLAYER_CLASSES,
    ),
    _domain_intent(
        "HassSetVolume",
        "Sets the volume percentage of a media player",
        _MEDIA,
        device_classes=_MEDIA_PLAYER_CLASSES,
        extra=(
            SlotSpec(
                "volume_level",
                SlotKind.INTEGER,
                required=True,
                description="The volume percentage of the media player",
                minimum=0,
                maximum=100,
            ),
        ),
    ),
    _domain_intent(
        "HassFanSetSpeed",
        "Sets a fan's speed by percentage",
        "fan",
        extra=(
            SlotSpec(
                "percentage",
                SlotKind.INTEGER,
                required=True,
                description="The speed percentage of the fan",
                minimum=0,
                maximum=100,
            ),
        ),
    ),
    _domain_intent("HassVacuumStart", "Starts a vacuum", "vacuum"),
    _domain_intent("HassVacuumReturnToBase", "Returns a vacuum to base", "vacuum"),
    IntentSpec(
        "HassVacuumCleanArea",
        "Tells a vacuum to clean a specific area",
        (
            SlotSpec("area", SlotKind.TEXT, required=True, allow_empty=True),
            SlotSpec("name", SlotKind.TEXT, allow_empty=True),
        ),
        platforms=frozenset({"vacuum"}),
    ),
    _domain_intent(
        "HassMediaPlayerMute",
        "Mutes a media player",
        _MEDIA,
        device_classes=_NEWER_MEDIA_PLAYER_CLASSES,
        extra=(_MUTED,),
    ),
    _domain_intent(
        "HassMediaPlayerUnmute",
        "Unmutes a media player",
        _MEDIA,
        device_classes=_NEWER_MEDIA_PLAYER_CLASSES,
        extra=(_MUTED,),
    ),
    IntentSpec(
        "HassSetVolumeRelative",
        "Increases or decreases the volume of a media player",
        (
            SlotSpec(
                "volume_step",
                SlotKind.STEP,
                required=True,
                minimum=-100,
                maximum=100,
                choices=("up", "down"),
            ),
            *_BLANK_TARGET,
        ),
        platforms=frozenset({_MEDIA}),
    ),
    IntentSpec(
        "HassMediaSearchAndPlay",
        "Searches for media and plays the first result",
        (
            SlotSpec("search_query", SlotKind.TEXT, required=True, allow_empty=True),
            SlotSpec("media_class", SlotKind.TEXT, choices=MEDIA_CLASSES),
            *_BLANK_TARGET,
        ),
        # Home Assistant 2026.11 offers a model its search and play tools instead.
        in_assist_api=False,
        platforms=frozenset({_MEDIA}),
    ),
    IntentSpec(
        "HassClimateSetFanMode",
        "Sets the fan mode of a climate device or entity",
        (SlotSpec("fan_mode", SlotKind.TEXT, required=True), *_CLIMATE_TARGET),
        # Not among the climate integration's LLM tools in Home Assistant 2026.11.
        in_assist_api=False,
        platforms=frozenset({"climate"}),
    ),
    _domain_intent("HassLawnMowerStartMowing", "Starts a lawn mower", "lawn_mower"),
    _domain_intent("HassLawnMowerDock", "Sends a lawn mower to dock", "lawn_mower"),
    IntentSpec(
        "HassListCompleteItem",
        "Complete item on a todo list",
        _LIST_SLOTS,
        platforms=frozenset({"todo"}),
    ),
    IntentSpec(
        "HassListRemoveItem",
        "Remove one or more items from a todo list",
        _LIST_SLOTS,
        platforms=frozenset({"todo"}),
        since=RELEASE_2026_11,
    ),
    IntentSpec(
        "HassShoppingListAddItem",
        "Adds an item to the shopping list",
        _SHOPPING_SLOTS,
        # Home Assistant offers it for a "shopping_list" entity, which never exists (the
        # list is a to-do entity): no model is offered it.
        in_assist_api=False,
        platforms=frozenset({"todo"}),
    ),
    IntentSpec(
        "HassShoppingListCompleteItem",
        "Marks an item as completed on the shopping list",
        _SHOPPING_SLOTS,
        in_assist_api=False,
        platforms=frozenset({"todo"}),
    ),
    IntentSpec(
        "HassListAddItem",
        "Add item to a todo list",
        _LIST_SLOTS,
        platforms=frozenset({"todo"}),
    ),
    IntentSpec(
        "HassGetWeather",
        "Gets the current weather",
        (SlotSpec("name", SlotKind.TEXT),),
        in_assist_api=False,
        platforms=frozenset({"weather"}),
    ),
    IntentSpec("HassGetCurrentTime", "Gets the current time", (), in_assist_api=False),
    IntentSpec("HassGetCurrentDate", "Gets the current date", (), in_assist_api=False),
    IntentSpec(
        "HassNevermind", "Cancels the current request and does nothing", (), in_assist_api=False
    ),
    IntentSpec(
        "HassRespond",
        "Returns the provided response with no action.",
        (SlotSpec("response", SlotKind.TEXT, allow_empty=True),),
        in_assist_api=False,
    ),
)

# Our own intents (named "HomeAgent..."): questions Home Assistant 2025.4 has no intent for.
# They answer local sentences (``addon/local/custom``) only; no model is offered them, and Home
# Assistant's handlers are not their reference.

DRAFT_AUTOMATION = "HomeAgentDraftAutomation"
"""A sentence asking for something to happen at a time ("every weekday at seven turn on the
kitchen lights"): drafted as an automation through ``draft_automation``, never acted on now."""

_OWN_SPECS: tuple[IntentSpec, ...] = (
    _own(
        "HomeAgentSensorValue",
        "Gets the value of a sensor by its kind and the device or place it belongs to",
        (
            SlotSpec("device_class", SlotKind.TEXT_LIST, required=True),
            SlotSpec("subject", SlotKind.TEXT),
            SlotSpec("area", SlotKind.TEXT),
            SlotSpec("floor", SlotKind.TEXT),
        ),
        frozenset({"sensor"}),
    ),
    _own(
        "HomeAgentStateCheck",
        "Checks whether the one device the words name is in the given state",
        (
            SlotSpec("subject", SlotKind.TEXT, required=True),
            SlotSpec("state", SlotKind.TEXT_LIST, required=True),
            SlotSpec("domain", SlotKind.TEXT_LIST),
        ),
    ),
    _own(
        "HomeAgentWeatherCondition",
        "Checks whether the weather's current condition is one of the given ones",
        (
            SlotSpec("condition", SlotKind.TEXT_LIST, required=True),
            SlotSpec("name", SlotKind.TEXT),
        ),
        frozenset({"weather"}),
    ),
    _own(
        "HomeAgentOutsideTemperature",
        "Gets the temperature outside: an outdoor sensor's, else the weather's",
        (SlotSpec("outside_words", SlotKind.TEXT_LIST),),
        frozenset({"sensor", "weather"}),
    ),
    _own(
        "HomeAgentListItems",
        "Gets the open items of a to-do list",
        (SlotSpec("name", SlotKind.TEXT),),
        frozenset({"todo"}),
    ),
    _own(
        "HomeAgentCalendarEvents",
        "Gets a day's events of the exposed calendars",
        (
            SlotSpec("name", SlotKind.TEXT),
            SlotSpec("day", SlotKind.INTEGER, minimum=0, maximum=1),
        ),
        frozenset({"calendar"}),
    ),
    _own(
        DRAFT_AUTOMATION,
        "Drafts an automation turning one device on or off at a time of day, on some days",
        (
            SlotSpec("name", SlotKind.TEXT, required=True),
            SlotSpec("service", SlotKind.TEXT_LIST, required=True),
            SlotSpec("hour", SlotKind.INTEGER, required=True, minimum=0, maximum=23),
            SlotSpec("minute", SlotKind.INTEGER, minimum=0, maximum=59),
            SlotSpec("days", SlotKind.TEXT_LIST),
        ),
        frozenset({"light", "switch", "fan", "input_boolean"}),
    ),
)

INTENTS: dict[str, IntentSpec] = {spec.name: spec for spec in (*_SPECS, *_OWN_SPECS)}
"""Every intent we handle, by name. Read-only by convention: build new specs, don't edit."""

HANDED_TO_HOME_ASSISTANT = frozenset(
    {
        "HassStartTimer",
        "HassCancelTimer",
        "HassCancelAllTimers",
        "HassIncreaseTimer",
        "HassDecreaseTimer",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassTimerStatus",
        "HassBroadcast",
    }
)
"""Intents only Home Assistant's own agent can serve: a timer runs on the satellite that heard
it (its device id), a broadcast plays on the other satellites. The local path recognises their
sentences and hands them over whole (:meth:`~addon.home.actions.executor.Executor.hand_over`);
a model is not offered them, as Home Assistant's LLM API offers timers only to a device that
has them."""

# Slots HA accepts from callers other than a model (the LLM API strips them from the schema
# and fills them from the satellite's area); we accept them the same way.
PREFERENCE_SLOTS = ("preferred_area_id", "preferred_floor_id")


def _slot_schema(slot: SlotSpec) -> JsonObject:
    """The JSON schema ``voluptuous_openapi`` writes for one slot."""
    schema: JsonObject
    if slot.kind is SlotKind.TEXT_LIST:
        items: JsonObject = {"type": "string"}
        if slot.choices is not None:
            items["enum"] = list(slot.choices)
        schema = {"type": "array", "items": items}
    elif slot.kind is SlotKind.INTEGER:
        schema = {"type": "integer"}
    elif slot.kind is SlotKind.NUMBER:
        schema = {"type": "number"}
    elif slot.kind is SlotKind.BOOLEAN:
        # ``probatio.Boolean()`` has no JSON form: Home Assistant 2026.11 gives only the
        # description.
        schema = {}
    elif slot.kind is SlotKind.STEP:
        # ``Any("up", "down", All(Coerce(int), Range(...)))`` as probatio writes it.
        words: JsonObject = {"type": "string", "enum": list(slot.choices or ())}
        number: JsonObject = {"type": "integer", "minimum": slot.minimum, "maximum": slot.maximum}
        return {"anyOf": [words, number]}
    elif slot.choices is not None:
        schema = {"type": "string", "enum": list(slot.choices)}
    else:
        schema = {"type": "string"}
    if slot.minimum is not None:
        schema["minimum"] = slot.minimum
    if slot.maximum is not None:
        schema["maximum"] = slot.maximum
    if slot.description is not None:
        schema["description"] = slot.description
    return schema


def parameters_schema(spec: IntentSpec) -> JsonObject:
    """The ``parameters`` JSON schema Home Assistant gives a model for ``spec``."""
    return {
        "type": "object",
        "properties": {slot.name: _slot_schema(slot) for slot in spec.slots},
        "required": [slot.name for slot in spec.slots if slot.required],
    }
