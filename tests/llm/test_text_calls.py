"""Calls written as text and reasoning, read by the real client from the scripted model."""

from __future__ import annotations

import pytest

from addon.llm.client import Completion, LLMClient
from addon.llm.messages import UserMessage
from devtools.scripted_llm import ScriptedLLM, TextCallStyle

STYLES: tuple[TextCallStyle, ...] = ("hermes", "json", "mistral", "python_tag")
TOOLS = [
    {
        "type": "function",
        "function": {"name": "HassTurnOn", "parameters": {"type": "object", "properties": {}}},
    }
]
USER = [UserMessage("kitchen lights on")]


async def ask(client: LLMClient, *, stream: bool) -> tuple[Completion, list[str]]:
    heard: list[str] = []

    async def sink(text: str) -> None:
        heard.append(text)

    completion = await client.complete(USER, TOOLS, stream=stream, on_text=sink)
    return completion, heard


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("style", STYLES)
async def test_a_call_in_the_text_becomes_a_recovered_tool_call(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient, style: TextCallStyle, stream: bool
) -> None:
    """Each style, streamed or not: one tool call marked recovered, none of it in the content."""
    before = "" if style == "json" else "One moment."
    scripted_llm.text_calls(style, ("HassTurnOn", {"name": "Kitchen Lights"}), before=before)
    completion, heard = await ask(scripted_client, stream=stream)
    (call,) = completion.tool_calls
    assert (call.name, call.arguments, call.recovered) == (
        "HassTurnOn",
        '{"name": "Kitchen Lights"}',
        True,
    )
    assert completion.content == before
    assert "".join(heard) == (before if stream else "")


@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_content_is_kept_but_never_heard(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient, stream: bool
) -> None:
    """``reasoning_content`` goes to the completion's reasoning, not to the content or the sink."""
    scripted_llm.text_calls("hermes", before="It is done.", reasoning="The user wants light.")
    completion, heard = await ask(scripted_client, stream=stream)
    assert completion.reasoning == "The user wants light."
    assert completion.content == "It is done."
    assert "light" not in "".join(heard)


async def test_native_tool_calls_win_over_text(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """A reply with ``tool_calls`` runs those; a call also written in its text is not added."""
    scripted_llm.tool_calls(
        ("HassTurnOn", {}), content='<tool_call>{"name": "X", "arguments": {}}</tool_call>'
    )
    completion, _ = await ask(scripted_client, stream=True)
    assert [(c.name, c.recovered) for c in completion.tool_calls] == [("HassTurnOn", False)]
    assert completion.content == ""


async def test_without_tools_json_content_is_left_alone(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """A JSON answer asked for without tools (memory extraction) is content, not a call."""
    scripted_llm.reply('{"name": "facts", "arguments": []}')
    completion = await scripted_client.complete(USER, [])
    assert completion.tool_calls == []
    assert completion.content == '{"name": "facts", "arguments": []}'
