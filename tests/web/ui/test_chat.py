"""The chat playground over HTTP: the streamed answer, the plain form, the transcript."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select

from addon.store.models import Turn
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import UI
from tests.web.ui.html import misplaced_urls, parse
from tests.web.ui.seed import T0, seed_turn

FORM = {"text": "tell me about the weather", "dry_run": "on"}


def events(body: str) -> list[tuple[str, dict[str, Any]]]:
    """The Server-Sent Events of a finished stream, as (event, data)."""
    found = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


async def recorded_turn(ui: UI, turn_id: int) -> Turn:
    await ui.store.writer.flush()
    async with ui.store.sessionmaker() as session:
        return (await session.execute(select(Turn).where(Turn.id == turn_id))).scalar_one()


@pytest.mark.urls
async def test_stream_sends_text_then_the_trace(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """The stream carries the reply in pieces, then done with the trace's URL."""
    reply = "It is sunny with a light breeze all afternoon."
    scripted_llm.reply(reply)
    response = await ui.post("/chat/stream", FORM)
    assert response.status == 200
    assert response.content_type == "text/event-stream"
    received = events(await response.text())
    chunks = [data["text"] for name, data in received if name == "text"]
    assert len(chunks) > 1
    assert "".join(chunks) == reply
    name, done = received[-1]
    assert name == "done"
    assert done["reply"] == reply
    assert done["handled_by"] == "llm"
    assert done["trace_url"] == (
        f"{ui.prefix}/conversations/{done['conversation_id']}#turn-{done['turn_id']}"
    )


async def test_stream_records_a_dry_run_from_the_ui(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """The turn is recorded as coming from the UI, as a dry run when the switch is on."""
    scripted_llm.reply("Sunny.")
    done = events(await (await ui.post("/chat/stream", FORM)).text())[-1][1]
    turn = await recorded_turn(ui, done["turn_id"])
    assert (turn.user_text, turn.dry_run) == (FORM["text"], True)


@pytest.mark.urls
async def test_plain_form_redirects_to_the_trace(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """Without script the form's POST answers 303 to the new turn, under the prefix."""
    scripted_llm.reply("Sunny.")
    response = await ui.post("/chat", {"text": "what's the weather"})
    location = response.headers["Location"]
    assert response.status == 303
    assert location.startswith(f"{ui.prefix}/conversations/")
    conversation_path, _, anchor = location.removeprefix(ui.prefix).partition("#")
    turn = await recorded_turn(ui, int(anchor.removeprefix("turn-")))
    assert turn.dry_run is False
    assert "Sunny." in await ui.page(conversation_path)


@pytest.mark.urls
async def test_plain_form_continues_a_conversation(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """A conversation id in the form adds the turn to that conversation."""
    await seed_turn(ui.store, "chat-1", "hello", "Hi there.", at=T0, source="ui")
    scripted_llm.reply("Still here.")
    response = await ui.post("/chat", {"text": "are you there", "conversation_id": "chat-1"})
    assert response.headers["Location"].startswith(f"{ui.prefix}/conversations/chat-1#turn-")


@pytest.mark.urls
async def test_empty_message_goes_back_to_the_chat(ui: UI) -> None:
    """Sending nothing returns to the chat page instead of asking the agent."""
    response = await ui.post("/chat", {"text": "   ", "conversation_id": "chat-1"})
    assert response.status == 303
    assert response.headers["Location"] == f"{ui.prefix}/chat?conversation=chat-1"


async def test_bad_conversation_id_is_refused(ui: UI) -> None:
    """A conversation id that no UI could have produced is a 400."""
    response = await ui.post("/chat", {"text": "hi", "conversation_id": "../../etc"})
    assert response.status == 400


async def test_local_command_streams_once(ui: UI) -> None:
    """A command the local matcher understands answers without the model, as one piece."""
    response = await ui.post(
        "/chat/stream", {"text": "turn on the kitchen lights", "dry_run": "on"}
    )
    received = events(await response.text())
    name, done = received[-1]
    assert (name, done["handled_by"]) == ("done", "local")
    assert [data["text"] for kind, data in received if kind == "text"] == [done["reply"]]


@pytest.mark.urls
async def test_chat_page_shows_the_conversation_so_far(ui: UI) -> None:
    """Opening the chat on a conversation shows its turns with trace links, and continues it."""
    turn_id = await seed_turn(ui.store, "chat-1", "hello", "Hi there.", at=T0, source="ui")
    html = await ui.page("/chat?conversation=chat-1")
    page = parse(html)
    assert "hello Hi there." in page.text
    assert f'href="{ui.prefix}/conversations/chat-1#turn-{turn_id}"' in html
    assert {"type": "hidden", "name": "conversation_id", "value": "chat-1"} in page.hidden_inputs
    assert misplaced_urls(html, ui.prefix) == []


@pytest.mark.urls
async def test_chat_form_posts_and_streams_under_the_prefix(ui: UI) -> None:
    """The form posts to the plain endpoint; script streams from the URL it names."""
    page = parse(await ui.page("/chat"))
    form = next(f for f in page.forms if f.get("id") == "chat-form")
    assert form["action"] == f"{ui.prefix}/chat"
    assert form["data-stream-url"] == f"{ui.prefix}/chat/stream"
    assert form["method"] == "post"


async def test_a_call_written_as_text_is_marked_and_its_reasoning_kept_on_the_trace(
    ui: UI, scripted_llm: ScriptedLLM
) -> None:
    """The chat hears no reasoning; the trace badges the call and shows the reasoning."""
    scripted_llm.text_calls("hermes", ("GetDateTime", {}), think="They want the time.")
    scripted_llm.reply("It is noon.")
    received = events(await (await ui.post("/chat/stream", FORM)).text())
    chunks = "".join(data["text"] for name, data in received if name == "text")
    done = received[-1][1]
    assert chunks == done["reply"] == "It is noon."
    await ui.store.writer.flush()
    page = parse(await ui.page(f"/conversations/{done['conversation_id']}")).text
    assert "Tool GetDateTime builtin recovered from text" in page
    assert "Reasoning (never spoken) They want the time." in page
