"""Many conversations at once, over Wyoming and over HTTP, against a model with 200 ms latency.

The service runs as it does in production: ``python -m addon`` in a subprocess (standalone,
Home Assistant pointed at a closed port, so every sentence goes to the model and no home is
involved). The model is ``devtools.scripted_llm`` in a process of its own, as a real model
server is, answering every request with ``"ok"`` after 200 ms (time to first byte). Each round
starts ``CONVERSATIONS`` new conversations at the same instant, all over one transport:

- Wyoming: one ``wyoming.client.AsyncTcpClient`` connection per conversation, as Home Assistant
  opens one per sentence; a conversation ends when the final ``handled`` (and ``handled-stop``)
  has arrived.
- HTTP: ``POST /api/conversation`` ``{"text"}``; loopback is made a trusted proxy, so the
  requests count as Home Assistant ingress and need no token.

Definitions:

- latency of a conversation: from just before it connects to its complete answer;
- share of the ideal (per transport): ``MODEL_LATENCY_S / wall time of the round``. With zero
  overhead all conversations would run side by side and the round would take one model latency,
  so 100% means the service adds nothing; 50% means the round took twice as long as the model;
- overhead of a conversation: its latency minus ``MODEL_LATENCY_S``, i.e. everything the
  service (and this process's client side, which shares a CPU with it) adds around the model
  call: connection, framing, the agent's turn, the store write;
- ``p99_overhead_ms``: the 99th percentile of the overhead over every conversation of every
  measured round, both transports together.

Each transport gets warm-up conversations first, ``ROUNDS`` measured rounds, and the median
round's share is reported. The same rounds are also run with no service at all, this process
asking the model directly over HTTP: that "harness" row is the best this machine can show,
since the clients, the model and the service share its CPUs. The table also shows the CPU time
the service process used per conversation (from /proc, so all its threads) and the ceiling that
alone puts on the share: one Python process runs one turn's code at a time, so a round cannot
take less than ``MODEL_LATENCY_S + CONVERSATIONS × CPU per conversation``. Between rounds the
service's background work after each turn (the outcome check two seconds later, the store's
batched writes) is let finish, so a round does not pay for the one before.
Target: share ≥ 90% on both transports. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

import aiohttp
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled, HandledStart, HandledStop, NotHandled

REPO_ROOT = Path(__file__).resolve().parent.parent
CONVERSATIONS = 100
ROUNDS = 5
WARM_UP = 5
MODEL_LATENCY_S = 0.2
SETTLE_S = 3.0  # the outcome check runs 2 s after a turn
READY_TIMEOUT_S = 30.0
ANSWER_TIMEOUT_S = 30.0
TARGET_SHARE = 0.90

Conversation = Callable[[int], Awaitable[str]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


async def wyoming_conversation(port: int, text: str) -> str:
    """One sentence on its own connection, read up to the end of the (streamed) answer."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Transcript(text=text).event())
        streamed = False
        reply = ""
        while True:
            event = await client.read_event()
            if event is None:
                raise RuntimeError("the Wyoming server closed the connection before answering")
            if HandledStart.is_type(event.type):
                streamed = True
            elif Handled.is_type(event.type) or NotHandled.is_type(event.type):
                reply = str(event.data.get("text", ""))
                if not streamed:
                    return reply
            elif HandledStop.is_type(event.type):
                return reply


async def http_conversation(session: aiohttp.ClientSession, base: str, text: str) -> str:
    """One sentence through the HTTP API."""
    async with session.post(f"{base}/api/conversation", json={"text": text}) as response:
        body = await response.json()
        if response.status != 200:
            raise RuntimeError(f"POST /api/conversation answered {response.status}: {body}")
        return str(body["reply"])


async def run_round(converse: Conversation) -> tuple[float, list[float]]:
    """All conversations at once; the round's wall time and each conversation's latency."""
    latencies: list[float] = []

    async def timed(n: int) -> None:
        started = time.perf_counter()
        reply = await converse(n)
        latencies.append(time.perf_counter() - started)
        if reply != "ok":
            raise RuntimeError(f"conversation {n} got {reply!r} instead of the model's 'ok'")

    started = time.perf_counter()
    async with asyncio.timeout(ANSWER_TIMEOUT_S):
        await asyncio.gather(*(timed(n) for n in range(CONVERSATIONS)))
    return time.perf_counter() - started, latencies


