"""An answered turn is a stored turn: the agent returns only once its turn is in the file."""

from __future__ import annotations

import json
import sqlite3

from addon.agent.conversation import ToolCall
from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask


def in_the_file(store: Store, turn_id: int) -> tuple[int, int]:
    """The turn and its tool calls as a start would find them, read by another connection.

    Its rows, or, while they are not written yet, its journal entry (``store/turns/journal.py``),
    which a start after a crash writes; no flush.
    """
    connection = sqlite3.connect(store.path)
    try:
        entry = connection.execute("SELECT body FROM turn_journal WHERE turn_id = ?", (turn_id,))
        journaled = entry.fetchone()
        if journaled is not None:
            body = json.loads(journaled[0])
            return int(body["turn_id"] == turn_id), len(body["turn"]["tool_calls"])
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
            entry = connection.execute(
                "SELECT body FROM turn_journal WHERE turn_id = ?", (result.turn_id,)
            ).fetchone()
            rows = connection.execute(
                "SELECT count(*) FROM llm_calls WHERE turn_id = ?", (result.turn_id,)
            ).fetchone()
        finally:
            connection.close()
    calls = len(json.loads(entry[0])["turn"]["llm_calls"]) if entry is not None else rows[0]
    assert calls >= 1


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
