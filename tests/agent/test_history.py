"""History within its token budget: large tool results shrink, the newest exchange stays."""

from __future__ import annotations

import json

from addon.agent.history import (
    HISTORY_TOKEN_BUDGET,
    NEWEST_RESULT_MIN_CHARS,
    OLDER_RESULT_CHARS,
    estimate_tokens,
    fit_history,
)
from addon.agent.service import Agent
from addon.llm.messages import ChatMessage, from_wire, wire_messages
from devtools.scripted_llm import ScriptedLLM
from devtools.synthetic import synthetic_home
from tests.fixtures.agent import MakeAgent, ask

NOTE = "Shortened for the conversation history"


def exchange(number: int, result: str) -> list[ChatMessage]:
    """One turn that called a tool: question, tool call, its result, and the reply."""
    call_id = f"call_{number}"
    return from_wire(
        [
            {"role": "user", "content": f"question {number}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "GetLiveContext", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": result},
            {"role": "assistant", "content": f"answer {number}"},
        ]
    )


def chat(number: int) -> list[ChatMessage]:
    """One turn without tools."""
    return from_wire(
        [
            {"role": "user", "content": f"question {number}"},
            {"role": "assistant", "content": f"answer {number}"},
        ]
    )


def tool_results(messages: list[ChatMessage]) -> dict[str, str]:
    wire = wire_messages(messages)
    return {m["tool_call_id"]: m["content"] for m in wire if m["role"] == "tool"}


def user_questions(messages: list[ChatMessage]) -> list[str]:
    return [m["content"] for m in wire_messages(messages) if m["role"] == "user"]


def assert_calls_answered(messages: list[ChatMessage]) -> None:
    """Every assistant tool call has its tool message, as the OpenAI protocol requires."""
    asked = {c["id"] for m in wire_messages(messages) for c in m.get("tool_calls") or []}
    assert asked == set(tool_results(messages))


def test_history_within_budget_is_sent_unchanged() -> None:
    """Below the budget nothing is shortened or dropped."""
    turns = [exchange(1, "x" * 2000), chat(2)]
    assert fit_history(turns, 10_000) == [*turns[0], *turns[1]]


def test_older_tool_results_shrink_before_any_turn_is_dropped() -> None:
    """Over budget, an older turn's large tool result is cut to an excerpt with a note."""
    turns = [exchange(1, "a" * 8000), chat(2), exchange(3, "c" * 2000)]
    sent = fit_history(turns, 1500)
    assert user_questions(sent) == ["question 1", "question 2", "question 3"]
    older = tool_results(sent)["call_1"]
    assert len(older) == OLDER_RESULT_CHARS
    assert older.startswith("aaa")
    assert f"{NOTE} from 8000 characters" in older
    assert tool_results(sent)["call_3"] == "c" * 2000
    assert_calls_answered(sent)


def test_newest_exchange_alone_over_budget_is_kept_and_shortened() -> None:
    """A newest turn larger than the whole budget is sent, its tool result cut to fit."""
    turns = [chat(1), exchange(2, "b" * 40_000)]
    sent = fit_history(turns, 3000)
    assert user_questions(sent) == ["question 1", "question 2"]
    assert wire_messages(sent)[-1] == {"role": "assistant", "content": "answer 2"}
    newest = tool_results(sent)["call_2"]
    assert NEWEST_RESULT_MIN_CHARS < len(newest) < 40_000
    assert newest.endswith("Call the tool again for current data.]")
    assert estimate_tokens(sent) <= 3000
    assert_calls_answered(sent)


def test_oldest_turns_go_when_shrinking_is_not_enough() -> None:
    """When shortened results still do not fit, the oldest turns are dropped, never the newest."""
    turns = [chat(n) for n in range(1, 60)] + [exchange(60, "z" * 50_000)]
    sent = fit_history(turns, 400)
    questions = user_questions(sent)
    assert questions[-1] == "question 60"
    assert "question 1" not in questions
    assert "question 59" in questions
    assert estimate_tokens(sent) <= 400
    assert_calls_answered(sent)


def test_newest_exchange_is_sent_even_when_its_shortest_form_is_over_budget() -> None:
    """However small the budget, the newest turn goes out, its result at the minimum length."""
    turns = [chat(1), exchange(2, "z" * 50_000)]
    sent = fit_history(turns, 100)
    assert user_questions(sent) == ["question 2"]
    assert len(tool_results(sent)["call_2"]) == NEWEST_RESULT_MIN_CHARS
    assert_calls_answered(sent)


def test_history_keeps_the_cached_messages_intact() -> None:
    """Shortening works on copies: the stored turn keeps its full tool result."""
    turns = [exchange(1, "a" * 8000), exchange(2, "b" * 8000)]
    fit_history(turns, 500)
    assert tool_results(turns[0])["call_1"] == "a" * 8000
    assert tool_results(turns[1])["call_2"] == "b" * 8000


async def test_follow_up_after_a_large_live_context_keeps_the_exchange(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """After a GetLiveContext answer over ~100 entities, "turn them off" still sees it."""
    home = synthetic_home(150, seed=0).build()
    agent: Agent = make_agent(llm=scripted_llm, home=home, local_first=False)
    scripted_llm.tool_calls(("GetLiveContext", {})).reply("Five lights are on.")
    first = await agent.process(ask("which lights are on?"))
    live = json.loads(scripted_llm.chat_requests[1].messages[-1]["content"])["result"]
    assert live.count("- names:") >= 100
    answer = from_wire([scripted_llm.chat_requests[1].messages[-1]])
    assert estimate_tokens(answer) > HISTORY_TOKEN_BUDGET
    scripted_llm.reply("They are off.")
    await agent.process(ask("turn them off", conversation_id=first.conversation_id))
    sent = scripted_llm.chat_requests[2].messages
    assert sent[1]["content"].endswith("\nwhich lights are on?")
    assert sent[2]["tool_calls"][0]["function"]["name"] == "GetLiveContext"
    assert sent[3]["role"] == "tool"
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]
    assert sent[3]["content"].startswith('{"success": true, "result": "Live Context:')
    assert NOTE in sent[3]["content"]
    assert sent[4] == {"role": "assistant", "content": "Five lights are on."}
    assert sent[5]["content"].endswith("\nturn them off")