@dataclass(slots=True)
class Transport:
    """What the rounds over one transport measured."""

    shares: list[float] = field(default_factory=list)
    overheads: list[float] = field(default_factory=list)
    service_cpu: list[float] = field(default_factory=list)
    client_cpu: list[float] = field(default_factory=list)


async def measure(name: str, converse: Conversation, service_pid: int) -> Transport:
    """Warm up, then ``ROUNDS`` rounds, each followed by a pause for background work."""
    for n in range(WARM_UP):
        await converse(-1 - n)
    await asyncio.sleep(SETTLE_S)
    result = Transport()
    for number in range(ROUNDS):
        service_before, client_before = cpu_seconds(service_pid), time.process_time()
        wall, latencies = await run_round(converse)
        result.service_cpu.append(cpu_seconds(service_pid) - service_before)
        result.client_cpu.append(time.process_time() - client_before)
        result.shares.append(MODEL_LATENCY_S / wall)
        result.overheads.extend(latency - MODEL_LATENCY_S for latency in latencies)
        print(
            f"  {name} round {number + 1}: wall {wall * 1000:7.1f} ms, "
            f"share {MODEL_LATENCY_S / wall:6.1%}, "
            f"latency p50 {percentile(latencies, 50) * 1000:6.1f} ms, "
            f"max {max(latencies) * 1000:6.1f} ms, "
            f"service CPU {result.service_cpu[-1] * 1000:6.0f} ms"
        )
        # Not timed: the turns' background work (events, the outcome check 2 s later) ends here.
        await asyncio.sleep(SETTLE_S)
    return result


async def wait_ready(process: subprocess.Popen[bytes], http_port: int, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    async with aiohttp.ClientSession() as session:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"the service exited with {process.returncode}; its log is {log}")
            try:
                async with session.get(f"http://127.0.0.1:{http_port}/health") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"the service was not ready in {READY_TIMEOUT_S:.0f} s")
            await asyncio.sleep(0.05)


