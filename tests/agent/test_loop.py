"""The tool loop against a real OpenAI-protocol server scripted per test."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.agent.loop import run_tool_loop
from addon.agent.trace import TurnTrace
from addon.errors import ErrorKind
from addon.i18n.translations import EN
from addon.llm.client import LLMClient
from addon.llm.messages import SystemMessage, UserMessage
from addon.tools.base import ToolContext
from addon.tools.datetime_tool import GetDateTimeTool
from addon.tools.registry import ToolRegistry
from devtools.scripted_llm import ScriptedLLM

SYSTEM = SystemMessage("You are a test.")


# Only bounds a test that would otherwise hang when calls queue; no assertion rests on it.
GATHER_PATIENCE_S = 5.0


@dataclass(slots=True)
class SlowTool:
    """A real tool that reports its label, waiting first for its group when it has one.

    With ``together`` set, a call returns only once that many calls are in flight at once: the
    proof that parallel calls overlap, with no clock involved. Calls run one after another
    never meet, and the first one fails with a TimeoutError after ``GATHER_PATIENCE_S``.
    """

    name: str = "Slow"
    description: str = "Waits for its group, then reports what it was asked."
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {"label": {"type": "string"}}}
    )
    kind: str = "builtin"
    together: asyncio.Barrier | None = None

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        if self.together is not None:
            async with asyncio.timeout(GATHER_PATIENCE_S):
                await self.together.wait()
        return {"success": True, "label": arguments.get("label")}


@pytest.fixture
def context() -> ToolContext:
    return ToolContext(
        home=None, executor=None, language="en", now=datetime(2026, 3, 1, tzinfo=UTC)
    )


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([GetDateTimeTool(), SlowTool()])


def make_client(llm: ScriptedLLM, *, timeout: float = 10.0, max_retries: int = 0) -> LLMClient:
    return LLMClient(
        base_url=llm.base_url,
        api_key="test-key",
        model="scripted-model",
        temperature=0.2,
        timeout=timeout,
        max_retries=max_retries,
    )


async def run(
    llm: ScriptedLLM,
    registry: ToolRegistry,
    context: ToolContext,
    *,
    max_iterations: int = 5,
    stream: bool = False,
    client: LLMClient | None = None,
    trace: TurnTrace | None = None,
) -> Any:
    client = client or make_client(llm)
    try:
        return await run_tool_loop(
            llm=client,
            messages=[SYSTEM, UserMessage("hello")],
            registry=registry,
            context=context,
            trace=trace or TurnTrace(),
            max_iterations=max_iterations,
            stream=stream,
        )
    finally:
        await client.close()


async def test_plain_reply_needs_one_call(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """A model that answers in words ends the loop after one request."""
    scripted_llm.reply("Hello there.")
    result = await run(scripted_llm, registry, context)
    assert result.reply == "Hello there."
    assert result.error is None
    request = scripted_llm.chat_requests[0]
    assert request.body["temperature"] == 0.2
    assert [tool["function"]["name"] for tool in request.tools] == ["GetDateTime", "Slow"]


async def test_tool_results_are_sent_back_in_order(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """After a tool call the model sees the assistant message and the tool's result."""
    scripted_llm.tool_calls(("GetDateTime", {})).reply("It is Sunday.")
    result = await run(scripted_llm, registry, context)
    assert result.reply == "It is Sunday."
    second = scripted_llm.chat_requests[1].messages
    assert second[-2]["role"] == "assistant"
    assert second[-2]["tool_calls"][0]["function"]["name"] == "GetDateTime"
    assert second[-1]["role"] == "tool"
    assert json.loads(second[-1]["content"])["result"]["weekday"] == "Sunday"


async def test_parallel_tool_calls_run_concurrently(
    scripted_llm: ScriptedLLM, context: ToolContext
) -> None:
    """Three calls in one answer are all in flight at once instead of queueing."""
    registry = ToolRegistry([SlowTool(together=asyncio.Barrier(3))])
    scripted_llm.tool_calls(
        ("Slow", {"label": "a"}), ("Slow", {"label": "b"}), ("Slow", {"label": "c"})
    ).reply("done")
    result = await run(scripted_llm, registry, context)
    assert [o.error for o in result.outcomes] == [None, None, None]
    assert [o.result.content["label"] for o in result.outcomes] == ["a", "b", "c"]


