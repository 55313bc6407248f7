"""The Wyoming conversation protocol, spoken by the real ``wyoming`` client to the running app."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlalchemy import select
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.info import Describe, Info

from addon import __version__, keys
from addon.i18n.translations import DE, EN
from addon.store.models import Conversation, Turn
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeSettings
from tests.fixtures.database import stored_conversation
from tests.fixtures.llm import spoken
from tests.wyoming.conftest import (
    TIMEOUT_S,
    StartApp,
    converse,
    exchange,
    final,
    read_answer,
    types,
    wyoming_port,
)


async def test_describe_answers_with_a_handle_program(start_app: StartApp) -> None:
    """``describe`` gets an ``info`` naming one installed, streaming, home-controlling program."""
    port = wyoming_port(await start_app(language="de"))
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Describe().event())
        event = await client.read_event()
    assert event is not None
    info = Info.from_event(event)
    (program,) = info.handle
    assert (program.name, program.installed, program.version) == ("Home Agent", True, __version__)
    assert program.supports_handled_streaming
    assert program.supports_home_control
    assert {"de", "en", "fr"} <= set(program.models[0].languages)
    assert (info.asr, info.tts, info.intent) == ([], [], [])


async def test_describe_lists_only_the_languages_served_in_full(start_app: StartApp) -> None:
    """``info`` lists the languages with both sentences and messages, whatever is configured."""
    port = wyoming_port(await start_app(language="sv"))
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Describe().event())
        event = await client.read_event()
    assert event is not None
    languages = Info.from_event(event).handle[0].models[0].languages
    assert set(languages) == {"de", "de-CH", "en", "es", "fr", "it", "nl", "pl", "pt", "pt-BR"}


async def test_a_transcript_in_another_language_is_answered_in_it(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """The transcript's language reaches the agent: a German request hears a German apology."""
    scripted_llm.error(401)
    client = await start_app(language="en")
    events = await converse(wyoming_port(client), "erzähl mir einen Witz", language="de")
    assert types(events) == ["not-handled"]
    assert events[0].data["text"] == DE.llm_auth


async def test_transcript_is_answered_with_the_model_reply(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A sentence for the model comes back as ``handled`` with the model's words."""
    scripted_llm.reply("Paris is the capital of France.")
    port = wyoming_port(await start_app())
    events = await converse(port, "what is the capital of France")
    reply = final(events)
    assert reply.type == "handled"
    assert reply.data["text"] == "Paris is the capital of France."
    assert spoken(scripted_llm.chat_requests[0].messages)[-1] == {
        "role": "user",
        "content": "what is the capital of France",
    }


async def test_reply_streams_in_order_around_the_final_handled(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A streamed reply arrives as handled-start, chunks, handled, handled-stop."""
    scripted_llm.reply("It is sunny and warm in the garden this afternoon.", chunk_delay=0.01)
    port = wyoming_port(await start_app())
    events = await converse(port, "what is the weather like")
    chunks = [e.data["text"] for e in events if e.type == "handled-chunk"]
    assert types(events) == ["handled-start", "handled-chunk", "handled", "handled-stop"]
    assert len(chunks) > 1
    assert "".join(chunks) == final(events).data["text"]


async def test_follow_up_with_the_returned_id_continues_the_conversation(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """The id in ``handled``'s context brings the first turn into the second model request."""
    scripted_llm.reply("Paris.").reply("About two million people.")
    port = wyoming_port(await start_app())
    first = final(await converse(port, "what is the capital of France"))
    conversation_id = first.data["context"]["conversation_id"]
    second = final(
        await converse(
            port, "how many people live there", context={"conversation_id": conversation_id}
        )
    )
    sent = spoken(scripted_llm.chat_requests[1].messages)
    assert {"role": "user", "content": "what is the capital of France"} in sent
    assert {"role": "assistant", "content": "Paris."} in sent
    assert second.data["context"]["conversation_id"] == conversation_id


async def test_context_fields_reach_the_conversation(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """conversation_id, device_id, satellite_id and language from the transcript are recorded."""
    scripted_llm.reply("Hallo!")
    client = await start_app()
    context = {"conversation_id": "ha-01J0", "device_id": "dev-1", "satellite_id": "sat-1"}
    events = await converse(wyoming_port(client), "hallo", context=context, language="de")
    await client.server.app[keys.STORE].writer.flush()
    async with client.server.app[keys.STORE].sessionmaker() as session:
        stored = (await session.execute(select(Conversation))).scalar_one()
    assert final(events).data["context"]["conversation_id"] == "ha-01J0"
    assert (stored.id, stored.device_id, stored.satellite_id, stored.language, stored.source) == (
        "ha-01J0",
        "dev-1",
        "sat-1",
        "de",
        "wyoming",
    )


async def test_model_failure_is_not_handled_with_the_apology(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """When the model endpoint fails the client gets ``not-handled`` with a spoken apology."""
    scripted_llm.error(400, "bad request")
    port = wyoming_port(await start_app())
    events = await converse(port, "what is the capital of France")
    assert types(events) == ["not-handled"]
    assert events[0].data["text"] == EN.llm_failed


async def test_agent_failure_sends_an_error_event(
    start_app: StartApp, scripted_llm: ScriptedLLM, make_settings: MakeSettings
) -> None:
    """An agent that raises (here: history it cannot read) answers ``error``, ``not-handled``."""
    scripted_llm.reply("Paris.")
    await stored_conversation(make_settings().database_path, "earlier")
    client = await start_app()
    async with client.server.app[keys.STORE].engine.begin() as connection:
        await connection.exec_driver_sql("DROP TABLE turns")
    events = await converse(
        wyoming_port(client),
        "what is the capital of France",
        context={"conversation_id": "earlier"},
    )
    kinds = types(events)
    assert "handled" not in kinds
    error = events[kinds.index("error")]
    not_handled = events[kinds.index("not-handled")]
    assert kinds.index("error") < kinds.index("not-handled")
    assert error.data["code"] == "agent-error"
    assert not_handled.data["text"] == EN.agent_error


INVALID = {
    "blank text": {"text": "   "},
    "no text": {"context": {"conversation_id": "abc"}},
    "text too long": {"text": "lights " * 1000},
    "context not an object": {"text": "hello", "context": ["abc"]},
    "numeric conversation id": {"text": "hello", "context": {"conversation_id": 42}},
    "conversation id too long": {"text": "hello", "context": {"conversation_id": "x" * 65}},
}


@pytest.mark.parametrize("data", INVALID.values(), ids=INVALID.keys())
async def test_invalid_transcript_is_refused(start_app: StartApp, data: dict[str, Any]) -> None:
    """A transcript the agent cannot take gets ``invalid-transcript`` and never reaches it."""
    port = wyoming_port(await start_app())
    events = await exchange(port, Event(type="transcript", data=data))
    assert types(events) == ["error", "not-handled"]
    assert events[0].data["code"] == "invalid-transcript"
    assert events[1].data["text"] == EN.invalid_request


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"text": "turn on the light \ud800"}, id="text"),
        pytest.param({"text": "hello", "context": {"conversation_id": "\ud800"}}, id="context"),
        pytest.param({"text": "hello", "context": {"device_id": "\udcff"}}, id="device"),
    ],
)
async def test_transcript_that_is_not_unicode_is_refused(
    start_app: StartApp, scripted_llm: ScriptedLLM, data: dict[str, Any]
) -> None:
    """An escaped lone surrogate gets ``invalid-transcript``; the agent and model never see it."""
    port = wyoming_port(await start_app())
    frame = json.dumps({"type": "transcript", "data": data}).encode() + b"\n"  # the client cannot
    async with asyncio.timeout(TIMEOUT_S):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(frame)
        events = [await async_read_event(reader), await async_read_event(reader)]
        writer.close()
        await writer.wait_closed()
    assert [(e.type, e.data.get("code")) for e in events if e is not None] == [
        ("error", "invalid-transcript"),
        ("not-handled", None),
    ]
    assert scripted_llm.chat_requests == []


