"""``POST /api/conversation/stream``: server-sent deltas while the model writes, then the result."""

from __future__ import annotations

from sqlalchemy import text

from addon import keys
from addon.config.settings import Settings
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.database import stored_conversation
from tests.web.api.conftest import AppClient, StartApp
from tests.web.api.events import read_events

REPLY = "The hallway light is now on, and the door is locked."


async def test_deltas_reassemble_to_the_reply(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """The delta texts joined are the reply, and a single result event ends the stream."""
    scripted_llm.reply(REPLY)
    response = await api.post("/api/conversation/stream", json={"text": "Hallway?"})
    assert response.status == 200
    assert response.content_type == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    events = await read_events(response)
    names = [e.name for e in events]
    assert names[-1] == "result"
    assert set(names[:-1]) == {"delta"}
    assert len(names) > 3  # streamed in pieces, not as one block
    assert "".join(e.json()["text"] for e in events[:-1]) == REPLY
    result = events[-1].json()
    assert result["reply"] == REPLY
    assert result["handled_by"] == "llm"
    assert set(result) == {
        "reply",
        "conversation_id",
        "turn_id",
        "handled_by",
        "actions",
        "continue_conversation",
        "needs_confirmation",
    }


async def test_deltas_arrive_while_the_model_writes(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """The first delta reaches the client before the turn is finished and stored (no buffering)."""
    scripted_llm.reply(REPLY, chunk_delay=0.1)
    response = await api.post("/api/conversation/stream", json={"text": "Hi"})
    first = await response.content.readline()
    while not first.startswith(b"event:"):
        first = await response.content.readline()
    stored_while_streaming = await stored_turns(api)
    rest = await read_events(response)
    assert first.decode().strip() == "event: delta"
    assert stored_while_streaming == 0
    assert rest[-1].name == "result"
    assert await stored_turns(api) == 1


async def stored_turns(api: AppClient) -> int:
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        return int((await session.execute(text("SELECT count(*) FROM turns"))).scalar_one())


async def test_apology_is_streamed_when_the_model_fails(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """A reply the model never streamed (the agent's apology) still arrives as delta text."""
    scripted_llm.error(400, "model not loaded")
    events = await read_events(await api.post("/api/conversation/stream", json={"text": "Hi"}))
    result = events[-1].json()
    assert result["handled_by"] == "failed"
    assert "".join(e.json()["text"] for e in events[:-1]) == result["reply"]


async def test_failure_after_the_stream_opened_is_an_error_event(
    start_app: StartApp, agent_settings: Settings, scripted_llm: ScriptedLLM
) -> None:
    """When the turn fails inside (its history unreadable), the stream ends with an error event."""
    await stored_conversation(agent_settings.database_path, "earlier")
    api = await start_app(agent_settings)
    async with api.app[keys.STORE].engine.begin() as connection:
        await connection.execute(text("DROP TABLE turns"))
    scripted_llm.reply("This will not be kept.")
    response = await api.post(
        "/api/conversation/stream", json={"text": "Hi", "conversation_id": "earlier"}
    )
    assert response.status == 200
    events = await read_events(response)
    assert events[-1].name == "error"
    assert events[-1].json() == {
        "error": "internal",
        "message": "Internal error; the add-on log has the details.",
    }
    assert "result" not in [e.name for e in events]


async def test_invalid_body_is_refused_before_streaming(api: AppClient) -> None:
    """Validation errors are plain JSON 4xx answers, not an event stream."""
    response = await api.post("/api/conversation/stream", json={"text": ""})
    assert response.status == 422
    assert response.content_type == "application/json"
    assert (await response.json())["field"] == "text"


async def test_text_beside_a_tool_call_is_part_of_the_result(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """Deltas written before a tool call are in the result's reply and the stored turn."""
    scripted_llm.tool_calls(("GetDateTime", {}), content="One moment.").reply("It is nine.")
    response = await api.post("/api/conversation/stream", json={"text": "What time is it?"})
    events = await read_events(response)
    result = events[-1].json()
    deltas = "".join(e.json()["text"] for e in events[:-1])
    assert (deltas, result["reply"]) == ("One moment. It is nine.", "One moment. It is nine.")
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        stored = (await session.execute(text("SELECT reply_text FROM turns"))).scalar_one()
    assert stored == result["reply"]


async def test_reasoning_is_never_streamed(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """``<think>`` text and ``reasoning_content`` reach neither a delta nor the result."""
    scripted_llm.text_calls(
        "hermes", think="secret plan", before=REPLY, reasoning="more secret thoughts"
    )
    response = await api.post("/api/conversation/stream", json={"text": "Hallway?"})
    events = await read_events(response)
    deltas = "".join(e.json()["text"] for e in events if e.name == "delta")
    assert deltas == REPLY
    assert events[-1].json()["reply"] == REPLY
    assert "secret" not in "".join(e.data for e in events)
