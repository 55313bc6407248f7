"""Text from outside is data: markup in it never becomes a tool call.

Tool results (a custom tool's page, an MCP server's answer), memories and the names in the home
are written by someone other than the user. The client recovers calls a model writes as text
(:mod:`addon.llm.speech_filter`), so a ``<tool_call>`` in a web page that the model echoes would
run as if the user had asked for it. Two guards, both here so the formats are named once:

- :func:`as_data` breaks every marker the filter reads (``<tool_call>``, ``[TOOL_CALLS]``,
  ``<|python_tag|>``, ``<think>``...) by swapping its brackets for look-alikes, so the text stays
  readable and no recognised format survives in what the model reads. Every place such text
  enters the model's messages or the prompt calls it.
- :func:`calls_written_in` lists the calls a tool's answer holds, in any recognised format,
  including a bare ``{"name", "arguments"}`` object (which :func:`as_data` leaves alone: JSON
  is what tools answer). The tool loop refuses a recovered call that is one of them, for text
  that slips past :func:`as_data` (a model that repairs the brackets, or echoes bare JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from addon.llm.speech_filter import bare_calls, filter_text
from addon.llm.text_calls import calls_in

# Every marker SpeechFilter and text_calls read, and looser spellings of them (case, spaces):
# breaking too much costs nothing, a marker left whole could run a call.
_MARKUP = re.compile(
    r"<\s*/?\s*(?:tool_call|think)\s*>"
    r"|<\s*\|\s*(?:python_tag|eom_id|eot_id)\s*\|\s*>"
    r"|\[\s*(?:TOOL_CALLS|ARGS|CALL_ID)\s*\]",
    re.IGNORECASE,
)
_BROKEN = str.maketrans({"<": "‹", ">": "›", "[": "(", "]": ")"})
# Where a bare call object may start inside longer text.
_OBJECT_START = re.compile(r'\{\s*"(?:name|arguments|parameters)"')
_DECODER = json.JSONDecoder()

CallKey = tuple[str, str]
"""A call as compared: the tool's name and its arguments as canonical JSON text."""


def as_data(text: str) -> str:
    """``text`` with every tool-call and reasoning marker broken, the rest unchanged."""
    if "<" not in text and "[" not in text:
        return text
    return _MARKUP.sub(lambda found: found.group(0).translate(_BROKEN), text)


def call_key(name: str, arguments: str) -> CallKey:
    """``name`` and ``arguments`` in the form two calls are compared in (key order, spacing)."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return name, " ".join(arguments.split())
    return name, json.dumps(parsed, ensure_ascii=False, sort_keys=True)


def calls_written_in(content: object) -> set[CallKey]:
    """The calls written anywhere in a tool's answer (its JSON object, or any text in it)."""
    found: set[CallKey] = set()
    _collect(content, found)
    return found


def _collect(value: object, found: set[CallKey]) -> None:
    if isinstance(value, str):
        _from_text(value, found)
    elif isinstance(value, Mapping):
        name, arguments = value.get("name"), value.get("arguments", value.get("parameters"))
        if isinstance(name, str) and name and arguments is not None:
            found.add(_key(name, arguments))
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, found)


def _from_text(text: str, found: set[CallKey]) -> None:
    """Calls in ``text``: each marked format, and each bare call object anywhere in it."""
    for written in filter_text(text, calls=True).calls:
        found.update(call_key(call.name, call.arguments) for call in calls_in(written))
    for start in _OBJECT_START.finditer(text):
        try:
            value, _ = _DECODER.raw_decode(text, start.start())
        except ValueError:
            continue
        _collect(value, found)
    for value in bare_calls(text) or ():
        _collect(value, found)


def _key(name: str, arguments: object) -> CallKey:
    if isinstance(arguments, str):
        return call_key(name, arguments)
    return name, json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
