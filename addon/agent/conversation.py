"""What the endpoints hand the agent and what they get back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from addon.errors import ErrorKind
from addon.text import JsonObject
from addon.tools.result import ToolResult

Source = Literal["wyoming", "http", "openai", "ui", "eval", "mcp"]
HandledBy = Literal["local", "llm", "failed", "tool"]
"""``tool``: a tool called directly by an MCP client, with no sentence matching and no model."""


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
    user_id: str | None = None
    """The Home Assistant user, where the endpoint knows it for certain (ingress names it)."""
    user_name: str | None = None


@dataclass(frozen=True, slots=True)
class ActionSummary:
    """A tool call that acted on (or read) the home, for API callers and the UI."""

    tool: str
    arguments: JsonObject
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
    needs_confirmation: JsonObject | None = None
    """The actions the confirmation policy held, and how to confirm them (``yes`` or ``pin``);
    the next turn of the conversation confirms or cancels them. None when nothing was held."""
    said: str = ""
    """The request's text as stored: a PIN (or an answer to a PIN question) masked, so a live
    view shows what a reload shows."""
    dry_run: bool = False
    """The turn was a dry run (asked for, the option, or answering a dry run's question)."""
    actions_failed: bool = False
    """Nothing the turn tried to do happened; its reply says so (:mod:`addon.agent.truth`)."""


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """A tool the agent offers, as an endpoint describes it to its callers (MCP's tools list)."""

    name: str
    description: str
    parameters: JsonObject
    """JSON schema of the arguments (an ``object`` schema)."""
    kind: str
    """Where it runs: ``intent``, ``builtin``, ``script``, ``custom``, ``mcp``..."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool called directly (not by the model), recorded as a turn of its own."""

    name: str
    arguments: JsonObject
    source: Source
    language: str | None = None
    # True asks for a dry run; the dry_run option, when on, makes every call one regardless.
    dry_run: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """What a directly called tool answered, and the turn that records the call."""

    result: ToolResult
    """What the model would have read: the tool's result, or ``{"error", "error_text"}``; the
    endpoint renders it (:meth:`~addon.tools.result.ToolResult.for_model`)."""
    error: str | None
    conversation_id: str
    turn_id: int
    dry_run: bool
