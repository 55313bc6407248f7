"""An answered turn is a stored turn: the agent returns only once its turn is committed."""

from __future__ import annotations

import sqlite3

from addon.agent.conversation import ToolCall
from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask


def in_the_file(store: Store, turn_id: int) -> tuple[int, int]:
    """The turn's row and its tool calls, read through a connection of another's, no flush."""
    connection = sqlite3.connect(store.path)
    try:
        turns = connection.execute("SELECT count(*) FROM turns WHERE id = ?", (turn_id,))
        tools = connection.execute("SELECT count(*) FROM tool_calls WHERE turn_id = ?", (turn_id,))
        return turns.fetchone()[0], tools.fetchone()[0]
    finally:
        connection.close()


async def test_a_local_turn_is_in_the_file_when_its_answer_comes_back(
    make_agent: MakeAgent, store: Store
) -> None:
    """With another turn in progress (no quiet moment), the answered turn is committed already."""
    agent = make_agent()
    with store.writer.turn_in_progress():
        result = await agent.process(ask("turn on the kitchen lights"))
        assert in_the_file(store, result.turn_id) == (1, 1)


async def test_a_model_turn_is_in_the_file_with_its_model_calls(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The model's turn and its model calls are committed before the agent answers."""
    agent = make_agent(llm=scripted_llm, local_first=False)
    scripted_llm.reply("Why did the lamp go out? It was tired.")
    with store.writer.turn_in_progress():
        result = await agent.process(ask("tell me a joke"))
        connection = sqlite3.connect(store.path)
        try:
            row = connection.execute(
                "SELECT count(*) FROM llm_calls WHERE turn_id = ?", (result.turn_id,)
            ).fetchone()
        finally:
            connection.close()
    assert row[0] >= 1


async def test_a_tool_called_directly_is_stored_before_its_result(
    make_agent: MakeAgent, store: Store
) -> None:
    """``call_tool`` (the MCP server's tool calls) also returns only after the commit."""
    agent = make_agent()
    with store.writer.turn_in_progress():
        called = await agent.call_tool(
            ToolCall(name="HassTurnOn", arguments={"name": "Kitchen Lights"}, source="mcp")
        )
        assert in_the_file(store, called.turn_id) == (1, 1)
