"""What the endpoints hand the agent and what they get back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from addon.errors import ErrorKind

Source = Literal["wyoming", "http", "openai", "ui", "eval"]
HandledBy = Literal["local", "llm", "failed"]


@dataclass(frozen=True, slots=True)
class ConversationRequest:
    """One user utterance and where it came from."""

    text: str
    source: Source
    conversation_id: str | None = None
    language: str | None = None
    device_id: str | None = None
    satellite_id: str | None = None
    # True asks for a dry run; the dry_run option, when on, makes every turn one regardless.
    dry_run: bool | None = None


@dataclass(frozen=True, slots=True)
class ActionSummary:
    """A tool call that acted on (or read) the home, for API callers and the UI."""

    tool: str
    arguments: dict[str, Any]
    success: bool
    targets: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ConversationResult:
    """The reply and how it came about."""

    reply: str
    conversation_id: str
    turn_id: int
    handled_by: HandledBy
    actions: list[ActionSummary]
    continue_conversation: bool
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error_kind: ErrorKind | None = None
    """Why the turn failed or was cut short (the model timed out, refused the key…)."""
