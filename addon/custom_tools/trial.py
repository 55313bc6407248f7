"""A custom tool tried from the panel: the shape of the answer, and who produces it.

The panel's "Try it" must see exactly what the model would: the same argument repair and
validation, the same runner, the same result text. The tools package does that (it owns the
argument handling); this module only names the answer and the callable the wiring hands to the
web layer, so the web layer need not import the tools package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from addon.text import JsonObject


@dataclass(frozen=True, slots=True)
class Trial:
    """One try of a tool, secrets masked throughout.

    ``arguments`` are the arguments after repair (what the tool ran with); ``result`` is what the
    model would receive; ``run`` is the runner's record (rendered request, response, steps), None
    when the arguments were refused before anything ran.
    """

    name: str
    arguments: JsonObject
    repaired: bool
    result: JsonObject
    error: str | None
    duration_ms: float
    dry_run: bool
    run: JsonObject | None

    def as_dict(self) -> JsonObject:
        """JSON-ready form for the API."""
        run = self.run or {}
        return {
            "name": self.name,
            "arguments": self.arguments,
            "repaired": self.repaired,
            "dry_run": self.dry_run,
            "sent": run.get("sent", False),
            "request": run.get("request"),
            "response": run.get("response"),
            "steps": run.get("steps", []),
            "result": self.result,
            "error": self.error,
            "duration_ms": round(self.duration_ms, 3),
        }


class TryTool(Protocol):
    """Runs a definition (a plain mapping) once with the given arguments, as the model would.

    ``arguments`` is an object or the argument text a model would send. Raises
    :class:`~addon.errors.CustomToolInvalid` when the definition does not parse; anything the
    call itself does wrong is in the :class:`Trial`.
    """

    async def __call__(
        self, definition: Mapping[str, Any], arguments: Mapping[str, Any] | str, *, dry_run: bool
    ) -> Trial:
        """Try the tool once."""
