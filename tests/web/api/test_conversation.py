"""``POST /api/conversation``: a turn in, the agent's answer out, and the turn stored."""

from __future__ import annotations

from sqlalchemy import select

from addon import keys
from addon.store.models import Conversation, Turn
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.llm import spoken
from tests.web.api.conftest import AppClient


async def test_reply_comes_from_the_model(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """The model's answer is the reply, with the turn's ids and how it was handled."""
    scripted_llm.reply("The kitchen is 21 degrees.")
    response = await api.post("/api/conversation", json={"text": "How warm is the kitchen?"})
    assert response.status == 200
    body = await response.json()
    assert body["reply"] == "The kitchen is 21 degrees."
    assert body["handled_by"] == "llm"
    assert body["actions"] == []
    assert body["continue_conversation"] is False
    assert isinstance(body["turn_id"], int)
    assert body["conversation_id"]
    assert spoken(scripted_llm.chat_requests[0].messages)[-1] == {
        "role": "user",
        "content": "How warm is the kitchen?",
    }


async def test_conversation_id_continues_the_conversation(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """Sending the returned conversation_id back gives the model the first turn as history."""
    scripted_llm.reply("Hello! What's your name?").reply("Nice to meet you, Ada.")
    first = await (await api.post("/api/conversation", json={"text": "Hi there"})).json()
    second = await (
        await api.post(
            "/api/conversation",
            json={"text": "I'm Ada", "conversation_id": first["conversation_id"]},
        )
    ).json()
    assert second["conversation_id"] == first["conversation_id"]
    assert first["continue_conversation"] is True
    contents = [m.get("content") for m in spoken(scripted_llm.chat_requests[1].messages)]
    assert contents[-3:] == ["Hi there", "Hello! What's your name?", "I'm Ada"]


async def test_client_chosen_conversation_id_is_used(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """A new conversation can be named by the caller."""
    scripted_llm.reply("Sure.")
    body = await (
        await api.post("/api/conversation", json={"text": "Hi", "conversation_id": "kiosk-1:a"})
    ).json()
    assert body["conversation_id"] == "kiosk-1:a"


async def test_dry_run_passes_through_to_the_turn(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """``dry_run: true`` is recorded on the stored turn (the option default is off)."""
    scripted_llm.reply("Pretending to turn it off.")
    body = await (
        await api.post("/api/conversation", json={"text": "Turn off the oven", "dry_run": True})
    ).json()
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        turn = await session.get(Turn, body["turn_id"])
    assert turn is not None
    assert turn.dry_run is True


async def test_turn_is_stored_with_source_http(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """The conversation and its turn are in the store, marked as coming from the HTTP API."""
    scripted_llm.reply("Done.")
    body = await (
        await api.post(
            "/api/conversation",
            json={"text": "Lights please", "language": "en", "device_id": "kitchen-tablet"},
        )
    ).json()
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        conversation = await session.get(Conversation, body["conversation_id"])
        turns = (await session.scalars(select(Turn))).all()
    assert conversation is not None
    assert conversation.source == "http"
    assert conversation.device_id == "kitchen-tablet"
    assert [(t.id, t.user_text, t.reply_text) for t in turns] == [
        (body["turn_id"], "Lights please", "Done.")
    ]


async def test_model_failure_is_a_polite_reply(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """A broken model endpoint still gives a 200 with an apology, handled_by failed."""
    scripted_llm.error(400, "model not loaded")
    response = await api.post("/api/conversation", json={"text": "Hello"})
    assert response.status == 200
    body = await response.json()
    assert body["handled_by"] == "failed"
    assert body["reply"]
