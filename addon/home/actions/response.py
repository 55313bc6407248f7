"""What handling an intent produced, shaped like Home Assistant's ``IntentResponse``.

:meth:`IntentResult.as_dict` is byte-for-byte the shape of ``IntentResponse.as_dict()`` in
Home Assistant 2025.4 (``speech``/``card``/``language``/``response_type``/``data`` with
``targets``, ``success`` and ``failed``, or ``data.code`` for an error), so anything that
reads Home Assistant's answers reads ours. :meth:`IntentResult.for_model` is what a language
model sees as the tool result: Home Assistant's LLM API shape (no ``language``/``card``) plus
two things Home Assistant leaves out and a model needs: the matched entities' states for a
query, and ``error_text`` explaining a failure in words a model can act on.

Error codes: Home Assistant answers a failed match with ``no_valid_targets`` and a failed
action with ``failed_to_handle``; where it *raises* instead of answering (an unknown intent,
bad slots) we answer with our own codes ``unknown_intent`` and ``invalid_slots``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from addon.home.actions.executor import ServiceCall
from addon.home.model.records import MODEL_ATTRIBUTES
from addon.home.targeting.targets import MatchFailure
from addon.text import JsonObject, JsonValue


class ResponseType(StrEnum):
    """``IntentResponseType``."""

    ACTION_DONE = "action_done"
    PARTIAL_ACTION_DONE = "partial_action_done"
    QUERY_ANSWER = "query_answer"
    ERROR = "error"


class ErrorCode(StrEnum):
    """``IntentResponseErrorCode`` plus the two cases Home Assistant raises for."""

    NO_INTENT_MATCH = "no_intent_match"
    NO_VALID_TARGETS = "no_valid_targets"
    FAILED_TO_HANDLE = "failed_to_handle"
    UNKNOWN = "unknown"
    UNKNOWN_INTENT = "unknown_intent"
    INVALID_SLOTS = "invalid_slots"


class TargetType(StrEnum):
    """``IntentResponseTargetType``."""

    AREA = "area"
    FLOOR = "floor"
    DEVICE = "device"
    ENTITY = "entity"
    DOMAIN = "domain"
    DEVICE_CLASS = "device_class"
    CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class IntentTarget:
    """``IntentResponseTarget``: something the intent acted on (or failed to)."""

    name: str
    type: TargetType
    id: str | None = None

    def as_dict(self) -> JsonObject:
        """``dataclasses.asdict`` of Home Assistant's target, key order included."""
        return {"name": self.name, "type": self.type.value, "id": self.id}


@dataclass(frozen=True, slots=True)
class StateReport:
    """One entity's state as a query answers it."""

    entity_id: str
    name: str
    state: str
    attributes: Mapping[str, JsonValue] = field(default_factory=dict)

    def for_model(self) -> JsonObject:
        """The entity as a model is shown it: id, name, state and the telling attributes."""
        shown: JsonObject = {
            key: self.attributes[key] for key in MODEL_ATTRIBUTES if key in self.attributes
        }
        report: JsonObject = {"entity_id": self.entity_id, "name": self.name}
        report["state"] = self.state
        if shown:
            report["attributes"] = shown
        return report


@dataclass(frozen=True, slots=True)
class IntentResult:
    """The outcome of one intent call."""

    intent: str
    response_type: ResponseType
    language: str = "en"
    speech: str | None = None
    success: tuple[IntentTarget, ...] = ()
    failed: tuple[IntentTarget, ...] = ()
    error_code: ErrorCode | None = None
    speech_slots: Mapping[str, JsonValue] = field(default_factory=dict)
    matched_states: tuple[StateReport, ...] = ()
    unmatched_states: tuple[StateReport, ...] = ()
    message: str | None = None
    """Why it failed, or why a query matched nothing, in words a model can act on."""
    calls: tuple[ServiceCall, ...] = ()
    """The service calls made, in order: what a dry run shows and a trace records."""
    failure: MatchFailure | None = None
    """For a failed target match: why, so the local path can say it in the listener's words."""

    @property
    def is_error(self) -> bool:
        """True when nothing was done (or answered) because of an error."""
        return self.response_type is ResponseType.ERROR

    def as_dict(self) -> JsonObject:
        """Home Assistant's ``IntentResponse.as_dict()`` for this result."""
        speech: JsonObject = {}
        if self.speech is not None:
            speech["plain"] = {"speech": self.speech, "extra_data": None}
        response: JsonObject = {
            "speech": speech,
            "card": {},
            "language": self.language,
            "response_type": self.response_type.value,
        }
        if self.speech_slots:
            response["speech_slots"] = dict(self.speech_slots)
        response["data"] = self._data()
        return response

    def _data(self) -> JsonObject:
        """``IntentResponse.as_dict()``'s ``data``: the error code, or what was acted on."""
        if self.response_type is ResponseType.ERROR:
            code = self.error_code or ErrorCode.UNKNOWN
            return {"code": code.value}
        return {
            "targets": [],
            "success": [target.as_dict() for target in self.success],
            "failed": [target.as_dict() for target in self.failed],
        }

    def for_model(self) -> JsonObject:
        """The tool result a model sees: HA's LLM shape plus states and error text."""
        result = self.as_dict()
        del result["language"]
        del result["card"]
        data = self._data()
        if self.matched_states or self.unmatched_states:
            data["matched_states"] = [s.for_model() for s in self.matched_states]
        if self.unmatched_states:
            data["unmatched_states"] = [s.for_model() for s in self.unmatched_states]
        result["data"] = data
        if self.message is not None:
            key = "error_text" if self.is_error else "note"
            result[key] = self.message
        return result


def error_result(
    intent: str,
    code: ErrorCode,
    message: str,
    *,
    language: str = "en",
    failure: MatchFailure | None = None,
) -> IntentResult:
    """An error answer carrying ``message`` (as ``async_set_error`` does) for a model.

    ``message`` is for a model to act on; what a listener hears is worked out from the code
    and ``failure`` where the answer is spoken (:mod:`addon.local.failure_speech`).
    """
    return IntentResult(
        intent=intent,
        response_type=ResponseType.ERROR,
        language=language,
        speech=message,
        error_code=code,
        message=message,
        failure=failure,
    )
