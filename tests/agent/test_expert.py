"""The expert model: a tool the main model asks, traced as a model call nested in it."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from addon.agent.expert import EXPERT_TOOL
from addon.i18n.translations import DE, EN
from addon.store.database import Store
from addon.store.models import LLMCall, ToolCall
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_model_failures import closed_port_url
from tests.fixtures.agent import MakeAgent, ask

QUESTION = "how long does a loaf of sourdough need to prove"
ASKED = {"question": "How long should sourdough prove at 21 °C?", "context": "User: I bake."}


def tool_result(llm: ScriptedLLM, request: int) -> dict[str, Any]:
    """What the main model was given back for its expert call, as sent in request ``request``."""
    message = llm.chat_requests[request].messages[-1]
    assert message["role"] == "tool"
    loaded: dict[str, Any] = json.loads(message["content"])
    return loaded


async def stored(store: Store, turn_id: int) -> tuple[list[LLMCall], list[ToolCall]]:
    await store.writer.flush()
    async with store.sessionmaker() as session:
        calls = await session.execute(
            select(LLMCall).where(LLMCall.turn_id == turn_id).order_by(LLMCall.seq)
        )
        tools = await session.execute(select(ToolCall).where(ToolCall.turn_id == turn_id))
        return list(calls.scalars()), list(tools.scalars())


async def test_the_expert_tool_is_offered_only_when_an_expert_is_configured(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM
) -> None:
    """Without an expert endpoint the main model never sees ask_expert."""
    scripted_llm.reply("no").reply("yes")
    await make_agent(llm=scripted_llm).process(ask(QUESTION))
    await make_agent(llm=scripted_llm, expert=second_llm).process(ask(QUESTION))
    offered = [[t["function"]["name"] for t in r.tools] for r in scripted_llm.chat_requests]
    assert EXPERT_TOOL not in offered[0]
    assert EXPERT_TOOL in offered[1]


async def test_the_expert_gets_the_question_and_excerpt_without_tools(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM
) -> None:
    """The expert's request holds the question and the excerpt, no tools and no home."""
    scripted_llm.tool_calls((EXPERT_TOOL, ASKED)).reply("About four hours.")
    second_llm.reply("Four to five hours at 21 °C.")
    await make_agent(llm=scripted_llm, expert=second_llm).process(ask(QUESTION))
    sent = second_llm.chat_requests[0]
    assert "tools" not in sent.body
    assert [m["role"] for m in sent.messages] == ["system", "user"]
    assert sent.messages[-1]["content"] == f"{ASKED['question']}\n\nContext:\n{ASKED['context']}"
    assert QUESTION not in json.dumps(sent.messages)


async def test_the_experts_answer_goes_back_to_the_main_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM
) -> None:
    """The main model reads the expert's text as the tool's result and answers from it."""
    scripted_llm.tool_calls((EXPERT_TOOL, {"question": "Why is the sky blue?"}))
    scripted_llm.reply("Rayleigh scattering, says the expert.")
    second_llm.reply("Rayleigh scattering.")
    result = await make_agent(llm=scripted_llm, expert=second_llm).process(ask(QUESTION))
    assert tool_result(scripted_llm, 1) == {"success": True, "answer": "Rayleigh scattering."}
    assert second_llm.chat_requests[0].messages[-1]["content"] == "Why is the sky blue?"
    assert result.reply == "Rayleigh scattering, says the expert."


async def test_the_expert_call_is_stored_nested_in_its_tool_call(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM, store: Store
) -> None:
    """The trace has the expert's call as a row of its own, naming the tool call that made it."""
    scripted_llm.tool_calls((EXPERT_TOOL, ASKED)).reply("About four hours.")
    second_llm.reply("Four to five hours.")
    result = await make_agent(llm=scripted_llm, expert=second_llm).process(ask(QUESTION))
    calls, tools = await stored(store, result.turn_id)
    assert [call.endpoint for call in calls] == ["primary", "expert", "primary"]
    expert = calls[1]
    (tool,) = tools
    assert (expert.tool_call_id, expert.request_tools) == (tool.call_id, [])
    assert expert.response["content"] == "Four to five hours."
    assert tool.llm_call_id == calls[0].id
    assert tool.executor == "expert"


async def test_an_expert_timeout_has_its_own_message(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM, store: Store
) -> None:
    """The expert's own timeout ends its call; the main model hears why, in the turn's language."""
    scripted_llm.tool_calls((EXPERT_TOOL, ASKED)).reply("Der Experte braucht zu lange.")
    second_llm.reply("too late", delay=5.0)
    agent = make_agent(llm=scripted_llm, expert=second_llm, expert_timeout=0.3)
    result = await agent.process(ask("wie lange muss Sauerteig gehen", language="de"))
    assert tool_result(scripted_llm, 1) == {
        "error": "expert_timeout",
        "error_text": DE.expert_timeout,
    }
    assert result.reply == "Der Experte braucht zu lange."
    calls, tools = await stored(store, result.turn_id)
    assert calls[1].endpoint == "expert"
    assert calls[1].error is not None
    assert "did not answer within" in calls[1].error
    assert tools[0].error == calls[1].error


async def test_an_unreachable_expert_is_told_as_such(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """An expert that cannot be reached gives its own message, not the main model's apology."""
    scripted_llm.tool_calls((EXPERT_TOOL, ASKED)).reply("The expert is away.")
    await make_agent(llm=scripted_llm, expert=closed_port_url()).process(ask(QUESTION))
    assert tool_result(scripted_llm, 1)["error_text"] == EN.expert_unreachable


def test_every_expert_failure_is_worded_differently() -> None:
    """The four expert messages differ from each other and from the main model's."""
    for words in (EN, DE):
        expert = {
            words.expert_timeout,
            words.expert_unreachable,
            words.expert_refused,
            words.expert_failed,
        }
        assert len(expert) == 4
        assert words.llm_timeout not in expert
