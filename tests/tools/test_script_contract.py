"""Contract: our script tools are the ones Home Assistant 2025.4.4's Assist API builds.

A short script runs inside Home Assistant's own venv with a real ``HomeAssistant`` and entity
registry: for each case it validates the fields' selectors as the script integration does
(``selector.validate_selector``, which is what ``get_services`` then lists), registers the
script's service and description, gives the registry entry its name and aliases, and builds
``helpers/llm.py``'s real ``ScriptTool``, converted with ``voluptuous_openapi`` as Home
Assistant's agents convert it for a model. Our tool, built from the same ``get_services``
answer and registry entry, must have the same name, parameters and description. Enum lists are
compared as sets: Home Assistant builds the target selector's ``entity_id`` enum from a set, so its
order changes from one process to the next.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from addon.tools.home_tools import build_registry
from devtools.home_assistant import python_command
from tests.home.homes import HomeData

# Against 2025.4.4 only: 2026.x's LLM API namespaces and annotates its tools and describes them
# through probatio; ours follow the Assist API of the seeds (docs/DECISIONS.md).
pytestmark = [pytest.mark.homeassistant, pytest.mark.oldest_ha_only]

ORACLE = """
import asyncio, json, sys, tempfile
from homeassistant.core import HomeAssistant, SupportsResponse
from homeassistant.helpers import entity_registry as er, llm, selector
from homeassistant.helpers.service import async_set_service_schema
from voluptuous_openapi import convert

async def main(cases):
    answers = {}
    with tempfile.TemporaryDirectory() as tmp:
        hass = HomeAssistant(tmp)
        await er.async_load(hass)
        registry = er.async_get(hass)
        for key, case in cases.items():
            fields = {
                name: {**field, "selector": selector.validate_selector(field["selector"])}
                if "selector" in field else field
                for name, field in case["fields"].items()
            }
            entry = registry.async_get_or_create("script", "script", key, suggested_object_id=key)
            registry.async_update_entity(
                entry.entity_id, name=case["registry_name"], aliases=set(case["aliases"])
            )
            hass.services.async_register(
                "script", key, lambda call: None, supports_response=SupportsResponse.OPTIONAL
            )
            description = {
                "name": case["name"], "description": case["description"], "fields": fields
            }
            async_set_service_schema(hass, "script", key, description)
            tool = llm.ScriptTool(hass, entry.entity_id)
            answers[key] = {
                "services": description,
                "name": tool.name,
                "description": tool.description,
                "parameters": convert(tool.parameters, custom_serializer=llm._selector_serializer),
            }
        await hass.async_stop(force=True)
    print(json.dumps(answers))

