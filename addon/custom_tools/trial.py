"""A custom tool tried from the panel: the shape of the answer, and who produces it.

The panel's "Try it" must see exactly what the model would: the same argument repair and
validation, the same runner, the same result text, and the same confirmation policy: a call the
policy covers (unlocking a lock, a script) is reported as held for confirmation, with what and
why as the gate decided, and never performed. The tools package does that (it owns the argument
handling); this module only names the answer and the callable the wiring hands to the web layer,
so the web layer need not import the tools package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from addon.home.actions.gate import Decision
from addon.text import JsonObject, JsonValue


@dataclass(frozen=True, slots=True)
class TrialRun:
    """What a try sent and got back: the runner's record in its trace form, secrets masked."""

    sent: bool
    request: JsonObject | None
    """The rendered request, None if nothing was built."""
    response: JsonObject | None
    steps: tuple[JsonObject, ...]
    """A composite's steps, each with its request and response."""

    @classmethod
    def of(cls, detail: JsonObject) -> TrialRun:
        """Read the runner's trace form (``ToolRun.as_dict``) once, where the try is made."""
        return cls(
            sent=bool(detail.get("sent", False)),
            request=_object(detail.get("request")),
            response=_object(detail.get("response")),
            steps=tuple(step for step in _list(detail.get("steps")) if isinstance(step, dict)),
        )


NOTHING_RAN: Final = TrialRun(sent=False, request=None, response=None, steps=())
"""A try whose arguments were refused before anything ran."""


@dataclass(frozen=True, slots=True)
class Trial:
    """One try of a tool, secrets masked throughout.

    ``arguments`` are the arguments after repair (what the tool ran with); ``result`` is what the
    model would receive; ``run`` is the runner's record (rendered request, response, steps), None
    when the arguments were refused before anything ran; ``held`` are the gate's ``confirm``
    decisions: what a turn would have held for the user's confirmation, and why (not performed).
    """

    name: str
    arguments: JsonObject
    repaired: bool
    result: JsonObject
    error: str | None
    duration_ms: float
    dry_run: bool
    run: TrialRun | None
    held: tuple[Decision, ...] = ()

    def as_dict(self) -> JsonObject:
        """JSON-ready form for the API."""
        run = self.run or NOTHING_RAN
        return {
            "name": self.name,
            "arguments": self.arguments,
            "repaired": self.repaired,
            "dry_run": self.dry_run,
            "sent": run.sent,
            "request": run.request,
            "response": run.response,
            "steps": list(run.steps),
            "held": [decision.as_dict() for decision in self.held],
            "result": self.result,
            "error": self.error,
            "duration_ms": round(self.duration_ms, 3),
        }


class TryTool(Protocol):
    """Runs a definition (a plain mapping) once with the given arguments, as the model would.

    ``arguments`` is an object or the argument text a model would send. Raises
    :class:`~addon.errors.CustomToolInvalid` when the definition does not parse; anything the
    call itself does wrong is in the :class:`Trial`. The confirmation policy is a turn's
    (the wiring's business): a covered call is in :attr:`Trial.held`, never performed.
    """

    async def __call__(
        self,
        definition: Mapping[str, JsonValue],
        arguments: Mapping[str, JsonValue] | str,
        *,
        dry_run: bool,
    ) -> Trial:
        """Try the tool once."""


def _object(value: JsonValue) -> JsonObject | None:
    return value if isinstance(value, dict) else None


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []
