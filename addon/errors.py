"""The one exception hierarchy of Home Agent.

Every error that crosses a module boundary is one of these, raised ``from`` the library error
that caused it, so callers at the edges (views, the Wyoming handler, ``__main__``) can turn it into
a clear answer without knowing which SDK was underneath.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar


class ErrorKind(StrEnum):
    """Why a turn could not be answered as asked, as its trace records it.

    Each kind has its own spoken message (:mod:`addon.i18n.messages`): "the model took too
    long" and "the model refused the API key" call for different things from the user.
    """

    LLM_TIMEOUT = "llm_timeout"
    LLM_AUTH = "llm_auth"
    LLM_MODEL_NOT_FOUND = "llm_model_not_found"
    LLM_UNREACHABLE = "llm_unreachable"
    LLM_RATE_LIMITED = "llm_rate_limited"
    LLM_FAILED = "llm_failed"
    """Any other failure of the endpoint: a 5xx after retries, an answer that is not usable."""
    ITERATION_LIMIT = "iteration_limit"
    NO_MODEL = "no_model"
    NOT_CONNECTED = "not_connected"
    INTENT_FAILED = "intent_failed"
    """The local path matched a command but carrying it out failed."""


class HomeAgentError(Exception):
    """Base of every error Home Agent raises on purpose."""


class ConfigError(HomeAgentError):
    """An option or flag is invalid; the message names the option and the reason."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"invalid option '{option}': {reason}")
        self.option = option
        self.reason = reason


class StoreError(HomeAgentError):
    """The SQLite store cannot be opened, migrated or written."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer Home Agent; we refuse to touch it."""


class StoreLockedError(StoreError):
    """Another process holds the database lock."""


class NotFoundError(HomeAgentError):
    """A record the caller asked for does not exist."""


class HomeAssistantError(HomeAgentError):
    """Talking to Home Assistant failed."""


class HomeAssistantAuthError(HomeAssistantError):
    """Home Assistant rejected the token; retrying will not help."""


class HomeAssistantUnavailableError(HomeAssistantError):
    """Home Assistant is not connected right now (restarting, unreachable)."""


class HomeAssistantCommandError(HomeAssistantError):
    """Home Assistant answered a command with an error result."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class ToolError(HomeAgentError):
    """A tool could not run: bad arguments, unknown tool, or a failure while acting."""


class ActorRefusedError(ToolError):
    """The turn's actor may not do this: a rule of the Safety page for the person or satellite.

    ``spoken`` is the refusal in the person's language ("Kids Room Speaker can't unlock the Front
    Door."), what the local path says and the model reads; ``reason`` is the trace's English.
    """

    def __init__(self, spoken: str, reason: str) -> None:
        super().__init__(spoken)
        self.spoken = spoken
        self.reason = reason


class LLMError(HomeAgentError):
    """The language model endpoint failed or answered with something unusable."""

    kind: ClassVar[ErrorKind] = ErrorKind.LLM_FAILED


class LLMTimeoutError(LLMError):
    """The model did not answer within ``request_timeout``."""

    kind = ErrorKind.LLM_TIMEOUT


class LLMAuthError(LLMError):
    """The endpoint refused the API key (401); retrying will not help."""

    kind = ErrorKind.LLM_AUTH


class LLMModelNotFoundError(LLMError):
    """The endpoint does not know the configured model (404 naming the model)."""

    kind = ErrorKind.LLM_MODEL_NOT_FOUND


class LLMUnreachableError(LLMError):
    """No connection to the endpoint: refused, no route, or a name that does not resolve."""

    kind = ErrorKind.LLM_UNREACHABLE


class LLMServerError(LLMError):
    """The endpoint failed on its side: a 5xx after retries, or an answer that broke off.

    Its own class (the kind stays ``llm_failed``) because a backup endpoint may answer where
    this one failed, unlike a request the endpoint rejected as malformed.
    """


class LLMRateLimitedError(LLMError):
    """The endpoint still answered 429 after the client's retries."""

    kind = ErrorKind.LLM_RATE_LIMITED


class CustomToolInvalid(HomeAgentError):
    """A custom tool's definition breaks the rules; every problem names its field.

    ``problems`` holds ``(path, message)`` pairs such as ``("rest.url", "…")``, all of them at
    once, so an editor can mark every line concerned in one round trip.
    """

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        listed = "; ".join(f"{path or '(definition)'}: {message}" for path, message in problems)
        super().__init__(f"invalid custom tool: {listed}")


class TemplateRenderError(ToolError):
    """A custom tool's template failed: the message names the field, the line and the cause."""

    def __init__(self, field: str, line: int | None, cause: str) -> None:
        where = f"{field}, line {line}" if line is not None else field
        super().__init__(f"template {where}: {cause}")
        self.field = field
        self.line = line
        self.cause = cause


class CustomToolCallError(ToolError):
    """A custom tool's call failed; carries what was sent and received, for the trace.

    ``request`` and ``response`` are the runner's records (typed there): kept as objects here
    so the hierarchy stays free of the feature's types.
    """

    def __init__(self, message: str, *, request: object = None, response: object = None) -> None:
        super().__init__(message)
        self.request = request
        self.response = response


class ToolNameTakenError(CustomToolInvalid):
    """Another custom tool that is not deleted already has this name: a problem of ``name``."""

    def __init__(self, name: str) -> None:
        super().__init__([("name", f"a custom tool named {name!r} already exists")])
        self.name = name


class TaskFileInvalid(HomeAgentError):
    """An evaluation task file breaks the format (docs: DOCS.md, "Task files").

    ``problems`` holds ``(path, message)`` pairs such as ``("tasks[3].expect", "…")``, every one
    found at once, so a user fixes the file in one pass.
    """

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        listed = "; ".join(f"{path or '(file)'}: {message}" for path, message in problems)
        super().__init__(f"invalid task file: {listed}")


class McpServerInvalid(HomeAgentError):
    """An MCP server the user added breaks the rules (its name, its URL, its header)."""


class McpError(ToolError):
    """An MCP server could not be reached, or refused a request; the message says which."""


class PolicyEntryInvalid(HomeAgentError):
    """A confirmation policy entry the user added breaks the rules (its target, actions, PIN)."""


class AutomationDraftInvalid(HomeAgentError):
    """A drafted automation Home Assistant or the gate will not take (said to the model or page)."""


class AutomationDraftState(HomeAgentError):
    """A draft asked to do what its state does not allow (approve one already discarded...)."""
