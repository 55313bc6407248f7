"""Contract: our tool schemas are the ones Home Assistant 2025.4.4's Assist API builds.

A short script runs inside Home Assistant's own venv, registers the intent handlers of the
``intent``, light, media player, vacuum, to-do, weather and climate integrations, and converts
each with ``helpers/llm.py``'s ``IntentTool`` and ``voluptuous_openapi.convert`` exactly as the
Assist API does for a model. Our :func:`parameters_schema` must produce the same JSON. Enum
lists are compared as sets: Home Assistant builds the device class enum by iterating a *set* of
enum classes, so its order changes from one process to the next.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from addon.home.actions.intents import INTENTS, parameters_schema
from devtools.home_assistant import python_command

# Against 2025.4.4 only: 2026.x's LLM API namespaces and annotates its tools and describes them
# through probatio; ours follow the Assist API of the seeds (docs/DECISIONS.md).
pytestmark = [pytest.mark.homeassistant, pytest.mark.oldest_ha_only]

DUMP_TOOLS = """
import asyncio, json
from homeassistant.helpers import intent, llm
from homeassistant.components import intent as core
from homeassistant.components.climate import intent as climate
from homeassistant.components.light import intent as light
from homeassistant.components.media_player import intent as media_player
from homeassistant.components.todo import intent as todo
from homeassistant.components.vacuum import intent as vacuum
from homeassistant.components.weather import intent as weather
from voluptuous_openapi import convert

handlers = []
intent.async_register = lambda hass, handler: handlers.append(handler)
for module in (light, media_player, vacuum, todo, weather, climate):
    asyncio.run(module.async_setup_intents(None))
classes = core.ONOFF_DEVICE_CLASSES
handlers += [
    core.OnOffIntentHandler("HassTurnOn", "homeassistant", "turn_on",
        description="Turns on/opens a device or entity", device_classes=classes),
    core.OnOffIntentHandler("HassTurnOff", "homeassistant", "turn_off",
        description="Turns off/closes a device or entity", device_classes=classes),
    intent.ServiceIntentHandler("HassToggle", "homeassistant", "toggle",
        description="Toggles a device or entity", device_classes=classes),
    core.GetStateIntentHandler(), core.SetPositionIntentHandler(),
    core.GetCurrentDateIntentHandler(), core.GetCurrentTimeIntentHandler(),
    core.GetTemperatureIntent(), core.NevermindIntentHandler(), core.RespondIntentHandler(),
]
tools = {}
for handler in handlers:
    tool = llm.IntentTool(handler.intent_type, handler)
    tools[handler.intent_type] = {
        "description": tool.description,
        "parameters": convert(tool.parameters, custom_serializer=llm._selector_serializer),
        "in_assist_api": handler.intent_type not in llm.AssistAPI.IGNORE_INTENTS,
    }
print(json.dumps(tools))
"""


@pytest.fixture(scope="module")
def home_assistant_tools(ha_version: str) -> dict[str, Any]:
    """The tools each Home Assistant version describes, by intent name."""
    done = subprocess.run(
        [*python_command(ha_version), "-c", DUMP_TOOLS],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    tools: dict[str, Any] = json.loads(done.stdout)
    return tools


def _comparable(schema: Any) -> Any:
    """The schema with every enum list turned into a sorted list."""
    if isinstance(schema, dict):
        return {
            key: sorted(value) if key == "enum" else _comparable(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_comparable(item) for item in schema]
    return schema


NEWER = frozenset(
    {
        "HassFanSetSpeed",
        "HassMediaPlayerMute",
        "HassMediaPlayerUnmute",
        "HassSetVolumeRelative",
        "HassMediaSearchAndPlay",
        "HassClimateSetFanMode",
        "HassLawnMowerStartMowing",
        "HassLawnMowerDock",
        "HassVacuumCleanArea",
        "HassListRemoveItem",
    }
)
"""Intents Home Assistant 2025.4.4 does not have (described as its later release does)."""
SHOPPING_LIST = frozenset({"HassShoppingListAddItem", "HassShoppingListCompleteItem"})
# Our own intents' names begin with this; Home Assistant has no schema of theirs to compare.
OWN_PREFIX = "HomeAgent"
"""Offered for a ``shopping_list`` entity, which never exists: local-only here."""

SHARED = sorted(
    name
    for name in INTENTS
    if name not in NEWER | SHOPPING_LIST and not name.startswith(OWN_PREFIX)
)


@pytest.mark.parametrize("name", SHARED)
def test_parameters_match_home_assistant(home_assistant_tools: dict[str, Any], name: str) -> None:
    """The parameters schema is the JSON Home Assistant builds for the same intent."""
    ours = parameters_schema(INTENTS[name])
    assert _comparable(ours) == _comparable(home_assistant_tools[name]["parameters"])


@pytest.mark.parametrize("name", SHARED)
def test_description_matches_home_assistant(
    home_assistant_tools: dict[str, Any], name: str
) -> None:
    """The description and whether the Assist API offers it are Home Assistant's."""
    tool = home_assistant_tools[name]
    spec = INTENTS[name]
    assert (spec.description, spec.in_assist_api) == (tool["description"], tool["in_assist_api"])
