"""One model call that reads a finished exchange and proposes what is worth remembering.

It runs off the reply's path (the caller decides when), so it must never raise: a failed call, a
refusal or an answer that is not JSON yields no candidates and a recorded error. The answer is
asked for with a strict ``json_schema`` ``response_format``; an endpoint that refuses it (a 400 or
422 naming ``response_format`` or ``json_schema``, or the ``structured`` option set off) is asked
again with the schema spelled out in the prompt, and its answer is repaired with ``json_repair``.
Once refused, the extractor does not offer the schema to that endpoint again.

The trace type of model calls (``LLMCallTrace``) lives in ``addon.agent``, which the memory
package must not import; :class:`ExtractionCall` carries the same fields, frozen, for the wiring
to record like any other model call.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import json_repair

from addon.errors import LLMError
from addon.llm.client import Completion, LLMClient
from addon.llm.messages import AssistantMessage, ChatMessage, SystemMessage, UserMessage
from addon.llm.outside_text import as_data
from addon.memory.candidates import Candidate, MemoryKind, candidate
from addon.memory.rules import Rejection, screen
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)
MAX_CANDIDATES = 5
"""More than a few memories from one exchange is the model transcribing, not remembering."""
MAX_FIELD_CHARS = 2000
"""Each part of the exchange is cut to this in the prompt: extraction needs the gist, cheaply."""
_REFUSAL = re.compile(r"answered (?:400|422)\b.*(?:response_format|json_schema)", re.I | re.S)

SYSTEM_PROMPT = """\
You maintain the long-term memory of a smart-home voice assistant. Read the exchange below and \
list what is worth remembering for future conversations, in the language of the exchange.

Worth remembering:
- facts about the home and its people, pets, rooms and devices ("the cat is called Miso");
- preferences ("Anna likes the bedroom at 19 degrees at night");
- context that matters for days ("guests stay until Sunday");
- events ("the boiler was serviced on 3 May").

Never remember:
- the current state of a device ("the light is on now") or anything only true at this moment;
- the time, the date or the weather;
- secrets: passwords, API keys, tokens, door or alarm codes, PINs, or any number used as one;
- greetings, thanks, small talk, or the questions themselves.

