"""What a turn did, collected in memory while it runs and written to the store once at the end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from addon.errors import ErrorKind
from addon.llm.client import Completion
from addon.llm.messages import ChatMessage
from addon.text import JsonObject
from addon.tools.registry import ToolOutcome


@dataclass(slots=True)
class LLMCallTrace:
    """One request to the model and its answer.

    ``endpoint`` names who answered: ``primary``, ``backup`` (the fallback, with ``note`` saying
    why) or ``expert``; an expert call is nested in the tool call ``tool_call_id``.
    """

    started_at: datetime
    model: str
    streamed: bool
    request_messages: Sequence[ChatMessage]
    request_tools: list[JsonObject]
    response: JsonObject = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ttft_ms: float | None = None
    duration_ms: float = 0.0
    finish_reason: str | None = None
    error: str | None = None
    endpoint: str = "primary"
    tool_call_id: str | None = None
    note: str | None = None

    def answered(self, completion: Completion) -> None:
        """Record what the answer says about itself: the message, tokens, times, finish.

        Reasoning and the text as written, which the listener never gets, are kept here; so
        are the ids of the calls read from the text ("recovered from text" on the trace page).
        """
        self.response = completion.traced()
        self.prompt_tokens = completion.prompt_tokens
        self.completion_tokens = completion.completion_tokens
        self.ttft_ms = completion.ttft_ms
        self.duration_ms = completion.duration_ms
        self.finish_reason = completion.finish_reason


@dataclass(slots=True)
class ToolCallTrace:
    """One tool execution; ``llm_call`` is the index of the model call that asked for it."""

    started_at: datetime
    call_id: str
    outcome: ToolOutcome
    llm_call: int | None


@dataclass(slots=True)
class TurnTrace:
    """Everything recorded for one turn."""

    llm_calls: list[LLMCallTrace] = field(default_factory=list)
    tool_calls: list[ToolCallTrace] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    error_kind: ErrorKind | None = None
    """Why the turn failed or was cut short, when it was; stored with the turn."""
    recalled_memories: tuple[int, ...] = ()
    """The memories recalled into the request, stored as links once the turn is stored."""
    context: JsonObject | None = None
    """A large home's selected entities and why each was chosen; None in a small home."""
    states: JsonObject | None = None
    """The states of the entities the turn acted on, before and after (``state_record.py``)."""
    actor: JsonObject | None = None
    """Who asked (:class:`~addon.home.actions.actor.Actor`), "unknown" for what is not known."""

    @property
    def prompt_tokens(self) -> int:
        """Tokens sent over all model calls of the turn."""
        return sum(call.prompt_tokens for call in self.llm_calls)

    @property
    def completion_tokens(self) -> int:
        """Tokens generated over all model calls of the turn."""
        return sum(call.completion_tokens for call in self.llm_calls)
