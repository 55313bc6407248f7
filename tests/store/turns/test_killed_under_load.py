"""An answered turn is a stored turn: ``kill -9`` of the real add-on under load loses none.

The add-on runs as it does in production, ``python -m addon`` in a process (and session) of its
own, standalone on loopback with Home Assistant away and no model, so every turn is answered at
once with the "not connected" apology and stored like any other. Clients post to the HTTP API at
the same time; once enough answers are in, the process group gets SIGKILL in the middle of the
load. The add-on is started again on the same data, and every turn the clients were answered
(HTTP 200 with a ``turn_id``) must be in the file when the kill lands (its rows, or its journal
entry) and in ``turns`` once the add-on has started again, with the database intact. Three
rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp

from tests.ha.waiting import until

ROUNDS = 3
CLIENTS = 20
# Answers in before the kill, per round: enough that many turns are in flight when it lands.
ANSWERED_BEFORE_KILL = 100
START_TIMEOUT_S = 30.0
REPO_ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def addon_process(data_dir: Path, http_port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The add-on in a session of its own; killed (the whole group) when the block ends."""
    command = [
        sys.executable,
        "-m",
        "addon",
        "--ha-url",
        "http://127.0.0.1:9",
        "--ha-token",
        "unused",
        "--data-dir",
        str(data_dir),
        "--http-host",
        "127.0.0.1",
        "--http-port",
        str(http_port),
        "--wyoming-host",
        "127.0.0.1",
        "--wyoming-port",
        str(free_port()),
        "--trusted-proxy",
        "127.0.0.1",
    ]
    environment = {**os.environ, "HOME_AGENT_LOG_LEVEL": "warning"}
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


async def wait_until_healthy(
    session: aiohttp.ClientSession, base: str, process: subprocess.Popen[bytes]
) -> None:
    async def healthy() -> bool:
        try:
            async with session.get(f"{base}/health") as response:
                return response.status == 200
        except aiohttp.ClientError:
            return False

    async with asyncio.timeout(START_TIMEOUT_S):
        while not await healthy():
            assert process.poll() is None, "the add-on exited while starting"
            await asyncio.sleep(0.05)


async def load_then_kill(
    session: aiohttp.ClientSession, base: str, process: subprocess.Popen[bytes]
) -> set[int]:
    """Clients send turns until the add-on dies; SIGKILL once enough are answered."""
    answered: set[int] = set()
    killed = asyncio.Event()

    async def client(number: int) -> None:
        sent = 0
        while not killed.is_set():
            sent += 1
            body = {"text": f"turn on the lamp {number}-{sent}"}
            try:
                async with session.post(f"{base}/api/conversation", json=body) as response:
                    if response.status != 200:
                        continue
                    reply = await response.json()
            except (TimeoutError, aiohttp.ClientError):
                return  # the add-on is gone: what was not answered does not count
            answered.add(int(reply["turn_id"]))
            if len(answered) >= ANSWERED_BEFORE_KILL and not killed.is_set():
                killed.set()
                os.killpg(process.pid, signal.SIGKILL)

    await asyncio.gather(*(client(number) for number in range(CLIENTS)))
    assert killed.is_set(), "the clients stopped before the kill"
    return answered


def stored_turn_ids(path: Path, *, journaled: bool = False) -> set[int]:
    """The turn ids in the file, after checking it is intact.

    With ``journaled``, also the turns held whole in the journal (``store/turns/journal.py``),
    whose rows the next start writes: the file as a kill leaves it.
    """
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        ids = {row[0] for row in connection.execute("SELECT id FROM turns")}
        if journaled:
            ids |= {row[0] for row in connection.execute("SELECT turn_id FROM turn_journal")}
        return ids
    finally:
        connection.close()


async def test_every_answered_turn_survives_a_sigkill_under_load(tmp_path: Path) -> None:
    """Three rounds of load, SIGKILL and restart: each answered turn is stored, the file intact."""
    data_dir = tmp_path / "data"
    log = tmp_path / "addon.log"
    answered: set[int] = set()
    timeout = aiohttp.ClientTimeout(total=30)
    connector = aiohttp.TCPConnector(limit=CLIENTS)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        for _ in range(ROUNDS):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            with addon_process(data_dir, port, log) as process:
                await wait_until_healthy(session, base, process)
                # Restarted on the same data: what was answered before the last kill is there.
                assert answered <= stored_turn_ids(data_dir / "home_agent.db")
                answered |= await load_then_kill(session, base, process)
                await until(lambda: process.poll() is not None)
            # Killed: each answered turn is in its rows or, whole, in the journal; the next start
            # (below) must have written every one to its rows.
            missing = answered - stored_turn_ids(data_dir / "home_agent.db", journaled=True)
            assert not missing, f"answered but not stored: {sorted(missing)[:20]}"
        port = free_port()
        with addon_process(data_dir, port, log) as process:
            await wait_until_healthy(session, f"http://127.0.0.1:{port}", process)
            assert answered <= stored_turn_ids(data_dir / "home_agent.db")
    assert len(answered) >= ROUNDS * ANSWERED_BEFORE_KILL
