"""The plain-schema check that spares ``jsonschema``: it never vouches for invalid arguments."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from addon.home.actions.intents import INTENTS, parameters_schema
from addon.text import JsonObject
from addon.tools.arguments import plainly_valid

TURN_ON = parameters_schema(INTENTS["HassTurnOn"])
CLASSED = {"type": "array", "items": {"type": "string", "enum": ["door", "window"]}}
CASES: list[tuple[JsonObject, Any]] = [
    (TURN_ON, {"name": "Kitchen Light", "domain": ["light"]}),
    (TURN_ON, {"area": "Kitchen", "device_class": ["outlet"]}),
    (TURN_ON, {}),
    (TURN_ON, {"name": 5}),
    (TURN_ON, {"domain": "light"}),
    (TURN_ON, {"device_class": ["toaster"]}),
    (TURN_ON, {"brightness": 50}),
    (TURN_ON, ["name"]),
    ({"type": "object", "properties": {"c": CLASSED}, "required": ["c"]}, {}),
    ({"type": "object", "properties": {"c": CLASSED}, "required": ["c"]}, {"c": ["door"]}),
    ({"type": "object", "properties": {"c": CLASSED}}, {"c": [True]}),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 1}),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": "1"}),
    ({"type": "object", "properties": {"x": {}}}, {"x": None}),
    ({"type": "object", "additionalProperties": False}, {"x": "y"}),
    ({"type": "object", "enum": [{}]}, {}),
    ({"type": "object", "enum": [{}]}, {"x": "y"}),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 1}, ["a", "b"]),
    ({"type": "string", "enum": ["1"]}, 1),
    ({"type": "string", "enum": ["a"]}, "a"),
    ({"type": "string", "minLength": 3}, "ab"),
    ({"type": ["string", "null"]}, None),
    ({}, "anything"),
]


@pytest.mark.parametrize(("schema", "value"), CASES)
def test_only_what_jsonschema_accepts_is_vouched_for(schema: JsonObject, value: Any) -> None:
    """Whatever the check calls valid, Draft 2020-12 calls valid too."""
    if plainly_valid(value, schema):
        assert Draft202012Validator(schema).is_valid(value)


def test_an_intent_call_is_vouched_for_without_jsonschema() -> None:
    """A usual intent call is checked by the short walk, so the validator is not built."""
    assert plainly_valid({"name": "Kitchen Light", "domain": ["light"]}, TURN_ON)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 1}),
        ({"type": "object", "properties": {}}, {"undeclared": "x"}),
        ({"type": "string", "minLength": 3}, "abcd"),
    ],
)
def test_what_it_does_not_read_goes_to_jsonschema(schema: JsonObject, value: Any) -> None:
    """Types, keywords and properties it does not know are left to ``jsonschema``."""
    assert not plainly_valid(value, schema)
