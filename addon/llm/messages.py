"""Chat messages as typed records, and their one wire form (OpenAI's chat format).

A conversation is held as :data:`ChatMessage` values, as Home Assistant's ``chat_log`` holds
typed content; the OpenAI dicts are made only at the edges: by the model client for a request
(:func:`to_wire`, and :func:`request_body` for the bytes sent), and where the store keeps or
gives back a turn's messages (the agent's recording and history call :func:`wire_messages` and
:func:`from_wire`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from addon.text import JsonObject, JsonValue, ToolSpecs, compact_json


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call as the model asked for it; ``arguments`` is the raw JSON text it sent.

    ``recovered`` marks a call the model wrote in its text rather than in ``tool_calls``.
    """

    id: str
    name: str
    arguments: str
    recovered: bool = False


@dataclass(frozen=True, slots=True)
class SystemMessage:
    """The system prompt."""

    content: str


@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the user said (with what rides on it: the time, memories, a large home's devices)."""

    content: str


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """The model's answer: words (None when it only called tools) and the calls it asked for."""

    content: str | None
    tool_calls: tuple[ToolCallRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolMessage:
    """A tool's result as the model reads it, answering the call ``tool_call_id``."""

    tool_call_id: str
    content: str


ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def to_wire(message: ChatMessage) -> JsonObject:
    """``message`` in OpenAI's chat format, keys in the order the format lists them."""
    if isinstance(message, AssistantMessage):
        wire: JsonObject = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.tool_calls
            ]
        return wire
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if isinstance(message, UserMessage):
        return {"role": "user", "content": message.content}
    return {"role": "system", "content": message.content}


def wire_messages(messages: Iterable[ChatMessage]) -> list[JsonObject]:
    """The messages in OpenAI's chat format."""
    return [to_wire(message) for message in messages]


def from_wire(messages: Iterable[Mapping[str, JsonValue]]) -> list[ChatMessage]:
    """Messages kept in OpenAI's chat format (a stored turn's) as records.

    A message of a role the agent never writes, or with content that is not text, is left out:
    it could not have come from a turn of ours.
    """
    read: list[ChatMessage] = []
    for wire in messages:
        role, content = wire.get("role"), wire.get("content")
        if role == "assistant" and (content is None or isinstance(content, str)):
            listed = wire.get("tool_calls")
            calls = (
                tuple(read_call for call in listed or () if (read_call := _call(call)) is not None)
                if isinstance(listed, list)
                else ()
            )
            read.append(AssistantMessage(content, calls))
        elif role == "tool" and isinstance(content, str):
            read.append(ToolMessage(str(wire.get("tool_call_id") or ""), content))
        elif role == "user" and isinstance(content, str):
            read.append(UserMessage(content))
        elif role == "system" and isinstance(content, str):
            read.append(SystemMessage(content))
    return read


def _call(call: JsonValue) -> ToolCallRequest | None:
    """A stored tool call as a record; None for one without a ``function`` object."""
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    if not isinstance(function, dict):
        return None
    return ToolCallRequest(
        str(call.get("id") or ""),
        str(function.get("name") or ""),
        str(function.get("arguments") or ""),
    )


type RequestBody = Mapping[str, JsonValue | ToolSpecs]
"""A chat request's fields as sent: JSON, and the turn's tool list that keeps its own text."""


def request_body(request: RequestBody) -> bytes:
    """``request`` as the body the openai package would send, its tool list's text reused.

    The tool list is the same for every call of a turn and its text is made once
    (:class:`~addon.text.ToolSpecs`); the rest is written as the package writes a body
    (compact UTF-8, no NaN) and the list's text set in at the end, so the bytes are the same.
    """
    tools = request.get("tools")
    if not isinstance(tools, ToolSpecs):
        return compact_json(request).encode()
    rest = compact_json({key: value for key, value in request.items() if key != "tools"})
    return f'{rest[:-1]},"tools":{tools.json}}}'.encode()