Write each memory as one short, self-contained sentence in the third person. Give its kind \
(fact, preference, context or event), an importance from 0 to 1 (1: the household would be upset \
if it were forgotten), and the entity ids and area names it concerns. Most exchanges contain \
nothing worth remembering: then answer with an empty list."""

_ITEM_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "content": {"type": "string"},
        "kind": {"type": "string", "enum": [kind.value for kind in MemoryKind]},
        "importance": {"type": "number"},
        "entities": {"type": "array", "items": {"type": "string"}},
        "areas": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["content", "kind", "importance", "entities", "areas"],
    "additionalProperties": False,
}
SCHEMA: JsonObject = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": _ITEM_SCHEMA}},
    "required": ["memories"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: JsonObject = {
    "type": "json_schema",
    "json_schema": {"name": "memories", "strict": True, "schema": SCHEMA},
}
PLAIN_JSON_INSTRUCTIONS = (
    "\n\nAnswer with JSON only, no prose and no code fences, matching this JSON schema:\n"
    + json.dumps(SCHEMA, ensure_ascii=False)
    + '\nFor example: {"memories": [{"content": "The cat is called Miso.", "kind": "fact", '
    '"importance": 0.7, "entities": [], "areas": []}]}'
)


@dataclass(frozen=True, slots=True)
class Exchange:
    """A finished turn as extraction sees it; every part is plain text."""

    user_text: str
    reply: str
    tool_calls: str = ""
    """A summary of the tools called and their results, one per line."""
    history: str = ""
    """The recent conversation before this turn, for references like "she" or "that room"."""


@dataclass(frozen=True, slots=True)
class ExtractionCall:
    """One model request of an extraction, with the fields an ``LLMCallTrace`` records."""

    started_at: datetime
    model: str
    request_messages: tuple[ChatMessage, ...]
    response_format: JsonObject | None
    response: AssistantMessage | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: float = 0.0
    finish_reason: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Extraction:
    """What an extraction produced: the kept candidates, the rejected ones, its model calls.

    ``calls`` holds two calls when the endpoint refused the schema and was asked again.
    ``error`` says why nothing could be read from the answer, when that happened.
    """

    candidates: tuple[Candidate, ...]
    rejected: tuple[Rejection, ...]
    calls: tuple[ExtractionCall, ...]
    repaired: bool = False
    error: str | None = None


def _now() -> datetime:
    return datetime.now(UTC)


class Extractor:
    """Extracts memory candidates with one model call per exchange (two on a refused schema)."""

    def __init__(
        self,
        llm: LLMClient,
        *,
        structured: bool = True,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._llm = llm
        self._structured = structured
        self._clock = clock

    @property
    def structured(self) -> bool:
        """Whether the next call offers the endpoint the strict JSON schema."""
        return self._structured

    async def extract(self, exchange: Exchange) -> Extraction:
        """The candidates worth remembering from ``exchange``; never raises for a bad answer."""
        calls: list[ExtractionCall] = []
        completion: Completion | None = None
        if self._structured:
            completion, call = await self._ask(exchange, RESPONSE_FORMAT)
            calls.append(call)
            if completion is None and call.error is not None and _REFUSAL.search(call.error):
                _LOGGER.info(
                    "The model endpoint %s refused response_format json_schema; "
                    "extracting memories with plain JSON from now on",
                    self._llm.base_url,
                )
                self._structured = False
            elif completion is None:
                return Extraction((), (), tuple(calls), error=call.error)
        if completion is None:
            completion, call = await self._ask(exchange, None)
            calls.append(call)
            if completion is None:
                return Extraction((), (), tuple(calls), error=call.error)
        try:
            found, repaired = parse(completion.content)
        except ValueError as err:
            _LOGGER.warning("Memory extraction answer unusable: %s", err)
            return Extraction((), (), tuple(calls), error=str(err))
        kept, rejected = screen(found)
        if rejected:
            _LOGGER.debug(
                "Memory extraction rejected %d candidate(s): %s",
                len(rejected),
                ", ".join(f"{r.reason} ({r.detail})" for r in rejected),
            )
        return Extraction(kept[:MAX_CANDIDATES], rejected, tuple(calls), repaired=repaired)

    async def _ask(
        self, exchange: Exchange, response_format: JsonObject | None
    ) -> tuple[Completion | None, ExtractionCall]:
        """One request; the completion, or None and a call recording the error."""
        messages = messages_for(exchange, structured=response_format is not None)
        started_at = self._clock()
        try:
            completion = await self._llm.complete(messages, [], response_format=response_format)
        except LLMError as err:
            _LOGGER.warning("Memory extraction call failed (%s): %s", err.kind, err)
            failed = ExtractionCall(
                started_at, self._llm.model, tuple(messages), response_format, error=str(err)
            )
            return None, failed
        return completion, ExtractionCall(
            started_at=started_at,
            model=self._llm.model,
            request_messages=tuple(messages),
            response_format=response_format,
            response=completion.assistant_message(),
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            duration_ms=completion.duration_ms,
            finish_reason=completion.finish_reason,
        )


def messages_for(exchange: Exchange, *, structured: bool) -> list[ChatMessage]:
    """The request's messages: the rules as system prompt, the exchange as the user message."""
    parts = []
    if exchange.history.strip():
        parts.append(f"Earlier in the conversation:\n{_cut(exchange.history)}")
    parts.append(f"The user said:\n{_cut(exchange.user_text)}")
    if exchange.tool_calls.strip():
        parts.append(f"Actions taken:\n{as_data(_cut(exchange.tool_calls))}")
    parts.append(f"The assistant replied:\n{_cut(exchange.reply)}")
    system = SYSTEM_PROMPT if structured else SYSTEM_PROMPT + PLAIN_JSON_INSTRUCTIONS
    return [SystemMessage(system), UserMessage("\n\n".join(parts))]


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_FIELD_CHARS else text[:MAX_FIELD_CHARS] + " …"


def parse(text: str) -> tuple[tuple[Candidate, ...], bool]:
    """The candidates in a model's answer, and whether the JSON needed repair.

    Accepts ``{"memories": [...]}`` or a bare list. Items that are not usable (no text, an
    unknown kind) are skipped; an answer with no readable structure raises ``ValueError``.
    """
    stripped = _strip_fences(text.strip())
    try:
        value: JsonValue = json.loads(stripped)
        repaired = False
    except json.JSONDecodeError:
        loaded = json_repair.loads(stripped)
        # A (value, log) pair only when its log is asked for, which it is not here.
        value = loaded[0] if isinstance(loaded, tuple) else loaded
        repaired = True
    if isinstance(value, dict):
        value = value.get("memories")
    if not isinstance(value, list):
        raise ValueError(f"the answer is not a list of memories: {text[:200]!r}")
    found = []
    for item in value:
        made = _candidate(item)
        if made is not None:
            found.append(made)
    return tuple(found), repaired


def _candidate(item: object) -> Candidate | None:
    if not isinstance(item, dict) or not isinstance(item.get("content"), str):
        return None
    try:
        importance = float(item.get("importance", 0.5))
        return candidate(
            item["content"],
            str(item.get("kind", "fact")).lower(),
            importance if math.isfinite(importance) else 0.5,
            _strings(item.get("entities")),
            _strings(item.get("areas")),
        )
    except (TypeError, ValueError):
        return None


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, str | int | float))
    return ()


def _strip_fences(text: str) -> str:
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else text.strip("`")
        text = text.rsplit("```", 1)[0]
    return text.strip()
