"""Which entities an assistant may see: Home Assistant's exposure rules, ported.

Source: ``homeassistant/components/homeassistant/exposed_entities.py`` at 2025.4.4
(``ExposedEntities.async_should_expose``, ``_is_default_exposed``, ``ws_list_exposed_entities``).

Home Assistant decides, for an entity with a registry entry:

1. ``group.all_locks`` is never exposed (``CLOUD_NEVER_EXPOSED_ENTITIES``; 2025.4 only: see
   :attr:`Release.never_exposes_all_locks`);
2. an explicit ``options[assistant]["should_expose"]`` wins;
3. otherwise, if the assistant exposes new entities (``conversation`` does unless the user turned
   it off), the default rule: not when the entry has an ``entity_category`` or ``hidden_by``;
   yes for the ``DEFAULT_EXPOSED_DOMAINS``; yes for binary sensors and sensors of the listed
   device classes (device class from the state, else the registry); no otherwise.

``expose_entity/list`` reports only entities whose stored setting is True; it cannot say "False".
The registry's ``options`` can, so they are read first. Two cases cannot be decided from what
the WebSocket API returns, and we choose the answer that never exposes what the user hid:

* a registry entry whose ``options`` we were not given and that the list does not name: not
  exposed (the user may have set False, which only ``options`` would show);
* an entity without a registry entry (a YAML entity without ``unique_id``) that the list does not
  name: not exposed. Home Assistant keeps these settings in its own store, which no command
  returns; it writes the default there the first time any assistant asks, so in a home that has
  used Assist the list already names every such entity it exposes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from addon.home.model.records import EntityState, RegistryEntry
from addon.home.model.release import BASELINE, Release
from addon.text import JsonValue

KNOWN_ASSISTANTS = ("cloud.alexa", "cloud.google_assistant", "conversation")
"""The assistants Home Assistant keeps exposure settings for."""

CONVERSATION = "conversation"
"""Assist, and every LLM agent that uses Home Assistant's Assist API."""

CLOUD_NEVER_EXPOSED_ENTITIES = frozenset({"group.all_locks"})

DEFAULT_EXPOSED_DOMAINS = frozenset(
    {
        "climate",
        "cover",
        "fan",
        "humidifier",
        "light",
        "media_player",
        "scene",
        "switch",
        "todo",
        "vacuum",
        "water_heater",
    }
)

DEFAULT_EXPOSED_BINARY_SENSOR_DEVICE_CLASSES = frozenset(
    {"door", "garage_door", "lock", "motion", "opening", "presence", "window"}
)

DEFAULT_EXPOSED_SENSOR_DEVICE_CLASSES = frozenset(
    {
        "aqi",
        "carbon_monoxide",
        "carbon_dioxide",
        "humidity",
        "pm10",
        "pm25",
        "temperature",
        "volatile_organic_compounds",
    }
)

DEFAULT_EXPOSE_NEW: Mapping[str, bool] = MappingProxyType({CONVERSATION: True})
"""``DEFAULT_EXPOSED_ASSISTANT``: only Assist exposes new entities unless the user changes it."""


def is_default_exposed(
    entity_id: str, entry: RegistryEntry | None, state: EntityState | None
) -> bool:
    """Home Assistant's ``_is_default_exposed``: the answer when nobody chose."""
    if entry is not None and (entry.entity_category is not None or entry.hidden_by is not None):
        return False
    domain = entity_id.partition(".")[0]
    if domain in DEFAULT_EXPOSED_DOMAINS:
        return True
    # helpers/entity.py get_device_class: the state machine first, then the registry.
    if state is not None:
        device_class = state.attributes.get("device_class")
    elif entry is not None:
        device_class = entry.device_class or entry.original_device_class
    else:
        return False
    if domain == "binary_sensor" and device_class in DEFAULT_EXPOSED_BINARY_SENSOR_DEVICE_CLASSES:
        return True
    return domain == "sensor" and device_class in DEFAULT_EXPOSED_SENSOR_DEVICE_CLASSES


def should_expose(
    assistant: str,
    entity_id: str,
    *,
    entry: RegistryEntry | None,
    state: EntityState | None,
    listed: Mapping[str, JsonValue] | None,
    expose_new: Mapping[str, bool] = DEFAULT_EXPOSE_NEW,
    release: Release = BASELINE,
) -> bool:
    """Whether ``assistant`` may see ``entity_id`` (see the module docstring for the rules).

    ``listed`` is this entity's value in ``expose_entity/list``'s ``exposed_entities``;
    ``release`` is the home's Home Assistant release.
    """
    if release.never_exposes_all_locks and entity_id in CLOUD_NEVER_EXPOSED_ENTITIES:
        return False
    listed_true = bool(listed and listed.get(assistant) is True)
    if entry is None:
        return listed_true
    if entry.options is None:
        return listed_true
    settings = entry.options.get(assistant)
    if settings is not None and "should_expose" in settings:
        return bool(settings["should_expose"])
    if listed_true:
        return True
    if not expose_new.get(assistant, False):
        return False
    return is_default_exposed(entity_id, entry, state)
