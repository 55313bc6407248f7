"""What answering a turn produced, whichever path answered it, and how an endpoint sees a call.

:class:`Answer` crosses from the paths (the local matcher, a held action's confirmation, the
model's tool loop) back to the agent, which records it and hands the result to the endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

from addon.agent.conversation import ActionSummary, HandledBy
from addon.agent.spoken import SpokenStream
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


def missed_on_exposure(answer: Answer, spoken: SpokenStream | None) -> bool:
    """Whether a turn is worth answering again if exposure changed since the home was read.

    A target was not found (not exposed, or not known by that name or in that area: an entity
    Home Assistant exposes without telling is neither), and nothing was done or heard: a
    reply already streamed, or an action taken, is never repeated.
    """
    if spoken is not None and spoken.heard:
        return False
    if any(outcome.acted or outcome.result.targets for outcome in answer.outcomes):
        return False
    return any(outcome.failure is not None for outcome in answer.outcomes)
