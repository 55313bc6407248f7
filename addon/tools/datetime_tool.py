"""``GetDateTime``: the current date and time, as Home Assistant's tool of that name gives them."""

from __future__ import annotations

from dataclasses import dataclass, field

from addon.text import JsonObject
from addon.tools.base import ToolContext


@dataclass(frozen=True, slots=True)
class GetDateTimeTool:
    """Lets the model ask for the time instead of trusting a prompt line that may be stale."""

    name: str = "GetDateTime"
    description: str = "Provides the current date and time."
    parameters: JsonObject = field(default_factory=lambda: {"type": "object", "properties": {}})
    kind: str = "builtin"

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """Return date, time, zone and weekday of ``context.now``."""
        now = context.now
        return {
            "success": True,
            "result": {
                "date": now.strftime("%Y-%m-%d"),
                "time": now.strftime("%H:%M:%S"),
                "timezone": now.strftime("%Z"),
                "weekday": now.strftime("%A"),
            },
        }
