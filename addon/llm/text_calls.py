"""Tool calls a model wrote as text, read into calls the tool loop can run.

:class:`~addon.llm.speech_filter.SpeechFilter` sets the call text aside; this module reads it per
style. A call that cannot be read is still returned (with what could be read of it), so the
registry tells the model what was wrong, as it does for a malformed native call, instead of the
call vanishing. Whether the name is an offered tool and the arguments validate is the registry's
business (:mod:`addon.tools.registry`), the same for recovered calls as for native ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import json_repair

from addon.llm.speech_filter import MISTRAL, CallStyle, CallText, bare_calls, filter_text
from addon.text import JsonObject, JsonValue

_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"
_LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>", "</s>")
_NAME = re.compile(r'"name"\s*:\s*"([^"]{1,64})"')
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class TextCall:
    """One call read from text: the tool's name and its arguments as JSON text."""

    name: str
    arguments: str
    style: CallStyle


@dataclass(frozen=True, slots=True)
class ReadReply:
    """A reply as the listener and the tool loop see it."""

    speech: str
    reasoning: str
    calls: tuple[TextCall, ...]


def read_reply(
    speech: str, think: str, reasoning_field: str, found: tuple[CallText, ...], *, calls: bool
) -> ReadReply:
    """The calls in the reply's text, else in its reasoning (``<think>``, ``reasoning_content``).

    ``found`` are the call texts the filter set aside from the visible text. Reasoning is only
    searched when the visible text held no call: a model that thought of a call and wrote it
    out afterwards must not run it twice.
    """
    reasoning = "\n".join(part for part in (think.strip(), reasoning_field.strip()) if part)
    read = [call for text in found for call in calls_in(text)]
    if calls and not read:
        for source in (think, reasoning_field):
            if source.strip():
                read = [c for t in filter_text(source, calls=True).calls for c in calls_in(t)]
            if read:
                break
    return ReadReply(speech, reasoning, tuple(read))


def calls_in(found: CallText) -> list[TextCall]:
    """The calls one piece of call text holds; at least one, however broken the text."""
    if found.style == "json":
        values: Sequence[JsonValue] = bare_calls(found.text) or []
    elif found.style == "mistral":
        values = _mistral(found.text)
    else:
        text = found.text
        for end in _LLAMA_ENDS:
            text = text.replace(end, "")
        values = _json_values(text)
    calls = [_call(value, found.style) for value in values if isinstance(value, dict)]
    if calls:
        return calls
    guess = _NAME.search(found.text)
    return [TextCall(guess.group(1) if guess else "", found.text.strip(), found.style)]


def _mistral(text: str) -> list[JsonValue]:
    """``[{…}, …]`` (v3), or ``name[ARGS]{…}`` per call (v11, calls split by the marker)."""
    if _ARGS not in text:
        return _json_values(text)
    values: list[JsonValue] = []
    for part in text.split(MISTRAL):
        name, _, arguments = part.partition(_ARGS)
        name = name.split(_CALL_ID, 1)[0].strip()
        parsed = _json_values(arguments)
        values.append({"name": name, "arguments": parsed[0] if parsed else arguments.strip()})
    return values


def _json_values(text: str) -> list[JsonValue]:
    """The JSON values in ``text`` one after another (lists opened), repairing the last if need be.

    Llama separates several calls with ``;``; servers leave end-of-turn tokens after them.
    """
    values: list[JsonValue] = []
    at, end = 0, len(text)
    while at < end:
        while at < end and text[at] in " \t\r\n;,":
            at += 1
        if at >= end:
            break
        if text.startswith("```", at):
            at = text.find("\n", at) + 1 or end
            continue
        try:
            value, at = _DECODER.raw_decode(text, at)
        except ValueError:
            value = json_repair.loads(text[at:].rstrip("`").strip())
            at = end
        if isinstance(value, list):
            values.extend(value)
        elif value not in ("", None):
            values.append(value)
    return values


def _call(value: JsonObject, style: CallStyle) -> TextCall:
    arguments = value.get("arguments", value.get("parameters", {}))
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return TextCall(str(value.get("name") or ""), arguments, style)
