"""System prompts and tool lists, stored once by the SHA-256 of their text (``llm_payloads``).

Every model call's trace keeps exactly what was sent, and most of that is the system prompt (the
whole home overview: about 50 KB at 1,000 entities) and the tool list, the same for call after
call until the home's names or exposure change. Stored inline they made the database grow by
the size of the overview on every call and made recording a turn mostly a matter of serialising
them. So a call's row keeps the hashes instead, and its ``request_messages`` keeps a reference
in place of the system message's content::

    {"role": "system", "content_ref": "<sha256 hex>"}

:func:`sent_requests` puts the request back together, exactly as it was sent, for anyone
reading a trace. Rows from before this scheme have no hashes and their content inline; they are
read as they are.

Each batch of turns the store writes inserts the payloads its calls reference, leaving any that
is stored already as it is (:func:`addon.store.turns.turn_writes.write_turns`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.file import storable
from addon.store.models import LLMCall, LLMPayload
from addon.text import JsonObject, JsonValue, ToolSpecs, compact_json

PayloadKind = Literal["system_prompt", "tools"]
CONTENT_REF: Final = "content_ref"


@dataclass(frozen=True, slots=True)
class Payload:
    """One system prompt or tool list, as stored: its hash, kind, text and size in bytes."""

    hash: str
    kind: PayloadKind
    content: str
    size: int

    @classmethod
    def of(cls, kind: PayloadKind, content: str) -> Payload:
        """The payload for ``content``; hashing 50 KB costs about 0.1 ms.

        Lone surrogates are replaced first (:func:`~addon.store.file.encoding.storable`): they could
        not be hashed as UTF-8, and the hash must be that of the text stored.
        """
        content = storable(content)
        encoded = content.encode()
        return cls(hashlib.sha256(encoded).hexdigest(), kind, content, len(encoded))

    def row(self) -> dict[str, object]:
        """The ``llm_payloads`` row, but for its creation time."""
        return {"hash": self.hash, "kind": self.kind, "content": self.content, "size": self.size}


@dataclass(frozen=True, slots=True)
class Detached:
    """A model call's request as its row stores it: the shared parts replaced by hashes."""

    messages: list[JsonObject]
    tools: list[JsonObject]
    system_prompt_hash: str | None
    tools_hash: str | None


@dataclass(slots=True)
class Detacher:
    """Splits the shared parts off the requests of one turn, collecting the payloads.

    The calls of a turn send the very same system prompt string and tool list object, so each
    is hashed (and the tools serialised) once per turn, remembered by identity. Identity is safe
    only while the objects are alive; the record being stored keeps them alive for as long as
    this detacher, which lives for one batch.
    """

    payloads: dict[str, Payload] = field(default_factory=dict)
    _by_identity: dict[int, Payload] = field(default_factory=dict)

    def detach(self, messages: list[JsonObject], tools: list[JsonObject]) -> Detached:
        """The stored form of one request; ``messages`` and ``tools`` are not modified."""
        system_hash = tools_hash = None
        first = messages[0] if messages else None
        if first is not None and first.get("role") == "system":
            content = first.get("content")
            if isinstance(content, str):
                system_hash = self._payload("system_prompt", content, content).hash
                messages = [_rekey(first, "content", CONTENT_REF, system_hash), *messages[1:]]
        if tools:
            tools_hash = self._payload("tools", tools, None).hash
            tools = []
        return Detached(messages, tools, system_hash, tools_hash)

    def _payload(self, kind: PayloadKind, value: object, text: str | None) -> Payload:
        payload = self._by_identity.get(id(value))
        if payload is None:
            if text is None:
                text = _json_text(value)
            payload = Payload.of(kind, text)
            self._by_identity[id(value)] = payload
            self.payloads.setdefault(payload.hash, payload)
        return payload


def _json_text(value: object) -> str:
    """``value`` as compact JSON; a turn's tool list brings its text, made for the requests.

    NaN, which no request body may hold (the call failed, and is traced), is written as
    Python's ``json`` writes it rather than lose the turn.
    """
    try:
        return value.json if isinstance(value, ToolSpecs) else compact_json(value)
    except ValueError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class SentRequest:
    """What one model call was sent: the messages and the tool list, exactly."""

    messages: list[JsonObject]
    tools: list[JsonObject]


async def payload_contents(session: AsyncSession, hashes: Collection[str]) -> dict[str, str]:
    """The stored text of each of ``hashes`` that exists, in one query."""
    if not hashes:
        return {}
    query = select(LLMPayload.hash, LLMPayload.content).where(LLMPayload.hash.in_(hashes))
    return dict((await session.execute(query)).all())


async def sent_requests(session: AsyncSession, calls: Iterable[LLMCall]) -> dict[int, SentRequest]:
    """Each call's request as it was sent, by call id; one query for all the payloads.

    Calls sharing a tool list share one parsed list: treat the lists as read-only.
    """
    calls = list(calls)
    hashes = {
        digest
        for call in calls
        for digest in (call.system_prompt_hash, call.tools_hash)
        if digest is not None
    }
    contents = await payload_contents(session, hashes)
    return rebuild(calls, contents)


def rebuild(calls: Iterable[LLMCall], contents: Mapping[str, str]) -> dict[int, SentRequest]:
    """Each call's request from its row and the payloads' texts, by call id."""
    parsed_tools: dict[str, list[JsonObject]] = {}
    return {
        call.id: attached(
            call.request_messages,
            call.request_tools,
            PayloadRefs(call.system_prompt_hash, call.tools_hash),
            contents,
            parsed_tools,
        )
        for call in calls
    }


@dataclass(frozen=True, slots=True)
class PayloadRefs:
    """What one model call's request left in the payloads: its system prompt's and tools' hash."""

    system_prompt: str | None
    tools: str | None


def attached(
    messages: list[JsonObject],
    tools: list[JsonObject],
    refs: PayloadRefs,
    contents: Mapping[str, str],
    parsed_tools: dict[str, list[JsonObject]],
) -> SentRequest:
    """A request as it was sent: its system message's text and its tool list put back.

    A payload that is missing (it never should be) leaves the reference in the message, and
    the tools as they are, rather than failing the whole trace. ``parsed_tools`` keeps each
    tool list parsed once: requests sharing one share the list, so treat it as read-only.
    """
    system_hash = refs.system_prompt
    if system_hash is not None and system_hash in contents and messages:
        first = messages[0]
        if first.get(CONTENT_REF) == system_hash:
            restored = _rekey(first, CONTENT_REF, "content", contents[system_hash])
            messages = [restored, *messages[1:]]
    tools_hash = refs.tools
    if tools_hash is not None and tools_hash in contents:
        if tools_hash not in parsed_tools:
            parsed_tools[tools_hash] = _tool_list(contents[tools_hash])
        tools = parsed_tools[tools_hash]
    return SentRequest(messages, tools)


def _tool_list(text: str) -> list[JsonObject]:
    """A stored tool list's specs (each an object, as they were sent)."""
    parsed: object = json.loads(text)
    return [spec for spec in parsed if isinstance(spec, dict)] if isinstance(parsed, list) else []


def _rekey(message: JsonObject, old: str, new: str, value: JsonValue) -> JsonObject:
    """``message`` with key ``old`` replaced by ``new`` holding ``value``, in the same place.

    Keeping the place means a rebuilt message lists its keys in the order they were sent.
    """
    return {
        (new if key == old else key): (value if key == old else item)
        for key, item in message.items()
    }
