"""A script's fields as the JSON schema and description Home Assistant gives a model."""

from __future__ import annotations

from typing import Any

import pytest

from addon.errors import ToolError
from addon.home.model.records import ScriptField, ScriptService
from addon.tools.script_fields import (
    resolve_places,
    script_description,
    script_parameters,
    selector_schema,
)
from tests.home.script_home import DIM_LIGHT, DIM_LIGHT_PARAMETERS, script_home


def field(key: str, raw: dict[str, Any]) -> ScriptField:
    return ScriptField.from_ha(key, raw)


@pytest.mark.parametrize(
    ("selector", "schema"),
    [
        (
            {"number": {"min": 1.0, "max": 100.0, "step": 1.0}},
            {"type": "number", "minimum": 1.0, "maximum": 100.0},
        ),
        ({"number": {"mode": "box"}}, {"type": "number"}),
        ({"boolean": {}}, {"type": "boolean"}),
        ({"text": {}}, {"type": "string"}),
        ({"text": {"multiple": True}}, {"type": "array", "items": {"type": "string"}}),
        ({"select": {"options": ["low", "high"]}}, {"type": "string", "enum": ["low", "high"]}),
        (
            {"select": {"options": [{"value": "a", "label": "A"}], "multiple": True}},
            {"type": "array", "items": {"type": "string", "enum": ["a"]}, "uniqueItems": True},
        ),
        ({"entity": {"domain": ["light"]}}, {"type": "string", "format": "entity_id"}),
        (
            {"entity": {"multiple": True}},
            {"type": "array", "items": {"type": "string", "format": "entity_id"}},
        ),
        ({"object": {}}, {"type": "object", "additionalProperties": True}),
        ({"area": {}}, {"type": "string"}),
        ({"time": {}}, {"type": "string", "format": "time"}),
        (
            {"color_temp": {"min_mireds": 153, "max_mireds": 500}},
            {"type": "number", "minimum": 153, "maximum": 500},
        ),
        ({"constant": {"value": 3}}, {"type": "integer", "enum": [3]}),
        ({"a_selector_from_the_future": None}, {"type": "string"}),
        (None, {"type": "string"}),
    ],
)
def test_selectors_become_json_schema_types(
    selector: dict[str, Any] | None, schema: dict[str, Any]
) -> None:
    """Each selector gets the JSON type Home Assistant's ``_selector_serializer`` gives it."""
    parsed = field("x", {} if selector is None else {"selector": selector})
    assert selector_schema(parsed.selector, parsed.selector_config) == schema


def test_fields_make_an_object_schema_with_required_ones_listed() -> None:
    """Properties keep field order, carry their description, and required fields are listed."""
    service = ScriptService.from_ha("dim_light", DIM_LIGHT)
    assert script_parameters(service.fields) == DIM_LIGHT_PARAMETERS


def test_a_script_without_fields_takes_an_empty_object() -> None:
    """No fields is Home Assistant's empty schema, ``required`` included."""
    assert script_parameters(()) == {"type": "object", "properties": {}, "required": []}


def test_schemas_are_not_shared_between_calls() -> None:
    """Changing one tool's schema cannot change another's (the fixed schemas are copied)."""
    first = selector_schema("duration", {})
    first["properties"]["days"]["type"] = "string"
    assert selector_schema("duration", {})["properties"]["days"] == {"type": "number"}


def test_description_is_the_scripts_with_its_aliases() -> None:
    """A described script reads "<description>. Aliases: [...]", as in Home Assistant."""
    model = script_home()
    entity = model.entity("script.dim_light")
    assert entity is not None
    description = script_description(model.script_service("script.dim_light"), entity)
    assert description == "Sets a light to a brightness. Aliases: ['dimmer']"


def test_description_falls_back_to_the_scripts_name() -> None:
    """Without a description the model still reads what the script is called."""
    model = script_home(with_services=False)
    dim, night = model.entity("script.dim_light"), model.entity("script.good_night")
    assert dim is not None
    assert night is not None
    assert script_description(None, dim) == "Dim a light. Aliases: ['dimmer']"
    assert script_description(model.script_service("script.good_night"), night) == "Good Night"


def test_area_names_become_area_ids() -> None:
    """An area field gets the id of the area the model named, by name or alias."""
    model = script_home()
    service = model.script_service("script.dim_light")
    assert service is not None
    resolved = resolve_places({"room": "sleeping room", "level": 5}, service.fields, model)
    assert resolved == {"room": "bedroom", "level": 5}


def test_an_unknown_area_is_an_error_for_the_model() -> None:
    """An area that does not exist is a ToolError naming it."""
    model = script_home()
    service = model.script_service("script.dim_light")
    assert service is not None
    with pytest.raises(ToolError, match="Area 'Attic' does not exist"):
        resolve_places({"room": "Attic"}, service.fields, model)
