"""The safety labels of the tools ``/mcp`` serves, as MCP's ``ToolAnnotations`` carry them.

Home Assistant 2026.10 labels its own tools (``helpers/llm.py``'s ``ToolAnnotations``) and its MCP
server passes the labels on; ours does the same for the same tools, so a client that asks before
a destructive call, or lets a read-only one run freely, treats both servers alike. The labels are
claims about effects, so each is what is true of the tool whatever its arguments: a tool not in
these tables (a script, a custom tool, ``converse``, a tool added later) keeps the
specification's defaults, those of a tool that may do anything.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp_types as types

from addon.home.actions.gate import UNLABELLED, ToolLabels

READS = ToolLabels(read_only=True, destructive=False, idempotent=True, open_world=False)
"""Reads the home (or the clock, or memory) and changes nothing."""
CONTROLS = ToolLabels(idempotent=True, open_world=False)
"""Sets a device to a state: again with the same arguments changes nothing more."""
REPEATS = ToolLabels(open_world=False)
"""Acts again on every call (turning a button on presses it; "next track" skips again)."""
ADDS = ToolLabels(destructive=False, open_world=False)
"""Only adds (an item to a list, a memory)."""

BY_NAME: Mapping[str, ToolLabels] = {
    "GetLiveContext": READS,
    "GetDateTime": READS,
    "SearchEntities": READS,
    "HassGetState": READS,
    "HassClimateGetTemperature": READS,
    "HassGetWeather": READS,
    "HassGetCurrentTime": READS,
    "HassGetCurrentDate": READS,
    "HassTimerStatus": READS,
    "HassNevermind": READS,
    "HassRespond": READS,
    "HomeAgentSensorValue": READS,
    "HomeAgentStateCheck": READS,
    "HomeAgentWeatherCondition": READS,
    "HomeAgentOutsideTemperature": READS,
    "HomeAgentListItems": READS,
    "HomeAgentCalendarEvents": READS,
    "recall_memories": READS,
    # Home Assistant's labels for the same intents (components/intent/llm.py).
    "HassTurnOn": REPEATS,
    "HassTurnOff": CONTROLS,
    "HassSetPosition": CONTROLS,
    "HassToggle": REPEATS,
    "HassLightSet": CONTROLS,
    "HassClimateSetTemperature": CONTROLS,
    "HassSetVolume": CONTROLS,
    "HassFanSetSpeed": CONTROLS,
    "HassMediaPause": CONTROLS,
    "HassMediaUnpause": CONTROLS,
    "HassMediaNext": REPEATS,
    "HassMediaPrevious": REPEATS,
    "HassVacuumStart": CONTROLS,
    "HassVacuumReturnToBase": CONTROLS,
    "HassListAddItem": ADDS,
    # Home Assistant 2026.11's labels for the intents it brought (each integration's llm.py).
    "HassMediaPlayerMute": CONTROLS,
    "HassMediaPlayerUnmute": CONTROLS,
    "HassSetVolumeRelative": REPEATS,
    "HassLawnMowerStartMowing": CONTROLS,
    "HassLawnMowerDock": CONTROLS,
    "HassVacuumCleanArea": REPEATS,
    "HassListCompleteItem": REPEATS,
    "HassListRemoveItem": REPEATS,
    "remember": ADDS,
    # Forgetting deletes; forgetting the same memory again changes nothing.
    "forget_memory": ToolLabels(idempotent=True, open_world=False),
    # Asks another model: changes nothing, but reaches outside the home.
    "ask_expert": ToolLabels(read_only=True, destructive=False, idempotent=False),
}
"""Each of our own tools whose effects are known by its name."""

OWN_KINDS = frozenset({"intent", "builtin", "memory", "expert"})
"""Kinds of tool whose name says what it is; a user's script or custom tool may take any name."""


def labels(name: str, kind: str) -> ToolLabels:
    """The labels of the tool offered as ``name`` (the specification's defaults if unknown)."""
    return BY_NAME.get(name, UNLABELLED) if kind in OWN_KINDS else UNLABELLED


def tool_annotations(name: str, kind: str) -> types.ToolAnnotations:
    """The tool's labels as MCP sends them, every hint spelt out."""
    found = labels(name, kind)
    return types.ToolAnnotations(
        read_only_hint=found.read_only,
        destructive_hint=found.destructive,
        idempotent_hint=found.idempotent,
        open_world_hint=found.open_world,
    )
