"""Hostile Wyoming frames: the server ends only the sender's connection and keeps serving.

Each Hypothesis example is a few frames written as raw bytes (the library's client would refuse
to write most of them): broken and odd JSON headers, wrong types where numbers and objects
belong, ``data_length``/``payload_length`` that lie or are huge, truncated events, unknown event
types, binary garbage, and transcripts whose fields have the wrong types or text that is not
Unicode. While they are sent, a bystander stays connected. The example passes when the server
answered only in well-formed events and then hung up, logged no error of ours, the bystander is
still served, and a new connection gets a valid transcript answered with the real client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.info import Describe

from addon.wyoming.server import HEADER_LIMIT, MAX_EVENT_BYTES
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.wyoming.conftest import TIMEOUT_S, StartApp, converse, final, wyoming_port

EXAMPLES = 100
ANSWERS = {
    "info",
    "handled-start",
    "handled-chunk",
    "handled",
    "handled-stop",
    "not-handled",
    "error",
}

TEXTS = [
    "turn on the kitchen light",
    "",
    "   ",
    "\ud800",
    "lone \udcff low surrogate",
    "\x00",
    "😀" * 10,
    "x" * 4001,
]
VALUES: list[Any] = [None, True, 0, -1, 1.5, 10**30, "", "x", [], {}, ["a"], {"a": 1}, *TEXTS]
LENGTHS: list[Any] = [-1, 0, 1, 10**12, MAX_EVENT_BYTES + 1, "lots", 1.5, True, None, [], {}]
TYPES: list[Any] = ["transcript", "describe", "info", "handled", "audio-chunk", "x-unknown", ""]


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()  # ensure_ascii: lone surrogates travel as "\ud800"


transcript_data = st.fixed_dictionaries(
    {},
    optional={
        "text": st.sampled_from(VALUES),
        "language": st.sampled_from(["en", "de", *VALUES]),
        "context": st.sampled_from(VALUES)
        | st.fixed_dictionaries(
            {},
            optional={
                "conversation_id": st.sampled_from(["abc", "x" * 65, *VALUES]),
                "device_id": st.sampled_from(["kitchen", "x" * 129, *VALUES]),
                "satellite_id": st.sampled_from(VALUES),
                "language": st.sampled_from(VALUES),
            },
        ),
    },
)


@st.composite
def events(draw: st.DrawFn) -> bytes:
    """One event whose header, data and payload may each be wrong."""
    header: dict[str, Any] = {"type": draw(st.sampled_from(TYPES) | st.sampled_from(VALUES))}
    data = draw(transcript_data | st.sampled_from(VALUES))
    placement = draw(st.sampled_from(["inline", "section", "both", "none"]))
    section = b""
    if placement in ("inline", "both"):
        header["data"] = data
    if placement in ("section", "both"):
        section = draw(
            st.sampled_from(
                [
                    _json(data),
                    b"{broken",
                    b"\xff\xfe",
                    b"[" * 5_000 + b"]" * 5_000,
                    _json({"text": "turn on the lights"}),
                ]
            )
        )
        header["data_length"] = draw(st.just(len(section)) | st.sampled_from(LENGTHS))
    if draw(st.booleans()):
        header["payload_length"] = draw(st.sampled_from(LENGTHS))
    if draw(st.booleans()):
        header["version"] = draw(st.sampled_from(VALUES))
    payload = draw(st.binary(max_size=50))
    return _json(header) + b"\n" + section + payload


RAW_FRAMES = st.sampled_from(
    [
        b"\n",
        b"\x00\xff\xfe garbage\n",
        b'{"type": "transcript", "data": {"text": \n',
        b"[" * 10_000 + b"\n",
        b'"transcript"\n',
        b"null\n",
        b'{"type": "transcript", "data_length": 100}\n{"text": "only part',
        b"{" + b" " * (HEADER_LIMIT + 10),
    ]
)

frames = st.lists(
    st.one_of(events(), RAW_FRAMES, st.binary(min_size=1, max_size=200)), min_size=1, max_size=4
).map(b"".join)


async def send_raw(port: int, frames: bytes) -> bytes:
    """Write ``frames`` on a new connection, say no more, and read until the server hangs up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    received = b""
    try:
        with contextlib.suppress(ConnectionError):
            writer.write(frames)
            await writer.drain()
            writer.write_eof()
        with contextlib.suppress(ConnectionError):
            received = await reader.read()  # EOF: the server closed this connection
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    return received


async def answered_events(received: bytes) -> list[Event]:
    """The events in what the server sent; anything that is not a whole event fails the test."""
    reader = asyncio.StreamReader()
    reader.feed_data(received)
    reader.feed_eof()
    found: list[Event] = []
    while (event := await async_read_event(reader)) is not None:
        found.append(event)
    assert reader.at_eof(), f"not a Wyoming event after {[e.type for e in found]}: {received!r}"
    return found


def well_formed(answer: list[Event]) -> bool:
    """Known answer types only, and a ``handled-stop`` only after a ``handled-start``."""
    seen: list[str] = [event.type for event in answer]
    if not set(seen) <= ANSWERS:
        return False
    return all("handled-start" in seen[:i] for i, kind in enumerate(seen) if kind == "handled-stop")


def errors_of_ours(records: list[logging.LogRecord]) -> list[str]:
    return [
        f"{r.name}: {r.getMessage()}"
        for r in records
        if r.levelno >= logging.ERROR and r.name.startswith("addon")
    ]


@pytest.fixture
async def port(start_app: StartApp, scripted_llm: ScriptedLLM) -> int:
    """The Wyoming port of the app, its model answering every request the same."""
    scripted_llm.default = Completion("Done.")
    return wyoming_port(await start_app())


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sent=frames)
@example(sent=b'{"type": "transcript", "data": {"text": "hi \\ud800"}}\n')
@example(sent=b'{"type": "transcript", "data": {"text": "hi", "context": ["x"]}}\n')
@example(sent=b'{"type": "transcript", "data_length": 1000000000000}\n')
async def test_hostile_frames_end_only_their_connection(
    port: int, sent: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """The server answers in whole events, hangs up, logs no error, and serves everyone else."""
    caplog.clear()
    async with asyncio.timeout(TIMEOUT_S), AsyncTcpClient("127.0.0.1", port) as bystander:
        answer = await answered_events(await send_raw(port, sent))
        assert well_formed(answer), [(e.type, e.data) for e in answer]
        await bystander.write_event(Describe().event())
        info = await bystander.read_event()
    assert info is not None
    assert info.type == "info"
    assert final(await converse(port, "are you still there")).data["text"] == "Done."
    assert not errors_of_ours(caplog.records), errors_of_ours(caplog.records)
