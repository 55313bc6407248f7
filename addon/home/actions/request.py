"""One intent call as each handler gets it: a typed record, not six parameters repeated.

:func:`addon.home.actions.handlers.handle_intent` checks the name and the slots, then hands
every handler the same :class:`IntentRequest`: what was asked (the intent, its converted
slots, the language), where (the satellite's area and floor as preferences), the home it is
matched in, the executor that acts, and the moment the time and date questions answer for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from addon.home.actions.executor import Executor, ServiceCall
from addon.home.actions.failure import match_failed
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    StateReport,
    error_result,
)
from addon.home.actions.slots import SlotValue
from addon.home.model.live import HomeModel
from addon.home.targeting.targets import (
    MatchTargetsConstraints,
    MatchTargetsPreferences,
    MatchTargetsResult,
)
from addon.text import JsonValue


@dataclass(frozen=True, slots=True)
class IntentRequest:
    """An intent call whose name is known and whose slots are valid and converted."""

    intent: str
    slots: Mapping[str, SlotValue]
    model: HomeModel
    executor: Executor
    preferences: MatchTargetsPreferences
    language: str
    now: datetime

    async def perform(self, call: ServiceCall) -> None:
        """Carry out a call a handler planned, through the request's executor."""
        await self.executor.call_service(call)

    def done(
        self,
        calls: Sequence[ServiceCall],
        *,
        success: Sequence[IntentTarget] = (),
        matched_states: Sequence[StateReport] = (),
        speech_slots: Mapping[str, JsonValue] | None = None,
    ) -> IntentResult:
        """The ``action_done`` answer after ``calls``, in the request's language."""
        return self.answer(
            ResponseType.ACTION_DONE,
            success=success,
            matched_states=matched_states,
            speech_slots=speech_slots,
            calls=calls,
        )

    def answer(
        self,
        response_type: ResponseType,
        *,
        speech: str | None = None,
        success: Sequence[IntentTarget] = (),
        failed: Sequence[IntentTarget] = (),
        matched_states: Sequence[StateReport] = (),
        unmatched_states: Sequence[StateReport] = (),
        speech_slots: Mapping[str, JsonValue] | None = None,
        message: str | None = None,
        calls: Sequence[ServiceCall] = (),
    ) -> IntentResult:
        """An answer to this request that is not an error (:meth:`error` makes those).

        The handlers answer through here, so an answer always names the request's intent and
        speaks its language.
        """
        return IntentResult(
            intent=self.intent,
            response_type=response_type,
            language=self.language,
            speech=speech,
            success=tuple(success),
            failed=tuple(failed),
            matched_states=tuple(matched_states),
            unmatched_states=tuple(unmatched_states),
            speech_slots=dict(speech_slots or {}),
            message=message,
            calls=tuple(calls),
        )

    def error(self, code: ErrorCode, message: str) -> IntentResult:
        """An error answer to this request in its language (``async_set_error``)."""
        return error_result(self.intent, code, message, language=self.language)

    def no_match(
        self,
        result: MatchTargetsResult,
        constraints: MatchTargetsConstraints,
        requirement: str | None = None,
    ) -> IntentResult:
        """The ``no_valid_targets`` answer for a failed match in this request's home."""
        return match_failed(
            self.intent,
            result,
            constraints,
            self.model,
            language=self.language,
            requirement=requirement,
        )
