"""Fewer tools for small models: only what the request's context selection needs.

A small local model picks the right tool more often from five than from twenty, and every tool's
schema costs prompt tokens on every call. With the ``tool_budget`` option a turn offers the
intent tools whose domains the selected entities are in (``HassLightSet`` for a light,
``HassClimateSetTemperature`` for a thermostat), the scripts that were selected, and the tools
that are always on: the intents for every domain (``HassTurnOn``, ``HassTurnOff``, …), the
tools that find and read the home (``GetLiveContext``, ``SearchEntities``), ``GetDateTime``,
memory, the expert, and the user's custom and MCP tools, which the user chose to offer.

The tool list then differs from turn to turn, so a server's prefix cache keeps only the system
prompt (docs/DECISIONS.md weighs this).
"""

from __future__ import annotations

from addon.home.actions.intents import INTENTS
from addon.home.context.selection import ContextSelection
from addon.tools.home_tools import ScriptTool
from addon.tools.registry import ToolRegistry


def budgeted(registry: ToolRegistry, selection: ContextSelection) -> ToolRegistry:
    """``registry`` without the intent tools and scripts ``selection`` gives no reason for."""
    entity_ids = set(selection.entity_ids)
    domains = {entity_id.partition(".")[0] for entity_id in entity_ids}
    domains.update(domain for domain, _ in selection.kinds)
    kept = []
    for tool in registry.tools():
        if tool.kind == "intent":
            platforms = INTENTS[tool.name].platforms if tool.name in INTENTS else None
            if platforms is not None and not platforms & domains:
                continue
        elif isinstance(tool, ScriptTool) and tool.entity_id not in entity_ids:
            continue
        kept.append(tool)
    return registry.keeping(kept)