async def test_transcript_whose_data_is_not_an_object_is_refused(start_app: StartApp) -> None:
    """Data that is not a JSON object, sent in the header line, gets ``invalid-transcript``."""
    port = wyoming_port(await start_app())
    async with asyncio.timeout(TIMEOUT_S):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b'{"type": "transcript", "data": "turn on the lights"}\n')
        first, second = await async_read_event(reader), await async_read_event(reader)
        writer.close()
        await writer.wait_closed()
    assert first is not None
    assert second is not None
    assert (first.type, first.data["code"], second.type) == (
        "error",
        "invalid-transcript",
        "not-handled",
    )


async def test_connection_serves_several_transcripts(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A client may keep its connection and send the next transcript on it."""
    scripted_llm.reply("One.").reply("Two.")
    port = wyoming_port(await start_app())
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as client:
        replies = []
        for text in ("say one", "say two"):
            await client.write_event(Transcript(text=text).event())
            replies.append(final(await read_answer(client)).data["text"])
    assert replies == ["One.", "Two."]


async def stored_reply(client: Any) -> str:
    """The reply text of the only stored turn."""
    store = client.app[keys.STORE]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        (reply,) = (await session.execute(select(Turn.reply_text))).scalars().all()
    return str(reply)


async def test_text_beside_a_tool_call_is_part_of_the_handled_reply(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """What the model wrote before calling a tool was streamed, so handled and the turn hold it."""
    scripted_llm.tool_calls(("GetDateTime", {}), content="Let me check the clock.").reply(
        "It is a quarter past nine."
    )
    client = await start_app()
    events = await converse(wyoming_port(client), "what time is it")
    chunks = "".join(e.data["text"] for e in events if e.type == "handled-chunk")
    expected = "Let me check the clock. It is a quarter past nine."
    assert types(events) == ["handled-start", "handled-chunk", "handled", "handled-stop"]
    assert chunks == expected
    assert final(events).data["text"] == expected
    assert await stored_reply(client) == expected


async def test_an_apology_after_streamed_text_is_streamed_too(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """When the model fails after a tool ran, the stream and the reply both end with the apology."""
    scripted_llm.tool_calls(("GetDateTime", {}), content="Let me check the clock.").error(400)
    client = await start_app()
    events = await converse(wyoming_port(client), "what time is it")
    chunks = "".join(e.data["text"] for e in events if e.type == "handled-chunk")
    reply = final(events)
    assert reply.type == "handled"  # a tool ran: the turn did something
    assert reply.data["text"] == f"Let me check the clock. {EN.llm_failed}"
    assert chunks == reply.data["text"]
    assert await stored_reply(client) == reply.data["text"]


async def test_reasoning_is_neither_chunked_nor_spoken(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A ``<think>`` block before the answer reaches no ``handled-chunk`` and not ``handled``."""
    scripted_llm.reply("<think>The user asks about weather. Secret.</think>It is sunny today.")
    port = wyoming_port(await start_app())
    events = await converse(port, "what is the weather like")
    chunks = [e.data["text"] for e in events if e.type == "handled-chunk"]
    assert "".join(chunks) == final(events).data["text"] == "It is sunny today."
