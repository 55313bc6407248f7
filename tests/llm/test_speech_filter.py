"""The streaming speech filter: speech passes, reasoning and calls written as text are held."""

from __future__ import annotations

import pytest

from addon.llm.speech_filter import SpeechFilter, bare_calls, filter_text
from addon.llm.text_calls import calls_in, read_reply
from devtools.scripted_llm import TextCallStyle, text_call

STYLES: tuple[TextCallStyle, ...] = ("hermes", "json", "mistral", "python_tag")


def stream(text: str, *, size: int, calls: bool = True) -> tuple[list[str], str]:
    """Feed ``text`` in pieces of ``size`` characters; the pieces passed on and the speech read."""
    reader = SpeechFilter(calls=calls)
    out = [reader.push(text[at : at + size]) for at in range(0, len(text), size)]
    tail, read = reader.finish()
    return [*out, tail], read.speech


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_speech_passes_unchanged_whatever_the_pieces(size: int) -> None:
    """Plain speech, even with a stray ``<`` or ``[``, comes out exactly as it went in."""
    text = "It is 3 < 5 and [see] the <b>kitchen</b>; done."
    out, speech = stream(text, size=size)
    assert "".join(out) == text == speech


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_think_block_is_never_passed_on(size: int) -> None:
    """Reasoning in ``<think>`` is set aside, the speech around it is passed on."""
    reader = SpeechFilter(calls=True)
    text = "<think>The user wants the lights.</think>Lights are on."
    out = [reader.push(text[at : at + size]) for at in range(0, len(text), size)]
    tail, read = reader.finish()
    assert "".join([*out, tail]) == "Lights are on."
    assert read.reasoning == "The user wants the lights."


def test_a_marker_split_over_pieces_is_held_until_it_is_clear() -> None:
    """``<thi`` is held back; once it turns out to be ``<think>``, nothing of it is spoken."""
    reader = SpeechFilter(calls=True)
    assert reader.push("Hello <thi") == "Hello "
    assert reader.push("nk>secret</th") == ""
    assert reader.push("ink> world") == " world"


def test_held_text_is_released_when_it_was_speech() -> None:
    """A held ``<tool`` that never becomes a marker is spoken once that is clear."""
    reader = SpeechFilter(calls=True)
    assert reader.push("use the <tool") == "use the "
    assert reader.push("box>") == "<toolbox>"


def test_an_unclosed_think_block_stays_reasoning() -> None:
    """A reply cut off inside ``<think>`` speaks nothing of it."""
    out, speech = stream("Sure.<think>still thinking", size=5)
    assert "".join(out) == speech == "Sure."


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("size", [1, 5, 1000])
def test_a_call_in_each_style_is_never_passed_on(style: TextCallStyle, size: int) -> None:
    """Only the words before the call are spoken; the call is read out whole."""
    before = "" if style == "json" else "One moment. "
    text = before + text_call(style, "HassTurnOn", {"name": "Kitchen Lights"})
    reader = SpeechFilter(calls=True)
    out = [reader.push(text[at : at + size]) for at in range(0, len(text), size)]
    tail, read = reader.finish()
    assert "".join([*out, tail]) == before
    (found,) = read.calls
    (call,) = calls_in(found)
    assert (call.name, call.arguments) == ("HassTurnOn", '{"name": "Kitchen Lights"}')


def test_speech_after_a_hermes_call_is_passed_on() -> None:
    """``</tool_call>`` ends the call; what follows is speech again."""
    text = text_call("hermes", "HassTurnOn", {}) + " Done."
    assert filter_text(text, calls=True).speech == " Done."


def test_json_that_is_not_a_call_is_spoken_at_the_end() -> None:
    """A reply starting with ``{`` is held, then released when it is not a call."""
    out, speech = stream('{"temperature": 21} in the hall', size=4)
    assert out[:-1] == [""] * (len(out) - 1)
    assert out[-1] == speech == '{"temperature": 21} in the hall'


def test_without_tools_only_reasoning_is_taken_out() -> None:
    """With no tools offered, markers and JSON are the reply (memory extraction asks for JSON)."""
    text = '<think>hmm</think>{"name": "x", "arguments": {}}'
    assert filter_text(text, calls=False).speech == '{"name": "x", "arguments": {}}'


def test_a_call_inside_think_is_read_when_the_text_has_none() -> None:
    """Home Assistant core #167154: a call only in the reasoning is still a call."""
    inner = text_call("hermes", "HassTurnOff", {"name": "Fan"})
    read = filter_text(f"<think>I should call {inner}</think>", calls=True)
    reply = read_reply(read.speech, read.reasoning, "", read.calls, calls=True)
    assert [(c.name, c.arguments) for c in reply.calls] == [("HassTurnOff", '{"name": "Fan"}')]
    assert reply.speech == ""


def test_a_call_in_reasoning_content_is_read() -> None:
    """The ``reasoning_content`` field is searched like ``<think>``."""
    field = "Plan: " + text_call("python_tag", "GetDateTime", {})
    reply = read_reply("", "", field, (), calls=True)
    assert [c.name for c in reply.calls] == ["GetDateTime"]
    assert reply.reasoning == field


def test_a_broken_call_is_still_a_call_the_model_is_told_about() -> None:
    """Unreadable JSON inside ``<tool_call>`` is returned with the name guessed, not dropped."""
    read = filter_text(
        '<tool_call>{"name": "HassTurnOn", "arguments": {"name": </tool_call>', calls=True
    )
    (call,) = calls_in(read.calls[0])
    assert call.name == "HassTurnOn"
    assert read.speech == ""


def test_mistral_v11_calls_are_read_by_name() -> None:
    """``[TOOL_CALLS]name[ARGS]{…}`` per call, as newer Mistral templates write them."""
    text = '[TOOL_CALLS]HassTurnOn[ARGS]{"name": "A"}[TOOL_CALLS]HassTurnOff[ARGS]{"name": "B"}'
    calls = [c for found in filter_text(text, calls=True).calls for c in calls_in(found)]
    assert [(c.name, c.arguments) for c in calls] == [
        ("HassTurnOn", '{"name": "A"}'),
        ("HassTurnOff", '{"name": "B"}'),
    ]


def test_several_llama_calls_are_read() -> None:
    """Llama 3 separates calls after ``<|python_tag|>`` with ``;``."""
    text = '<|python_tag|>{"name": "A", "parameters": {}}; {"name": "B", "parameters": {"x": 1}}'
    calls = [c for found in filter_text(text, calls=True).calls for c in calls_in(found)]
    assert [(c.name, c.arguments) for c in calls] == [("A", "{}"), ("B", '{"x": 1}')]


def test_a_fenced_bare_call_is_a_call() -> None:
    """Small models wrap the JSON in a code fence; it is still the whole content."""
    assert bare_calls('```json\n{"name": "A", "parameters": {}}\n```') == [
        {"name": "A", "parameters": {}}
    ]
