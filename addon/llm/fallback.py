"""A backup endpoint for when the primary fails, and a short memory of the primary being down.

One model call is one request: when the primary cannot be reached, answers 5xx, times out or is
rate limited, the same request (same messages, tools already run and their results included)
goes to the backup. Nothing else is repeated, so a tool the primary asked for never runs twice.
A rejected key or an unknown model is not a reason: those are settings to fix, and the user is
told so rather than quietly served by the backup (docs/DECISIONS.md).

After a failure the primary is skipped for :data:`PRIMARY_RETRY_S`, so each turn of an outage
does not wait for the primary's timeout first; the next call after that tries it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from addon.errors import (
    LLMError,
    LLMRateLimitedError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnreachableError,
)
from addon.health import ComponentHealth
from addon.llm.client import Completion, LLMClient, TextSink
from addon.llm.messages import ChatMessage
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

PRIMARY_RETRY_S = 60.0
"""How long the primary is skipped after it failed in a way the backup covers."""

Endpoint = Literal["primary", "backup"]
# The failures a backup may answer where the primary could not.
FALLBACK_ERRORS = (LLMUnreachableError, LLMServerError, LLMTimeoutError, LLMRateLimitedError)


def falls_back(err: LLMError) -> bool:
    """Whether a primary failing with ``err`` hands its request to the backup."""
    return isinstance(err, FALLBACK_ERRORS)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One request to one endpoint, as the trace records it.

    ``note`` says why this endpoint was asked when it was not the obvious one (the backup).
    """

    endpoint: Endpoint
    model: str
    started_at: datetime
    result: Completion | LLMError
    note: str | None = None

    @property
    def error(self) -> LLMError | None:
        """The failure, when this attempt failed."""
        return self.result if isinstance(self.result, LLMError) else None


class Fallback:
    """The backup endpoint, and whether the primary is to be skipped for now.

    ``clock`` is monotonic seconds; tests pass their own to move past the retry window.
    """

    def __init__(
        self,
        backup: LLMClient,
        *,
        retry_after: float = PRIMARY_RETRY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backup = backup
        self._retry_after = retry_after
        self._clock = clock
        self._down_since: float | None = None
        self._down_reason = ""

    def primary_down(self) -> str | None:
        """Why the primary is being skipped, or None when it is to be asked."""
        if self._down_since is None:
            return None
        if self._clock() - self._down_since >= self._retry_after:
            return None
        return self._down_reason

    def primary_failed(self, err: LLMError) -> None:
        """Skip the primary for a while after ``err``."""
        if self.primary_down() is None:
            _LOGGER.warning(
                "Model endpoint failed (%s); using the backup for %.0f s: %s",
                err.kind,
                self._retry_after,
                err,
            )
        self._down_since = self._clock()
        self._down_reason = str(err)

    def primary_answered(self) -> None:
        """The primary works again: ask it first from now on."""
        if self._down_since is not None:
            _LOGGER.info("Model endpoint answers again; the backup is no longer used")
        self._down_since = None
        self._down_reason = ""

    async def primary_health(self, primary: LLMClient) -> ComponentHealth:
        """The primary's own check, degraded while calls go to the backup."""
        reason = self.primary_down()
        if reason is None:
            return await primary.health()
        left = self._retry_after - (self._clock() - (self._down_since or 0.0))
        return ComponentHealth(
            "degraded",
            f"calls go to the backup for {left:.0f} s more; the primary failed: {reason}",
        )


async def complete(
    primary: LLMClient,
    fallback: Fallback | None,
    messages: Sequence[ChatMessage],
    tools: list[JsonObject],
    *,
    stream: bool = False,
    on_text: TextSink | None = None,
) -> list[Attempt]:
    """Ask the primary, or the backup in its place; the last attempt is the answer.

    A streamed call that already sent text to the listener is not repeated: the listener would
    hear the start twice. The backup's failure is the call's failure.
    """
    if fallback is None:
        return [await _ask(primary, "primary", messages, tools, stream, on_text, None)]
    skipped = fallback.primary_down()
    attempts: list[Attempt] = []
    if skipped is None:
        heard = _Heard(on_text)
        first = await _ask(primary, "primary", messages, tools, stream, heard.sink(), None)
        attempts.append(first)
        if first.error is None:
            fallback.primary_answered()
            return attempts
        if not falls_back(first.error) or heard.any:
            return attempts
        fallback.primary_failed(first.error)
        note = f"the primary failed: {first.error}"
    else:
        note = f"the primary is skipped for now; it failed: {skipped}"
    attempts.append(await _ask(fallback.backup, "backup", messages, tools, stream, on_text, note))
    return attempts


async def _ask(
    client: LLMClient,
    endpoint: Endpoint,
    messages: Sequence[ChatMessage],
    tools: list[JsonObject],
    stream: bool,
    on_text: TextSink | None,
    note: str | None,
) -> Attempt:
    started_at = datetime.now(UTC)
    try:
        completion = await client.complete(messages, tools, stream=stream, on_text=on_text)
    except LLMError as err:
        _LOGGER.warning("Model call to the %s failed (%s): %s", endpoint, err.kind, err)
        return Attempt(endpoint, client.model, started_at, err, note)
    return Attempt(endpoint, client.model, started_at, completion, note)


@dataclass(slots=True)
class _Heard:
    """Passes streamed text on and remembers whether any reached the listener."""

    on_text: TextSink | None
    any: bool = False

    def sink(self) -> TextSink | None:
        if self.on_text is None:
            return None
        forward = self.on_text

        async def send(text: str) -> None:
            self.any = True
            await forward(text)

        return send
