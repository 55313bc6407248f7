"""The one exception hierarchy of Home Agent.

Every error that crosses a module boundary is one of these, raised ``from`` the library error
that caused it, so callers at the edges (views, the Wyoming handler, ``__main__``) can turn it into
a clear answer without knowing which SDK was underneath.
"""

from __future__ import annotations


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


class LLMError(HomeAgentError):
    """The language model endpoint failed or answered with something unusable."""