def start_model() -> tuple[subprocess.Popen[str], str]:
    """The scripted model in its own process; returns it and its ``base_url``."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "devtools.scripted_llm",
            "--reply",
            "ok",
            "--delay",
            str(MODEL_LATENCY_S),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    if not base_url.startswith("http://"):
        process.kill()
        raise SystemExit(f"the scripted model did not start (it said {base_url!r})")
    return process, base_url


async def model_conversation(session: aiohttp.ClientSession, base_url: str) -> str:
    """One request straight to the model, as the service would make it: the harness alone."""
    body = {"model": "scripted-model", "messages": [{"role": "user", "content": "question"}]}
    async with session.post(f"{base_url}/chat/completions", json=body) as response:
        answer = await response.json()
        return str(answer["choices"][0]["message"]["content"])


def start_service(
    data_dir: Path, llm_base_url: str, http_port: int, wyoming_port: int, log: Path
) -> subprocess.Popen[bytes]:
    environment = {
        **os.environ,
        "HOME_AGENT_LLM_BASE_URL": llm_base_url,
        "HOME_AGENT_LLM_MODEL": "scripted-model",
        "HOME_AGENT_LOG_LEVEL": "warning",
    }
    with log.open("wb") as output:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "addon",
                "--ha-url",
                f"http://127.0.0.1:{free_port()}",
                "--ha-token",
                "bench-token",
                "--data-dir",
                str(data_dir),
                "--http-host",
                "127.0.0.1",
                "--http-port",
                str(http_port),
                "--wyoming-host",
                "127.0.0.1",
                "--wyoming-port",
                str(wyoming_port),
                "--trusted-proxy",
                "127.0.0.1",
            ],
            cwd=REPO_ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def count_warnings(log: Path) -> int:
    """Warning lines the service logged (after the run; the file is small)."""
    return log.read_text(errors="replace").count(" WARNING ")


async def http_endpoint_exists(session: aiohttp.ClientSession, base: str) -> bool:
    async with session.post(f"{base}/api/conversation", json={}) as response:
        return response.status != 404


async def main() -> dict[str, object]:
    model, base_url = start_model()
    try:
        with tempfile.TemporaryDirectory() as temporary:
            http_port, wyoming_port = free_port(), free_port()
            log = Path(temporary) / "service.log"
            process = start_service(
                Path(temporary) / "data", base_url, http_port, wyoming_port, log
            )
            try:
                await wait_ready(process, http_port, log)
                base = f"http://127.0.0.1:{http_port}"
                print(
                    f"{CONVERSATIONS} concurrent conversations per round, model latency "
                    f"{MODEL_LATENCY_S * 1000:.0f} ms, {ROUNDS} rounds per transport, "
                    f"{os.cpu_count()} CPUs"
                )
                results: dict[str, Transport] = {}
                connector = aiohttp.TCPConnector(limit=0)
                async with aiohttp.ClientSession(connector=connector) as session:
                    harness = await measure(
                        "harness",
                        lambda _n: model_conversation(session, base_url),
                        model.pid,
                    )
                    results["wyoming"] = await measure(
                        "wyoming",
                        lambda n: wyoming_conversation(wyoming_port, f"question {n}"),
                        process.pid,
                    )
                    if await http_endpoint_exists(session, base):
                        results["http"] = await measure(
                            "http",
                            lambda n: http_conversation(session, base, f"question {n}"),
                            process.pid,
                        )
                    else:
                        print("  http: POST /api/conversation does not exist yet; skipped")
            finally:
                process.terminate()
                process.wait(15)
            warnings = count_warnings(log)
    finally:
        model.terminate()
        model.wait(15)
    print()
    print(
        f"{'transport':>9}  {'share p50':>9}  {'worst':>6}  {'overhead p50':>12}  {'p99':>9}"
        f"  {'service CPU/conv':>16}  {'CPU ceiling':>11}  {'client CPU/conv':>15}"
    )
    shares: dict[str, float | None] = {"wyoming": None, "http": None}
    every_overhead: list[float] = []
    for name, measured in results.items():
        shares[name] = statistics.median(measured.shares)
        every_overhead.extend(measured.overheads)
        service_ms = statistics.median(measured.service_cpu) / CONVERSATIONS * 1000
        client_ms = statistics.median(measured.client_cpu) / CONVERSATIONS * 1000
        print(
            f"{name:>9}  {shares[name]:>9.1%}  {min(measured.shares):>6.1%}  "
            f"{percentile(measured.overheads, 50) * 1000:>9.1f} ms  "
            f"{percentile(measured.overheads, 99) * 1000:>6.1f} ms"
            f"  {service_ms:>13.2f} ms  {ceiling(service_ms):>11.1%}  {client_ms:>12.2f} ms"
        )
    harness_share = statistics.median(harness.shares)
    print(
        f"{'harness':>9}  {harness_share:>9.1%}  {min(harness.shares):>6.1%}  "
        f"{percentile(harness.overheads, 50) * 1000:>9.1f} ms  "
        f"{percentile(harness.overheads, 99) * 1000:>6.1f} ms"
        f"  {'(no service)':>16}  {'':>11}  "
        f"{statistics.median(harness.client_cpu) / CONVERSATIONS * 1000:>12.2f} ms"
    )
    print(
        "harness: the same rounds with no service, this process asking the model directly; "
        "no transport can beat it on this machine"
    )
    print(
        f"target: share ≥ {TARGET_SHARE:.0%}; warnings in the service log: {warnings} "
        "(Home Assistant is away on purpose)"
    )
    return {
        "bench": "concurrency",
        "share_wyoming": _rounded(shares["wyoming"]),
        "share_http": _rounded(shares["http"]),
        "p99_overhead_ms": round(percentile(every_overhead, 99) * 1000, 1),
    }


def ceiling(service_cpu_ms: float) -> float:
    """The best share a round can reach when each conversation costs the service this much CPU."""
    return MODEL_LATENCY_S / (MODEL_LATENCY_S + CONVERSATIONS * service_cpu_ms / 1000)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


if __name__ == "__main__":
    summary = asyncio.run(main())
    print(json.dumps(summary))
