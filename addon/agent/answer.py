"""What answering a turn produced, whichever path answered it, and how an endpoint sees a call.

:class:`Answer` crosses from the paths (the local matcher, a held action's confirmation, the
model's tool loop) back to the agent, which records it and hands the result to the endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addon.agent.conversation import ActionSummary, HandledBy
from addon.tools.registry import ToolOutcome


@dataclass(frozen=True, slots=True)
class Answer:
    """The reply, the messages the turn adds to history (the user's first) and what it did."""

    reply: str
    messages: list[dict[str, Any]]
    handled_by: HandledBy
    error: str | None
    outcomes: tuple[ToolOutcome, ...]


def action_summary(outcome: ToolOutcome) -> ActionSummary:
    """A tool call as API callers and the UI see it: did it work, and on what."""
    data = outcome.result.get("data", {}) if isinstance(outcome.result.get("data"), dict) else {}
    targets = [t.get("id", "") for t in data.get("success", []) if isinstance(t, dict)]
    success = (
        outcome.ok
        and outcome.result.get("response_type") != "error"
        and (outcome.result.get("success", True) is not False)
    )
    return ActionSummary(
        tool=outcome.name,
        arguments=outcome.arguments,
        success=success,
        targets=targets,
        error=outcome.error or outcome.result.get("error_text"),
    )
