"""Separating what a model says from its reasoning and from tool calls written as text.

Small local models served by Ollama, llama.cpp, vLLM or LocalAI often leave a tool call in the
text (Hermes/Qwen ``<tool_call>{…}</tool_call>``, Mistral ``[TOOL_CALLS][…]``, Llama 3
``<|python_tag|>{…}``, a bare ``{"name": …, "arguments": …}``) and think aloud in
``<think>…</think>``. None of it may reach a listener. :class:`SpeechFilter` reads the text as it
streams and passes on only speech: text that could still turn into a marker (``<tool_c``) or a
reply that starts like a bare JSON call is held back until it is clear, then released if it was
speech after all. The non-streaming path runs the same filter over the whole text at once, so
both paths make the same decisions (:mod:`addon.llm.text_calls` reads the calls it set aside).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from addon.text import JsonObject

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
HERMES_OPEN = "<tool_call>"
HERMES_CLOSE = "</tool_call>"
MISTRAL = "[TOOL_CALLS]"
PYTHON_TAG = "<|python_tag|>"

CallStyle = Literal["hermes", "mistral", "python_tag", "json"]
_Mode = Literal["speech", "think", "hermes", "rest", "json"]
# Markers that open something that is not speech, and the mode each opens.
_CALL_MARKERS: tuple[tuple[str, _Mode, CallStyle | None], ...] = (
    (HERMES_OPEN, "hermes", "hermes"),
    (MISTRAL, "rest", "mistral"),
    (PYTHON_TAG, "rest", "python_tag"),
)
_THINK_MARKER: tuple[str, _Mode, CallStyle | None] = (THINK_OPEN, "think", None)


@dataclass(frozen=True, slots=True)
class CallText:
    """The text of one tool call as the model wrote it, and the style it was written in."""

    style: CallStyle
    text: str


@dataclass(frozen=True, slots=True)
class FilteredText:
    """A whole reply, read: what is speech, what was reasoning, what were calls."""

    speech: str
    reasoning: str
    calls: tuple[CallText, ...]


class SpeechFilter:
    """Streams speech on; keeps reasoning and call text aside.

    ``calls`` says whether call markers are looked for at all: only when tools were offered, so a
    reply asked for as JSON (memory extraction) is never mistaken for a call. Reasoning in
    ``<think>`` is always kept aside.
    """

    def __init__(self, *, calls: bool) -> None:
        self._markers = (_THINK_MARKER, *_CALL_MARKERS) if calls else (_THINK_MARKER,)
        self._calls_on = calls
        self._mode: _Mode = "speech"
        self._style: CallStyle | None = None
        self._pending = ""
        self._spoken = False
        self._speech: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[CallText] = []
        self._current: list[str] = []

    def push(self, chunk: str) -> str:
        """Take the next piece of the reply; return the speech that is now certain."""
        self._pending += chunk
        out: list[str] = []
        while self._pending:
            if self._mode == "speech":
                if not self._speech_step(out):
                    break
            elif self._mode == "json":
                break
            elif self._mode == "rest":
                self._current.append(self._pending)
                self._pending = ""
            elif not self._closing_step(THINK_CLOSE if self._mode == "think" else HERMES_CLOSE):
                break
        said = "".join(out)
        self._speech.append(said)
        return said

    def finish(self) -> tuple[str, FilteredText]:
        """The reply has ended: the speech still held back, and the reply as read."""
        tail = ""
        if self._mode == "speech":
            tail = self._pending
        elif self._mode == "json":
            if bare_calls(self._pending) is None:
                tail = self._pending
            else:
                self._calls.append(CallText("json", self._pending))
        elif self._mode == "think":
            self._reasoning.append(self._pending)
        else:
            self._current.append(self._pending)
            self._close_call()
        self._pending = ""
        self._speech.append(tail)
        read = FilteredText("".join(self._speech), "".join(self._reasoning), tuple(self._calls))
        return tail, read

    def _speech_step(self, out: list[str]) -> bool:
        """Pass on speech up to the next marker; False when the rest must wait for more text."""
        text = self._pending
        if self._calls_on and not self._spoken:
            stripped = text.lstrip()
            if not stripped:
                return False
            if stripped[0] == "{" or stripped.startswith("```"):
                self._mode = "json"
                return False
        found = _first_marker(text, self._markers)
        if found is None:
            keep = _held_suffix(text, self._markers)
            said = text[: len(text) - keep]
            if said.strip():
                self._spoken = True
            out.append(said)
            self._pending = text[len(text) - keep :]
            return False
        at, (marker, mode, style) = found
        before = text[:at]
        if before.strip():
            self._spoken = True
        out.append(before)
        self._pending = text[at + len(marker) :]
        self._mode, self._style = mode, style
        return True

    def _closing_step(self, close: str) -> bool:
        """Set text aside up to ``close``; False when the close has not come yet."""
        at = self._pending.find(close)
        if at < 0:
            keep = _partial(self._pending, close)
            self._aside(self._pending[: len(self._pending) - keep])
            self._pending = self._pending[len(self._pending) - keep :]
            return False
        self._aside(self._pending[:at])
        self._pending = self._pending[at + len(close) :]
        if self._mode == "hermes":
            self._close_call()
        self._mode = "speech"
        return True

    def _aside(self, text: str) -> None:
        if self._mode == "think":
            self._reasoning.append(text)
        else:
            self._current.append(text)

    def _close_call(self) -> None:
        if self._style is not None:
            self._calls.append(CallText(self._style, "".join(self._current)))
        self._current = []
        self._style = None


def filter_text(text: str, *, calls: bool) -> FilteredText:
    """Read a whole reply at once, exactly as :class:`SpeechFilter` reads it streamed."""
    reader = SpeechFilter(calls=calls)
    reader.push(text)
    return reader.finish()[1]


def _first_marker(
    text: str, markers: tuple[tuple[str, _Mode, CallStyle | None], ...]
) -> tuple[int, tuple[str, _Mode, CallStyle | None]] | None:
    best: tuple[int, tuple[str, _Mode, CallStyle | None]] | None = None
    for entry in markers:
        at = text.find(entry[0])
        if at >= 0 and (best is None or at < best[0]):
            best = (at, entry)
    return best


def _held_suffix(text: str, markers: tuple[tuple[str, _Mode, CallStyle | None], ...]) -> int:
    """How many characters at the end of ``text`` could be the start of a marker."""
    return max(_partial(text, entry[0]) for entry in markers)


def _partial(text: str, marker: str) -> int:
    """The length of the longest end of ``text`` that ``marker`` starts with (not all of it)."""
    start = text.find(marker[0], max(0, len(text) - len(marker) + 1))
    while start >= 0:
        if marker.startswith(text[start:]):
            return len(text) - start
        start = text.find(marker[0], start + 1)
    return 0


def bare_calls(text: str) -> list[JsonObject] | None:
    """The calls a reply made of nothing but JSON holds, or None when it is not one.

    A call is an object with a string ``name`` and ``arguments`` or ``parameters``; a list of
    them is several. A code fence around the JSON is allowed (small models add one).
    """
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0].strip()
    if not body.startswith(("{", "[")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    found = value if isinstance(value, list) else [value]
    if not found or not all(_is_call(item) for item in found):
        return None
    return found


def _is_call(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and bool(value["name"])
        and ("arguments" in value or "parameters" in value)
    )
