"""A turn whose model writes its tool calls as text, and thinks aloud, over the demo home."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from addon.home.model.live import HomeModel
from addon.store.database import Store
from addon.store.models import LLMCall, ToolCall
from devtools.scripted_llm import ScriptedLLM, TextCallStyle, text_call
from tests.fixtures.agent import MakeAgent, ask, stored_turn

STYLES: tuple[TextCallStyle, ...] = ("hermes", "json", "mistral", "python_tag")
OFF = {"name": "Kitchen Lights", "domain": ["light"]}


def light(model: HomeModel) -> str:
    state = model.state("light.kitchen_lights")
    assert state is not None
    return state.state


async def turn(agent_llm: ScriptedLLM, make_agent: MakeAgent, *, stream: bool) -> tuple[str, str]:
    """Ask for the kitchen lights off; the reply and what a streaming listener heard."""
    heard: list[str] = []

    async def sink(text: str) -> None:
        heard.append(text)

    agent = make_agent(llm=agent_llm, local_first=False)
    result = await agent.process(ask("kitchen lights off"), on_text=sink if stream else None)
    return result.reply, "".join(heard)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("style", STYLES)
async def test_a_call_written_as_text_acts_and_only_the_answer_is_spoken(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    demo_model: HomeModel,
    style: TextCallStyle,
    stream: bool,
) -> None:
    """The light goes off; the listener hears the final answer, never the call."""
    assert light(demo_model) == "on"
    scripted_llm.text_calls(style, ("HassTurnOff", OFF)).reply("The kitchen lights are off.")
    reply, heard = await turn(scripted_llm, make_agent, stream=stream)
    assert light(demo_model) == "off"
    assert reply == "The kitchen lights are off."
    assert heard == (reply if stream else "")
    answered = scripted_llm.chat_requests[1].messages[-1]
    assert answered["role"] == "tool"
    assert "error" not in json.loads(answered["content"])


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_inside_think_acts_and_the_thinking_is_not_spoken(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, stream: bool
) -> None:
    """Home Assistant core #167154: the call in ``<think>`` runs; no reasoning reaches anyone."""
    think = "The user wants darkness. " + text_call("hermes", "HassTurnOff", OFF)
    scripted_llm.text_calls("hermes", think=think).reply("<think>It worked.</think>Done.")
    reply, heard = await turn(scripted_llm, make_agent, stream=stream)
    assert light(demo_model) == "off"
    assert reply == "Done."
    assert heard == (reply if stream else "")


@pytest.mark.parametrize("stream", [False, True])
async def test_an_unknown_tool_in_text_is_not_run_and_the_model_is_told(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, stream: bool
) -> None:
    """A name that is not offered runs nothing; the model reads the registry's error."""
    scripted_llm.text_calls("hermes", ("DeleteEverything", OFF)).reply("I cannot do that.")
    reply, _ = await turn(scripted_llm, make_agent, stream=stream)
    told = json.loads(scripted_llm.chat_requests[1].messages[-1]["content"])
    assert "unknown tool 'DeleteEverything'" in told["error_text"]
    assert light(demo_model) == "on"
    assert reply == "I cannot do that."


@pytest.mark.parametrize("stream", [False, True])
async def test_invalid_arguments_in_text_are_not_run_and_the_model_is_told(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, stream: bool
) -> None:
    """Arguments that break the tool's schema run nothing; the model reads which one."""
    scripted_llm.text_calls("python_tag", ("HassTurnOff", {"name": {"no": 1}}))
    scripted_llm.reply("Sorry.")
    await turn(scripted_llm, make_agent, stream=stream)
    told = json.loads(scripted_llm.chat_requests[1].messages[-1]["content"])
    assert told["error"] == "ToolError"
    assert "argument 'name'" in told["error_text"]
    assert light(demo_model) == "on"


async def test_the_trace_marks_the_call_recovered_and_keeps_the_reasoning(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The stored model call names the recovered call and holds the reasoning and raw text."""
    scripted_llm.text_calls("hermes", ("HassTurnOff", OFF), think="Lights off, then.")
    scripted_llm.reply("Done.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    result = await agent.process(ask("kitchen lights off"))
    await stored_turn(store, result.turn_id)
    async with store.sessionmaker() as session:
        first = (await session.execute(select(LLMCall).order_by(LLMCall.seq))).scalars().first()
        tool = (await session.execute(select(ToolCall))).scalar_one()
    assert first is not None
    assert first.response["recovered_from_text"] == [tool.call_id]
    assert first.response["reasoning"] == "Lights off, then."
    assert "<tool_call>" in first.response["raw_content"]
    assert "Lights off" not in result.reply
