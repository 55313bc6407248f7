"""What answering a turn produced, whichever path answered it, and how an endpoint sees a call.

:class:`Answer` crosses from the paths (the local matcher, a held action's confirmation, the
model's tool loop) back to the agent, which records it and hands the result to the endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

from addon.agent.conversation import ActionSummary, HandledBy
from addon.llm.messages import ChatMessage
from addon.tools.registry import ToolOutcome


@dataclass(frozen=True, slots=True)
class Answer:
    """The reply, the messages the turn adds to history (the user's first) and what it did."""

    reply: str
    messages: list[ChatMessage]
    handled_by: HandledBy
    error: str | None
    outcomes: tuple[ToolOutcome, ...]
    actions_failed: bool = False
    """Every action the turn tried failed (:mod:`addon.agent.truth`): its outcome is "failed"."""


def action_summary(outcome: ToolOutcome) -> ActionSummary:
    """A tool call as API callers and the UI see it: did it work, and on what."""
    return ActionSummary(
        tool=outcome.name,
        arguments=outcome.arguments,
        success=outcome.ok and outcome.result.succeeded,
        targets=[target.id for target in outcome.result.targets],
        error=outcome.error or outcome.result.error_text,
    )
