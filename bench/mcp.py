"""What the MCP server adds to a tool call: ``GetDateTime`` over ``/mcp`` beside it in-process.

The whole app runs on loopback (``create_app``, its direct port, the ``api_token`` bearer; Home
Assistant away and no model, which ``GetDateTime`` needs neither of). The official ``mcp``
client connects once (its ``server/discover`` probe, falling back to the handshake as it
decides) and then calls ``GetDateTime`` again and again; each call is one HTTP POST through the
access middleware, the ASGI bridge, the package's stateless transport and server, and
``Agent.call_tool``, which runs the tool and hands the call to the store as a turn.

Beside each MCP call the same tool is called in-process through ``Agent.call_tool`` (the same
registry, execution and recording), so the difference of the pair is what MCP adds: the
client's encoding and parsing, the loopback round trip, aiohttp, the bridge, the transport and
the protocol's validation. Pairs alternate which goes first, so drift in machine load touches
both. Warm-up calls come first; the store's writer is settled between rounds, outside the timed
calls. Target: overhead p50 ≤ 3 ms. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on the path and its name would hide the ``mcp``
# package: the folder goes, the repository root (for ``addon``) comes in.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from aiohttp import web
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from addon import keys
from addon.agent.conversation import ToolCall
from addon.app import create_app
from addon.config.settings import Options, Settings
from devtools.standalone import standalone_settings

TOKEN = "bench-token-0123456789abcdef0123456789"
WARM_UP = 50
ROUNDS = 20
PER_ROUND = 25
TARGET_P50_MS = 3.0


def percentile(values: list[float], pct: float) -> float:
    """The ``pct`` percentile by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def settings(data_dir: Path) -> Settings:
    """Standalone settings: loopback, no ingress proxy, the bench's token, Home Assistant away."""
    return standalone_settings(
        Options.model_validate({"api_token": TOKEN, "local_first": False}),
        data_dir,
        trusted_proxies=(),
    )


async def main() -> dict[str, Any]:
    """Run the pairs and print the figures; returns the JSON line's object."""
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(settings(Path(tmp)))
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        agent = app[keys.AGENT]
        store = app[keys.STORE]
        call = ToolCall("GetDateTime", {}, source="mcp")
        mcp_ms: list[float] = []
        local_ms: list[float] = []
        overhead: list[float] = []
        headers = {"Authorization": f"Bearer {TOKEN}"}
        try:
            async with create_mcp_http_client(headers=headers) as http:
                transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
                async with Client(transport, cache=None) as client:
                    for _ in range(WARM_UP):
                        await client.call_tool("GetDateTime", {})
                        await agent.call_tool(call)
                    await store.writer.flush()
                    for round_number in range(ROUNDS):
                        for index in range(PER_ROUND):
                            timings: dict[str, float] = {}
                            order = (
                                ("mcp", "local") if (round_number + index) % 2 else ("local", "mcp")
                            )
                            for which in order:
                                started = time.perf_counter()
                                if which == "mcp":
                                    result = await client.call_tool("GetDateTime", {})
                                    assert not result.is_error, result
                                else:
                                    await agent.call_tool(call)
                                timings[which] = (time.perf_counter() - started) * 1000
                            mcp_ms.append(timings["mcp"])
                            local_ms.append(timings["local"])
                            overhead.append(timings["mcp"] - timings["local"])
                        await store.writer.flush()
        finally:
            await runner.cleanup()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"calls: {len(overhead)} pairs after {WARM_UP} warm-up pairs")
    for name, values in (("over /mcp", mcp_ms), ("in-process", local_ms), ("overhead", overhead)):
        print(
            f"{name:>11}: p50 {percentile(values, 50):.3f} ms, p95 {percentile(values, 95):.3f} ms"
        )
    p50, p95 = percentile(overhead, 50), percentile(overhead, 95)
    print(
        f"target: overhead p50 ≤ {TARGET_P50_MS} ms ({'met' if p50 <= TARGET_P50_MS else 'MISSED'})"
    )
    return {"bench": "mcp", "overhead_p50_ms": round(p50, 3), "overhead_p95_ms": round(p95, 3)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
