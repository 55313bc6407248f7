"""The tool loop's bounds: calls per model answer, result size for model and trace (20.5)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.agent.loop import MAX_RESULT_CHARS, MAX_TOOL_CALLS, MAX_TRACE_CHARS, TOO_MANY_CALLS
from addon.agent.trace import TurnTrace
from addon.tools.base import ToolContext
from addon.tools.registry import ToolRegistry
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_loop import SlowTool, run


@pytest.fixture
def context() -> ToolContext:
    return ToolContext(
        home=None, executor=None, language="en", now=datetime(2026, 3, 1, tzinfo=UTC)
    )


@dataclass(slots=True)
class HugeTool:
    """A real tool whose answer is far larger than a model should read."""

    name: str = "Huge"
    description: str = "Answers with a very long text."
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    kind: str = "builtin"

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        return {"success": True, "text": "x" * (MAX_TRACE_CHARS * 2)}


async def test_calls_past_the_bound_get_an_error_and_do_not_run(
    scripted_llm: ScriptedLLM, context: ToolContext
) -> None:
    """Twelve calls in one answer: eight run, four are answered with a clear error."""
    calls = [("Slow", {"label": str(index)}) for index in range(12)]
    scripted_llm.tool_calls(*calls).reply("done")
    result = await run(scripted_llm, ToolRegistry([SlowTool()]), context)
    ran = [outcome for outcome in result.outcomes if outcome.error is None]
    held = [outcome for outcome in result.outcomes if outcome.error is not None]
    assert [outcome.result.content["label"] for outcome in ran] == [
        str(i) for i in range(MAX_TOOL_CALLS)
    ]
    assert len(held) == 12 - MAX_TOOL_CALLS
    assert {outcome.result.content["error"] for outcome in held} == {TOO_MANY_CALLS}
    answers = [m for m in scripted_llm.chat_requests[1].messages if m["role"] == "tool"]
    assert len(answers) == 12
    assert f"at most {MAX_TOOL_CALLS}" in json.loads(answers[-1]["content"])["error_text"]


async def test_a_huge_result_is_cut_for_the_model_and_the_trace(
    scripted_llm: ScriptedLLM, context: ToolContext
) -> None:
    """The model reads at most MAX_RESULT_CHARS of a result; the trace keeps a bounded copy."""
    scripted_llm.tool_calls(("Huge", {})).reply("done")
    trace = TurnTrace()
    await run(scripted_llm, ToolRegistry([HugeTool()]), context, trace=trace)
    (answer,) = [m for m in scripted_llm.chat_requests[1].messages if m["role"] == "tool"]
    assert len(answer["content"]) < MAX_RESULT_CHARS + 200
    assert "[cut: the result was" in answer["content"]
    kept = trace.tool_calls[0].outcome.result.for_model()
    assert kept["truncated"] is True
    assert len(json.dumps(kept)) < MAX_TRACE_CHARS + 200