asyncio.run(main(json.load(sys.stdin)))
"""

EVERY_SELECTOR: dict[str, Any] = {
    "level": {
        "name": "Level",
        "description": "Brightness in percent",
        "required": True,
        "selector": {"number": {"min": 1, "max": 100}},
    },
    "speed": {"selector": {"number": {"mode": "box"}}},
    "loud": {"name": "Loud", "selector": {"boolean": {}}},
    "message": {"description": "What to say", "required": True, "selector": {"text": {}}},
    "lines": {"selector": {"text": {"multiple": True}}},
    "mode": {"selector": {"select": {"options": ["eco", "boost"]}}},
    "modes": {
        "selector": {
            "select": {
                "options": [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}],
                "multiple": True,
            }
        }
    },
    "light": {"selector": {"entity": {"domain": "light"}}},
    "lights": {"selector": {"entity": {"multiple": True}}},
    "payload": {"selector": {"object": {}}},
    "plain": {"name": "Plain"},
    "room": {"selector": {"area": {}}},
    "rooms": {"selector": {"area": {"multiple": True}}},
    "floor": {"selector": {"floor": {}}},
    "for": {"selector": {"duration": {}}},
    "at": {"selector": {"time": {}}},
    "on": {"selector": {"date": {}}},
    "when": {"selector": {"datetime": {}}},
    "color": {"selector": {"color_rgb": {}}},
    "mireds": {"selector": {"color_temp": {"min_mireds": 153, "max_mireds": 500}}},
    "kelvin": {"selector": {"color_temp": {"unit": "kelvin", "min": 2000, "max": 6500}}},
    "template": {"selector": {"template": {}}},
    "place": {"selector": {"location": {}}},
    "target": {"selector": {"target": {}}},
    "icon": {"selector": {"icon": {}}},
    "language": {"selector": {"language": {"languages": ["en", "nl"]}}},
    "any_language": {"selector": {"language": {}}},
    "country": {"selector": {"country": {}}},
    "trigger": {"selector": {"trigger": {}}},
    "condition": {"selector": {"condition": {}}},
    "flag": {"selector": {"constant": {"value": True, "label": "On"}}},
    "media": {"selector": {"media": {}}},
    "backup": {"selector": {"backup_location": {}}},
    "device": {"selector": {"device": {}}},
}
CASES: dict[str, dict[str, Any]] = {
    "dim_light": {
        "name": "Dim a light",
        "description": "Sets a light to a brightness",
        "fields": {key: EVERY_SELECTOR[key] for key in ("light", "level", "room")},
        "registry_name": None,
        "aliases": ["dimmer"],
    },
    "everything": {
        "name": "Everything",
        "description": "Takes every kind of field",
        "fields": EVERY_SELECTOR,
        "registry_name": "Kitchen Sink",
        "aliases": [],
    },
    "good_night": {
        "name": "Good Night",
        "description": "Turns the house in for the night",
        "fields": {},
        "registry_name": None,
        "aliases": [],
    },
}


@pytest.fixture(scope="module")
def home_assistant_tools(ha_version: str) -> dict[str, Any]:
    """What each Home Assistant version answers and offers for each case, by script key."""
    done = subprocess.run(
        [*python_command(ha_version), "-c", ORACLE],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    tools: dict[str, Any] = json.loads(done.stdout)
    return tools


@pytest.fixture(scope="module")
def our_tools(home_assistant_tools: dict[str, Any]) -> dict[str, Any]:
    """Our tool specs for a home holding the same scripts and registry entries."""
    home = HomeData()
    for key, case in CASES.items():
        home.entity(
            f"script.{key}",
            state="off",
            friendly_name=case["registry_name"] or case["name"],
            name=case["registry_name"],
            aliases=tuple(case["aliases"]),
            expose=True,
            unique_id=key,
        )
    scripts = {key: answer["services"] for key, answer in home_assistant_tools.items()}
    model = home.build(scripts=scripts)
    return {
        spec["function"]["name"]: spec["function"] for spec in build_registry(model, []).specs()
    }


def _comparable(schema: Any) -> Any:
    """The schema with every enum list sorted."""
    if isinstance(schema, dict):
        return {
            key: sorted(value, key=repr) if key == "enum" else _comparable(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_comparable(item) for item in schema]
    return schema


@pytest.mark.parametrize("key", sorted(CASES))
def test_parameters_match_home_assistant(
    home_assistant_tools: dict[str, Any], our_tools: dict[str, Any], key: str
) -> None:
    """The fields' JSON schema is the one Home Assistant sends a model, selector by selector."""
    theirs = home_assistant_tools[key]
    ours = our_tools[theirs["name"]]["parameters"]
    assert _comparable(ours) == _comparable(theirs["parameters"])


@pytest.mark.parametrize("key", sorted(CASES))
def test_description_matches_home_assistant(
    home_assistant_tools: dict[str, Any], our_tools: dict[str, Any], key: str
) -> None:
    """A described script reads as in Home Assistant, registry name and aliases included."""
    theirs = home_assistant_tools[key]
    assert our_tools[theirs["name"]]["description"] == theirs["description"]
