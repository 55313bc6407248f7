"""``/mcp`` with the official MCP client over real HTTP: tools, ``converse``, the prompt, access."""

from __future__ import annotations

import asyncio

import pytest
from mcp.shared.exceptions import MCPError
from sqlalchemy import select

from addon import keys
from addon.store.models import Conversation, ToolCall, Turn
from devtools.scripted_llm import ScriptedLLM
from tests.web.api.conftest import ADMIN_TOKEN, TOKEN, AppClient
from tests.web.mcp.official import official_client

HANG_GUARD_S = 2.0
"""A hang guard, far above the answer's time: the stream refused must not be held open."""


async def _turn(app: AppClient, turn_id: int) -> Turn:
    await app.app[keys.STORE].writer.flush()
    async with app.app[keys.STORE].sessionmaker() as session:
        turn = await session.get(Turn, turn_id)
    assert turn is not None
    return turn


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tools_are_listed_with_converse(direct: AppClient, mode: str) -> None:
    """Both eras of the protocol list GetDateTime and converse, with their schemas."""
    async with official_client(direct, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"GetDateTime", "converse"} <= set(tools)
    assert tools["converse"].input_schema["required"] == ["text"]
    assert tools["GetDateTime"].input_schema == {"type": "object", "properties": {}}


async def test_tools_are_listed_with_their_safety_labels(direct: AppClient) -> None:
    """GetDateTime is labelled read-only; converse, which may do anything, has the defaults."""
    async with official_client(direct) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    clock = tools["GetDateTime"].annotations
    assert clock is not None
    assert (clock.read_only_hint, clock.destructive_hint, clock.open_world_hint) == (
        True,
        False,
        False,
    )
    converse = tools["converse"].annotations
    assert converse is not None
    assert converse.model_dump(by_alias=True, exclude_none=True) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }


async def test_a_tool_call_is_answered_and_recorded(direct: AppClient) -> None:
    """GetDateTime answers in structured content; the call is a stored turn from ``mcp``."""
    async with official_client(direct) as client:
        result = await client.call_tool("GetDateTime", {})
    assert result.is_error is False
    assert result.structured_content is not None
    assert set(result.structured_content["result"]) == {"date", "time", "timezone", "weekday"}
    conversation_id = result.structured_content["conversation_id"]
    await direct.app[keys.STORE].writer.flush()
    async with direct.app[keys.STORE].sessionmaker() as session:
        conversation = await session.get(Conversation, conversation_id)
        turn = (
            await session.execute(select(Turn).where(Turn.conversation_id == conversation_id))
        ).scalar_one()
        calls = (await session.execute(select(ToolCall).where(ToolCall.turn_id == turn.id))).all()
    assert conversation is not None
    assert conversation.source == "mcp"
    assert turn.handled_by == "tool"
    assert len(calls) == 1


async def test_an_unknown_tool_is_an_error_result(direct: AppClient) -> None:
    """A tool that is not offered answers with is_error and the tools that are."""
    async with official_client(direct) as client:
        result = await client.call_tool("NoSuchTool", {})
    assert result.is_error is True
    assert "GetDateTime" in result.content[0].text  # type: ignore[union-attr]


async def test_converse_runs_a_turn(direct: AppClient, scripted_llm: ScriptedLLM) -> None:
    """``converse`` answers with the model's reply, the conversation id and the actions."""
    scripted_llm.reply("It is sunny.")
    async with official_client(direct) as client:
        result = await client.call_tool("converse", {"text": "How is the weather?"})
    assert result.is_error is False
    assert result.content[0].text == "It is sunny."  # type: ignore[union-attr]
    structured = result.structured_content
    assert structured is not None
    assert structured["reply"] == "It is sunny."
    assert structured["actions"] == []
    turn = await _turn(direct, structured["turn_id"])
    assert turn.conversation_id == structured["conversation_id"]
    assert turn.handled_by == "llm"


async def test_converse_refuses_bad_arguments(direct: AppClient) -> None:
    """Missing text is a tool error that says which argument, not a turn."""
    async with official_client(direct) as client:
        result = await client.call_tool("converse", {"txt": "hi"})
    assert result.is_error is True
    assert "text" in result.content[0].text  # type: ignore[union-attr]


async def test_instructions_are_a_prompt(direct: AppClient) -> None:
    """The agent's system prompt is offered as the prompt home_agent_instructions."""
    async with official_client(direct) as client:
        prompts = (await client.list_prompts()).prompts
        prompt = await client.get_prompt("home_agent_instructions")
    assert [p.name for p in prompts] == ["home_agent_instructions"]
    expected = direct.app[keys.AGENT].prompt_preview().system_prompt
    assert prompt.messages[0].content.text == expected  # type: ignore[union-attr]


async def test_wrong_token_is_refused(direct: AppClient) -> None:
    """A wrong bearer token never reaches the MCP server."""
    with pytest.raises((MCPError, BaseExceptionGroup)) as caught:
        async with official_client(direct, "wrong-token") as client:
            await client.list_tools()
    leaves = _leaves(caught.value)
    assert leaves
    assert all(isinstance(error, MCPError) for error in leaves)
    response = await direct.post("/mcp", json={}, headers={"Authorization": "Bearer wrong"})
    assert response.status == 401


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_only_post_is_served(direct: AppClient, method: str) -> None:
    """GET (a client opening the server's stream) and DELETE answer 405 with ``Allow: POST``."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}
    async with asyncio.timeout(HANG_GUARD_S):
        response = await direct.request(method, "/mcp", headers=headers)
        await response.read()
    assert response.status == 405
    assert response.headers["Allow"] == "POST"


async def test_a_body_not_in_its_encoding_is_refused(direct: AppClient) -> None:
    """A body that is not the gzip its header claims is a 400, not a server error."""
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Content-Type": "application/json",
        "Content-Encoding": "gzip",
    }
    response = await direct.post("/mcp", data=b'{"jsonrpc": "2.0"}', headers=headers)
    assert response.status == 400


async def test_a_refused_stream_is_still_behind_the_token(direct: AppClient) -> None:
    """Without the token, GET /mcp is refused as unauthorised before the method is judged."""
    response = await direct.get("/mcp", headers={"Accept": "text/event-stream"})
    assert response.status == 401


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside an exception group (anyio's task groups wrap them), or the one."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


async def test_a_tool_call_shows_in_the_panel(direct: AppClient) -> None:
    """The stored call is listed under source mcp and its page shows the tool and its trace."""
    async with official_client(direct) as client:
        result = await client.call_tool("GetDateTime", {})
    assert result.structured_content is not None
    conversation_id = result.structured_content["conversation_id"]
    await direct.app[keys.STORE].writer.flush()
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}  # the panel is administration
    listing = await direct.get("/conversations", params={"source": "mcp"}, headers=headers)
    assert listing.status == 200
    assert conversation_id in await listing.text()
    page = await direct.get(f"/conversations/{conversation_id}", headers=headers)
    assert page.status == 200
    text = await page.text()
    assert "GetDateTime" in text
    assert "tool call" in text
