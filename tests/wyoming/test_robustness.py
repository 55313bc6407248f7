"""Many clients at once and clients that break the protocol: each one affects only itself."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import struct
from typing import Any

import pytest
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.event import async_read_event, async_write_event
from wyoming.handle import Handled
from wyoming.info import Describe

from addon import keys
from addon.wyoming.server import HEADER_LIMIT, MAX_EVENT_BYTES
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.fixtures.llm import spoken
from tests.wyoming.conftest import TIMEOUT_S, StartApp, converse, final, wyoming_port


def last_user_text(body: dict[str, Any]) -> str:
    return str(
        next(m["content"] for m in reversed(spoken(body["messages"])) if m["role"] == "user")
    )


async def send_raw(port: int, frame: bytes) -> bytes:
    """Send ``frame`` on a new connection; what came back before the server hung up.

    A server that closes with our bytes still unread makes the kernel answer with a reset
    instead of an orderly end of stream; both mean it hung up.
    """
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(frame)
        await writer.drain()
        return await reader.read()
    except ConnectionResetError:
        return b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionResetError):
            await writer.wait_closed()


async def test_slow_turn_does_not_hold_up_another_client(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A client whose model call is stuck does not delay another client's answer."""
    fast_answered = asyncio.Event()

    async def respond(body: dict[str, Any]) -> Completion:
        if "slow" in last_user_text(body):
            # The slow answer waits for the fast one: if the server served one turn at a time,
            # the fast client would never be answered and the test would time out.
            await fast_answered.wait()
            return Completion("Slow answer.")
        return Completion("Fast answer.")

    scripted_llm.default = respond
    port = wyoming_port(await start_app())
    slow = asyncio.create_task(converse(port, "the slow question"))
    async with asyncio.timeout(TIMEOUT_S):
        while not scripted_llm.chat_requests:  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.01)
    fast = await converse(port, "the fast question")
    fast_answered.set()
    assert final(fast).data["text"] == "Fast answer."
    assert final(await slow).data["text"] == "Slow answer."


async def test_many_clients_each_get_their_own_answer(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """Twenty simultaneous conversations each get the reply to their own question."""
    scripted_llm.default = lambda body: Completion(f"Echo: {last_user_text(body)}", delay=0.05)
    port = wyoming_port(await start_app())
    answers = await asyncio.gather(*(converse(port, f"question {n}") for n in range(20)))
    assert [final(a).data["text"] for a in answers] == [f"Echo: question {n}" for n in range(20)]


async def accepts_connections(port: int) -> bool:
    """Whether anything listens on ``port`` now."""
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except ConnectionRefusedError:
        return False
    writer.close()
    await writer.wait_closed()
    return True


MALFORMED = {
    "garbage bytes": b"\x00\xff\xfe not wyoming at all\n",
    "broken JSON header": b'{"type": "transcript", "data": {"text": \n',
    "header that is not an object": b'["transcript"]\n',
    "header without a type": b'{"data": {"text": "hi"}}\n',
    "non-numeric data_length": b'{"type": "transcript", "data_length": "lots"}\n',
    "oversized data_length": json.dumps(
        {"type": "transcript", "data_length": MAX_EVENT_BYTES + 1}
    ).encode()
    + b"\n",
    "oversized payload_length": json.dumps(
        {"type": "transcript", "data": {"text": "hi"}, "payload_length": 10**12}
    ).encode()
    + b"\n",
    "endless header line": b"{" + b" " * (HEADER_LIMIT * 2),
}


@pytest.mark.parametrize("frame", MALFORMED.values(), ids=MALFORMED.keys())
async def test_malformed_frame_closes_only_that_connection(
    start_app: StartApp, scripted_llm: ScriptedLLM, frame: bytes
) -> None:
    """The sender of a bad frame is disconnected; a client already connected carries on."""
    scripted_llm.reply("Still here.")
    port = wyoming_port(await start_app())
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as bystander:
        assert await send_raw(port, frame) == b""
        await bystander.write_event(Describe().event())
        info = await bystander.read_event()
    assert info is not None
    assert info.type == "info"
    assert final(await converse(port, "are you still there")).data["text"] == "Still here."


async def test_oversized_event_is_logged_with_the_reason(
    start_app: StartApp, caplog: pytest.LogCaptureFixture
) -> None:
    """Refusing an event that announces too much data says why, naming the limit."""
    port = wyoming_port(await start_app())
    header = json.dumps({"type": "transcript", "data_length": 50 * MAX_EVENT_BYTES})
    with caplog.at_level(logging.WARNING, logger="addon.wyoming"):
        async with asyncio.timeout(TIMEOUT_S):
            assert await send_raw(port, header.encode() + b"\n") == b""
    assert f"more than the {MAX_EVENT_BYTES} allowed" in caplog.text


@pytest.mark.parametrize("frame", MALFORMED.values(), ids=MALFORMED.keys())
async def test_malformed_frame_is_logged_as_ending_that_connection(
    start_app: StartApp, caplog: pytest.LogCaptureFixture, frame: bytes
) -> None:
    """Every way of breaking the protocol ends the connection with a warning naming the client."""
    port = wyoming_port(await start_app())
    with caplog.at_level(logging.WARNING, logger="addon.wyoming"):
        async with asyncio.timeout(TIMEOUT_S):
            assert await send_raw(port, frame) == b""
    assert [r.levelno for r in caplog.records if r.name.startswith("addon.wyoming")] == [
        logging.WARNING
    ]
    assert "Closing Wyoming connection from 127.0.0.1:" in caplog.text


async def test_turn_in_progress_at_shutdown_is_still_answered(
    start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """Stopping the app refuses new clients but lets a turn under way reach its client."""
    release = asyncio.Event()

    async def respond(body: dict[str, Any]) -> Completion:
        await release.wait()
        return Completion("Made it.")

    scripted_llm.default = respond
    client = await start_app()
    turn = asyncio.create_task(converse(wyoming_port(client), "a question just before shutdown"))
    async with asyncio.timeout(TIMEOUT_S):
        while not scripted_llm.chat_requests:  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.01)
    shutdown = asyncio.create_task(client.close())
    async with asyncio.timeout(TIMEOUT_S):
        while await accepts_connections(wyoming_port(client)):  # noqa: ASYNC110 - polled
            await asyncio.sleep(0.01)
    release.set()  # only now that the server is shutting down does the model answer
    assert final(await turn).data["text"] == "Made it."
    await shutdown


async def test_a_client_that_resets_after_its_answer_is_not_called_malformed(
    start_app: StartApp, scripted_llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    """Home Assistant 2026.11 reads up to ``handled`` and closes at once; a reset is a hang-up.

    The streamed answer's ``handled-stop`` may then meet a closed socket, and the next read a
    reset: the connection ends quietly, with no warning of a malformed event.
    """
    scripted_llm.reply("The lights are on.")
    client = await start_app()
    server = client.server.app[keys.WYOMING]
    with caplog.at_level(logging.DEBUG, logger="addon.wyoming"):
        async with asyncio.timeout(TIMEOUT_S):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.bound_port)
            await async_write_event(Transcript(text="are the lights on").event(), writer)
            while (event := await async_read_event(reader)) is not None:
                if Handled.is_type(event.type):
                    break
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.close()
            while server.connections:  # noqa: ASYNC110 - the server's count, polled
                await asyncio.sleep(0.01)
    assert event is not None
    assert event.data["text"] == "The lights are on."
    warnings = [r for r in caplog.records if r.name.startswith("addon.wyoming")]
    assert [r.getMessage() for r in warnings if r.levelno >= logging.WARNING] == []
