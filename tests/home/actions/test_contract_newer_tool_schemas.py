"""Contract: the intents Home Assistant 2026.11 brought are described as it describes them.

Our tool schemas follow the Assist API of 2025.4 (``test_contract_tool_schemas``); the intents
2025.4 lacks have no older description, so theirs are compared with 2026.11's: a short script
in that release's venv registers the integrations' intent handlers and converts each the way its
LLM API does (``IntentTool`` and ``probatio.to_openapi`` with ``selector_serializer``). The
object-level ``additionalProperties: false`` it adds is left out, as it is from every tool of
ours; enum lists are compared as sets.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from addon.home.actions.intents import INTENTS, parameters_schema
from devtools.home_assistant import python_command

pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]

NEWER = (
    "HassMediaPlayerMute",
    "HassMediaPlayerUnmute",
    "HassSetVolumeRelative",
    "HassMediaSearchAndPlay",
    "HassClimateSetFanMode",
    "HassLawnMowerStartMowing",
    "HassLawnMowerDock",
    "HassVacuumCleanArea",
    "HassListCompleteItem",
    "HassListRemoveItem",
)

DUMP_TOOLS = """
import asyncio, json, probatio
from homeassistant.helpers import intent, llm
from homeassistant.components.climate import intent as climate
from homeassistant.components.lawn_mower import intent as lawn_mower
from homeassistant.components.media_player import intent as media_player
from homeassistant.components.todo import intent as todo
from homeassistant.components.vacuum import intent as vacuum

handlers = []
intent.async_register = lambda hass, handler: handlers.append(handler)
for module in (climate, lawn_mower, media_player, todo, vacuum):
    asyncio.run(module.async_setup_intents(None))
tools = {}
for handler in handlers:
    tool = llm.IntentTool(handler.intent_type, handler)
    tools[handler.intent_type] = {
        "description": tool.description,
        "parameters": probatio.to_openapi(
            tool.parameters, custom_serializer=llm.selector_serializer
        ),
    }
print(json.dumps(tools))
"""


@pytest.fixture(scope="module")
def home_assistant_tools(ha_version: str) -> dict[str, Any]:
    """The tools Home Assistant 2026.11 describes, by intent name."""
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
    """The schema with enum lists sorted, without ``additionalProperties`` or empty ``required``."""
    if isinstance(schema, dict):
        return {
            key: sorted(value) if key == "enum" else _comparable(value)
            for key, value in schema.items()
            if key != "additionalProperties" and not (key == "required" and value == [])
        }
    if isinstance(schema, list):
        return [_comparable(item) for item in schema]
    return schema


@pytest.mark.parametrize("name", NEWER)
def test_newer_intents_match_home_assistant_2026_11(
    home_assistant_tools: dict[str, Any], name: str
) -> None:
    """Description and parameters are those Home Assistant 2026.11 gives a model."""
    tool = home_assistant_tools[name]
    assert INTENTS[name].description == tool["description"]
    assert _comparable(parameters_schema(INTENTS[name])) == _comparable(tool["parameters"])