async def test_iteration_bound_stops_a_looping_model(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """A model that never stops calling tools gets a clear reply after the bound."""
    for _ in range(3):
        scripted_llm.tool_calls(("GetDateTime", {}))
    result = await run(scripted_llm, registry, context, max_iterations=3)
    assert result.reply == EN.iteration_limit
    assert len(scripted_llm.chat_requests) == 3
    assert result.error == "stopped after 3 model calls"


async def test_unknown_tool_and_bad_arguments_reach_the_model_as_errors(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """Errors are tool results the model can correct, not failures of the turn."""
    scripted_llm.tool_calls(("NoSuchTool", {}), ("Slow", {"label": {"a": 1}})).reply("Sorry.")
    result = await run(scripted_llm, registry, context)
    tool_messages = [m for m in scripted_llm.chat_requests[1].messages if m["role"] == "tool"]
    unknown, bad = (json.loads(m["content"]) for m in tool_messages)
    assert set(unknown) == set(bad) == {"error", "error_text"}
    assert unknown["error"] == "ToolError"
    assert "unknown tool 'NoSuchTool'" in unknown["error_text"]
    assert "GetDateTime, Slow" in unknown["error_text"]
    assert bad["error"] == "ToolError"
    assert bad["error_text"] == "argument 'label': {'a': 1} is not of type 'string'"
    assert [o.error is not None for o in result.outcomes] == [True, True]
    assert result.reply == "Sorry."


async def test_model_error_becomes_a_spoken_apology(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """A 500 from the endpoint is a clear reply and a recorded error, not an exception."""
    scripted_llm.error(500)
    trace = TurnTrace()
    result = await run(scripted_llm, registry, context, trace=trace)
    assert result.reply == EN.llm_failed
    assert trace.error_kind is ErrorKind.LLM_FAILED
    assert "500" in (result.error or "")
    assert trace.llm_calls[0].error is not None


async def test_rate_limit_is_retried_with_backoff(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """A 429 with Retry-After is retried and the turn still succeeds."""
    scripted_llm.error(429, headers={"retry-after-ms": "1"}).reply("Recovered.")
    client = make_client(scripted_llm, max_retries=2)
    result = await run(scripted_llm, registry, context, client=client)
    assert result.reply == "Recovered."
    assert len(scripted_llm.chat_requests) == 2


async def test_timeout_is_a_clear_failure(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """A model slower than the request timeout ends the turn with the apology."""
    scripted_llm.reply("too late", delay=2.0)
    client = make_client(scripted_llm, timeout=0.5)
    trace = TurnTrace()
    result = await run(scripted_llm, registry, context, client=client, trace=trace)
    assert result.reply == EN.llm_timeout
    assert trace.error_kind is ErrorKind.LLM_TIMEOUT
    assert "did not answer within" in (result.error or "")


async def test_streaming_with_tool_calls_reassembles_arguments(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """Streamed tool-call deltas are joined into the same call as a non-streamed answer."""
    scripted_llm.tool_calls(("Slow", {"label": "streamed label"})).reply("All done.")
    trace = TurnTrace()
    result = await run(scripted_llm, registry, context, stream=True, trace=trace)
    assert result.reply == "All done."
    assert result.outcomes[0].result.content["label"] == "streamed label"
    assert trace.llm_calls[0].streamed
    assert trace.llm_calls[0].ttft_ms is not None
    assert trace.llm_calls[1].finish_reason == "stop"


async def test_trace_records_tokens_and_messages(
    scripted_llm: ScriptedLLM, registry: ToolRegistry, context: ToolContext
) -> None:
    """Each model call's tokens, finish reason and exact messages are in the trace."""
    scripted_llm.reply("ok", usage={"prompt_tokens": 120, "completion_tokens": 3})
    trace = TurnTrace()
    await run(scripted_llm, registry, context, trace=trace)
    call = trace.llm_calls[0]
    assert (call.prompt_tokens, call.completion_tokens) == (120, 3)
    assert call.finish_reason == "stop"
    assert call.request_messages[0] == SYSTEM
