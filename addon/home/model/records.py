"""Value objects for one Home Assistant home, parsed from what its WebSocket API returns.

Each ``from_ha`` reads the exact dicts Home Assistant 2025.4 sends (field names from
``helpers/area_registry.py`` ``json_fragment``, ``components/config/floor_registry.py``
``_entry_dict``, ``helpers/device_registry.py`` ``dict_repr``, ``helpers/entity_registry.py``
``as_partial_dict``/``extended_dict``, ``core.State.as_compressed_state`` and, for scripts'
fields, the service description ``components/script/__init__.py`` registers and
``get_services`` returns). Parsing is lenient about missing optional keys, because older releases
omit some and a missing key must not stop the agent from starting; it is strict about the keys
that identify a record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from addon.text import JsonObject, JsonValue

_EMPTY: Mapping[str, JsonValue] = MappingProxyType({})


def _aliases(raw: object) -> tuple[str, ...]:
    """Aliases as a tuple of strings, in Home Assistant's order, without its name placeholder.

    Home Assistant sends a list. From 2026.x an entity's list holds a null where the entity's
    own computed name goes (``COMPUTED_NAME`` in ``helpers/entity_registry.py``; a new entry's
    list is ``[null]``): not a text alias, and never the text "None";
    :meth:`RegistryEntry.from_ha` records it separately. Blank aliases are dropped as Home
    Assistant drops them when they are set.
    """
    if not isinstance(raw, list | tuple):
        return ()
    return tuple(text for alias in raw if alias is not None and (text := str(alias).strip()))


def _text_or_none(raw: object) -> str | None:
    """A string field that Home Assistant may send as null."""
    return None if raw is None else str(raw)


def json_object(raw: JsonValue) -> Mapping[str, JsonValue]:
    """An object Home Assistant sent; empty where it sent none (or something else)."""
    return raw if isinstance(raw, dict) else _EMPTY


def json_keys(raw: JsonValue) -> list[str]:
    """A list of keys Home Assistant sent (a diff's removed attributes)."""
    return [key for key in raw if isinstance(key, str)] if isinstance(raw, list) else []


def _seconds(raw: JsonValue) -> float:
    """A timestamp Home Assistant sent (seconds); refused if it is not a number."""
    if isinstance(raw, int | float | str) and not isinstance(raw, bool):
        return float(raw)
    raise TypeError(f"not a timestamp: {raw!r}")


def frozen_mapping(raw: Mapping[str, JsonValue] | None) -> Mapping[str, JsonValue]:
    """A read-only copy, so records shared between a model and its copies cannot be changed."""
    if not raw:
        return _EMPTY
    return MappingProxyType(dict(raw))


@dataclass(frozen=True, slots=True)
class Floor:
    """A floor from ``config/floor_registry/list``."""

    floor_id: str
    name: str
    aliases: tuple[str, ...] = ()
    level: int | None = None

    @classmethod
    def from_ha(cls, raw: Mapping[str, JsonValue]) -> Floor:
        """Parse one floor registry entry."""
        return cls(
            floor_id=str(raw["floor_id"]),
            name=str(raw.get("name") or raw["floor_id"]),
            aliases=_aliases(raw.get("aliases")),
            level=level if isinstance(level := raw.get("level"), int) else None,
        )


@dataclass(frozen=True, slots=True)
class Area:
    """An area from ``config/area_registry/list``.

    The temperature and humidity entity ids are kept because Home Assistant's
    HassClimateGetTemperature prefers an area's own sensor.
    """

    area_id: str
    name: str
    aliases: tuple[str, ...] = ()
    floor_id: str | None = None
    temperature_entity_id: str | None = None
    humidity_entity_id: str | None = None

    @property
    def id(self) -> str:
        """Home Assistant's ``AreaEntry.id``, for code ported from it."""
        return self.area_id

    @classmethod
    def from_ha(cls, raw: Mapping[str, JsonValue]) -> Area:
        """Parse one area registry entry."""
        return cls(
            area_id=str(raw["area_id"]),
            name=str(raw.get("name") or raw["area_id"]),
            aliases=_aliases(raw.get("aliases")),
            floor_id=_text_or_none(raw.get("floor_id")),
            temperature_entity_id=_text_or_none(raw.get("temperature_entity_id")),
            humidity_entity_id=_text_or_none(raw.get("humidity_entity_id")),
        )


@dataclass(frozen=True, slots=True)
class Device:
    """A device from ``config/device_registry/list``; ``name`` is what the user sees."""

    device_id: str
    name: str | None
    area_id: str | None = None
    manufacturer: str | None = None
    model: str | None = None
    disabled_by: str | None = None
    labels: tuple[str, ...] = ()

    @classmethod
    def from_ha(cls, raw: Mapping[str, JsonValue]) -> Device:
        """Parse one device registry entry; the user's name wins over the integration's."""
        return cls(
            device_id=str(raw["id"]),
            name=_text_or_none(raw.get("name_by_user") or raw.get("name")),
            area_id=_text_or_none(raw.get("area_id")),
            manufacturer=_text_or_none(raw.get("manufacturer")),
            model=_text_or_none(raw.get("model")),
            disabled_by=_text_or_none(raw.get("disabled_by")),
            labels=_aliases(raw.get("labels")),
        )


@dataclass(frozen=True, slots=True)
class RegistryEntry:
    """One entity registry entry: ``entity_registry/list`` merged with ``get_entries``.

    The list command sends ``as_partial_dict`` (no aliases, no device classes); ``get_entries``
    sends ``extended_dict``, which adds them. ``options`` is None when neither told us, which the
    exposure rules treat as "unknown", not as "no setting". ``unique_id`` is kept because a
    script's service is named by it (``script.<unique_id>``), not by its entity id.
    """

    entity_id: str
    platform: str | None = None
    name: str | None = None
    original_name: str | None = None
    aliases: tuple[str, ...] = ()
    area_id: str | None = None
    device_id: str | None = None
    disabled_by: str | None = None
    hidden_by: str | None = None
    entity_category: str | None = None
    has_entity_name: bool = False
    device_class: str | None = None
    original_device_class: str | None = None
    options: Mapping[str, Mapping[str, JsonValue]] | None = None
    unique_id: str | None = None
    computed_name_alias: bool = False
    """The aliases include the computed name: a null in 2026.11's list (``COMPUTED_NAME``),
    which the registry puts first for every entity; the user can remove it. 2025.4 has none."""
    labels: tuple[str, ...] = ()
    """Label ids, for a call that targets a label (the confirmation policy resolves them)."""

    @classmethod
    def from_ha(
        cls, listed: Mapping[str, JsonValue], details: Mapping[str, JsonValue] | None = None
    ) -> RegistryEntry:
        """Merge a list entry with its ``get_entries`` details (which win where both say)."""
        raw: JsonObject = {**listed, **(details or {})}
        options = raw.get("options")
        return cls(
            entity_id=str(raw["entity_id"]),
            platform=_text_or_none(raw.get("platform")),
            name=_text_or_none(raw.get("name")),
            original_name=_text_or_none(raw.get("original_name")),
            aliases=_aliases(raw.get("aliases")),
            area_id=_text_or_none(raw.get("area_id")),
            device_id=_text_or_none(raw.get("device_id")),
            disabled_by=_text_or_none(raw.get("disabled_by")),
            hidden_by=_text_or_none(raw.get("hidden_by")),
            entity_category=_text_or_none(raw.get("entity_category")),
            has_entity_name=bool(raw.get("has_entity_name")),
            device_class=_text_or_none(raw.get("device_class")),
            original_device_class=_text_or_none(raw.get("original_device_class")),
            options=(
                MappingProxyType(
                    {
                        key: frozen_mapping(value if isinstance(value, dict) else None)
                        for key, value in options.items()
                    }
                )
                if isinstance(options, dict)
                else None
            ),
            unique_id=_text_or_none(raw.get("unique_id")),
            computed_name_alias=isinstance(aliases := raw.get("aliases"), list) and None in aliases,
            labels=_aliases(raw.get("labels")),
        )


# The attributes a model is shown for a queried entity: Home Assistant's own list for its
# live-context tool (``helpers/llm.py``), so the model sees what it would see there.
MODEL_ATTRIBUTES = (
    "temperature",
    "current_temperature",
    "temperature_unit",
    "brightness",
    "humidity",
    "unit_of_measurement",
    "device_class",
    "current_position",
    "percentage",
    "volume_level",
    "media_title",
    "media_artist",
    "media_album_name",
)


class EntityIdParts:
    """``domain`` and ``object_id`` of anything with an ``entity_id``, named as HA's ``State``."""

    __slots__ = ()
    entity_id: str

    @property
    def domain(self) -> str:
        """The part of the entity id before the dot (``state.domain`` in templates)."""
        return self.entity_id.partition(".")[0]

    @property
    def object_id(self) -> str:
        """The part of the entity id after the dot."""
        return self.entity_id.partition(".")[2]


@dataclass(frozen=True, slots=True)
class EntityState(EntityIdParts):
    """One entity's state as ``subscribe_entities`` reports it.

    ``last_changed``/``last_updated`` are POSIX timestamps, as in the compressed format;
    ``context`` is always a dict with ``id``, ``parent_id`` and ``user_id``.
    """

    entity_id: str
    state: str
    attributes: Mapping[str, JsonValue]
    last_changed: float
    last_updated: float
    context: Mapping[str, JsonValue] = field(default_factory=lambda: _EMPTY)

    @property
    def name(self) -> str:
        """Home Assistant's ``State.name``: the friendly name, else the object id with spaces."""
        friendly = self.attributes.get("friendly_name")
        return str(friendly) if friendly else self.object_id.replace("_", " ")

    @classmethod
    def from_compressed(cls, entity_id: str, raw: Mapping[str, JsonValue]) -> EntityState:
        """Parse a compressed state (``s``, ``a``, ``c``, ``lc``, optional ``lu``)."""
        last_changed = _seconds(raw.get("lc") or 0.0)
        return cls(
            entity_id=entity_id,
            state=str(raw.get("s", "")),
            attributes=frozen_mapping(json_object(raw.get("a"))),
            last_changed=last_changed,
            last_updated=_seconds(raw.get("lu") or last_changed),
            context=merge_context(_EMPTY, raw.get("c")),
        )


def merge_context(old: Mapping[str, JsonValue], change: JsonValue) -> Mapping[str, JsonValue]:
    """Apply a compressed context: a bare string is a new id, a dict updates the given keys."""
    merged = {"id": None, "parent_id": None, "user_id": None, **old}
    if isinstance(change, str):
        merged["id"] = change
    elif isinstance(change, Mapping):
        merged.update(change)
    return MappingProxyType(merged)


def apply_state_diff(
    old: EntityState, diff: Mapping[str, JsonValue]
) -> tuple[EntityState, set[str]]:
    """Apply one ``subscribe_entities`` ``c`` entry; also the attribute keys it touched."""
    plus = json_object(diff.get("+"))
    minus = json_object(diff.get("-"))
    touched: set[str] = set()
    attributes = old.attributes
    added = json_object(plus.get("a"))
    removed = json_keys(minus.get("a"))
    if added or removed:
        merged = dict(attributes)
        if added:
            merged.update(added)
            touched.update(added)
        for key in removed:
            merged.pop(key, None)
            touched.add(key)
        attributes = frozen_mapping(merged)
    last_changed, last_updated = old.last_changed, old.last_updated
    if "lc" in plus:
        # A new last_changed implies the same last_updated (messages.py _state_diff_event).
        last_changed = last_updated = _seconds(plus["lc"])
    elif "lu" in plus:
        last_updated = _seconds(plus["lu"])
    new = replace(
        old,
        state=str(plus["s"]) if "s" in plus else old.state,
        attributes=attributes,
        last_changed=last_changed,
        last_updated=last_updated,
        context=merge_context(old.context, plus["c"]) if "c" in plus else old.context,
    )
    return new, touched


@dataclass(frozen=True, slots=True)
class ScriptField:
    """One of a script's ``fields``, as its service description in ``get_services`` has it.

    ``selector`` is the selector's type (``number``, ``select``…) and ``selector_config`` its
    settings; Home Assistant's Assist API turns the pair into the JSON schema a model sees.
    """

    key: str
    name: str | None = None
    description: str | None = None
    required: bool = False
    selector: str | None = None
    selector_config: Mapping[str, JsonValue] = field(default_factory=lambda: _EMPTY)

    @classmethod
    def from_ha(cls, key: str, raw: JsonValue) -> ScriptField:
        """Parse one field; a selector is a one-key mapping from its type to its settings."""
        config: Mapping[str, JsonValue] = raw if isinstance(raw, Mapping) else _EMPTY
        selector = config.get("selector")
        selector_type: str | None = None
        settings: JsonValue = None
        if isinstance(selector, Mapping) and selector:
            selector_type, settings = next(iter(selector.items()))
        return cls(
            key=str(key),
            name=_text_or_none(config.get("name")),
            description=_text_or_none(config.get("description")),
            required=bool(config.get("required")),
            selector=None if selector_type is None else str(selector_type),
            selector_config=frozen_mapping(settings if isinstance(settings, Mapping) else None),
        )


@dataclass(frozen=True, slots=True)
class ScriptService:
    """The service ``script.<service>`` a script registers, with its description and fields.

    ``service`` is the script's key (its registry ``unique_id``), which is also its object id
    unless the entity was renamed. ``description`` is Home Assistant's default ``""`` when the
    script has none.
    """

    service: str
    name: str | None = None
    description: str = ""
    fields: tuple[ScriptField, ...] = ()

    @classmethod
    def from_ha(cls, service: str, raw: Mapping[str, JsonValue]) -> ScriptService:
        """Parse one entry of ``get_services``' ``script`` domain."""
        fields = raw.get("fields")
        return cls(
            service=str(service),
            name=_text_or_none(raw.get("name")),
            description=str(raw.get("description") or ""),
            fields=tuple(
                ScriptField.from_ha(key, value)
                for key, value in (fields.items() if isinstance(fields, Mapping) else ())
            ),
        )
