"""What a custom tool call costs beyond its endpoint, for the ``rest`` and ``service`` kinds.

Each call goes through the tool registry as a model's call does: the argument text is parsed,
repaired where needed, coerced and validated against the tool's schema; the runner renders the
templates (URL, query, headers, JSON body; the action's data), checks the URL's origin or the
action's targets, sends, reads the answer, shapes the result, and masks the secrets in the whole
record. The endpoints are on loopback and answer at once:

- ``rest``: an aiohttp server answering JSON; the endpoint's time is measured by aiohttp's own
  tracing, from the request's start to the response's headers (connection, sending, the server,
  the headers back). Reading the body, in our chunked loop under the size cap, is ours.
- ``service``: the scripted Home Assistant WebSocket server of the tests
  (``tests/ha/fake_ws_server.py``) reached through the real client and the real port; the
  endpoint's time is the port's ``call_service`` (the client's send, the server, the answer).

Overhead per call = the wall time of ``ToolRegistry.execute`` minus the endpoint's time. Also
shown: the endpoint's own p50, and the p50 of rendering the rest tool's request alone
(``render_p50_ms``). Targets: overhead p50 ≤ 1 ms and p95 ≤ 3 ms. Calls of the two kinds
alternate, so machine load touches both alike. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import os
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

import aiohttp
from aiohttp import web

from addon.custom_tools.context import StepContext
from addon.custom_tools.definition import RestSettings, parse_definition
from addon.custom_tools.kinds.rest import render_request
from addon.custom_tools.runner import Runner
from addon.ha.client import HomeAssistantClient
from addon.ha.custom_tools_port import HomeAssistantToolPort
from addon.ha.home_sync import HomeSync
from addon.home.actions.gate import Gate, RenderedTemplate
from addon.tools.base import ToolContext
from addon.tools.custom import CustomTool, canonical
from addon.tools.registry import ToolRegistry
from tests.ha.fake_ws_server import FakeHomeAssistant

ROUNDS = 2000
WARMUP = 100
TARGET_P50_MS = 1.0
TARGET_P95_MS = 3.0
SECRETS = {"api_key": "bench-secret-0123456789"}


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def rest_definition(port: int) -> dict[str, Any]:
    """A typical REST tool: path and query from arguments, a secret header, a shaped result."""
    return {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city"],
        },
        "kind": "rest",
        "rest": {
            "method": "POST",
            "url": f"http://127.0.0.1:{port}/weather/{{{{ city | urlencode }}}}",
            "query": {"units": "metric", "days": "{{ days | default(1) }}"},
            "headers": {"Authorization": "Bearer {{ secrets.api_key }}"},
            "body": {"type": "json", "content": {"city": "{{ city }}", "days": "{{ days }}"}},
            "result": {"template": "{{ value_json.temp }} °C, {{ value_json.sky }}"},
        },
    }


SERVICE_DEFINITION: dict[str, Any] = {
    "name": "dim_kitchen",
    "description": "Dim the kitchen lights to a level.",
    "parameters": {
        "type": "object",
        "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 100}},
        "required": ["level"],
    },
    "kind": "service",
    "service": {
        "action": "light.turn_on",
        "target": {"entity_id": "light.kitchen_lights"},
        "data": {"brightness_pct": "{{ level }}", "transition": 1},
    },
}


class TimedPort:
    """The real port, with the time spent inside ``call_service`` summed (the endpoint)."""

    def __init__(self, inner: HomeAssistantToolPort) -> None:
        self.inner = inner
        self.spent = 0.0

    async def call_service(
        self,
        domain: str,
        service: str,
        data: Mapping[str, Any],
        target: Mapping[str, Any] | None,
        return_response: bool,
    ) -> Any:
        """The inner call, timed."""
        started = time.perf_counter()
        try:
            return await self.inner.call_service(domain, service, data, target, return_response)
        finally:
            self.spent += time.perf_counter() - started

    async def render_template(
        self,
        template: str,
        variables: Mapping[str, Any],
        timeout: float,  # noqa: ASYNC109
    ) -> RenderedTemplate:
        """Passed through."""
        return await self.inner.render_template(template, variables, timeout)

    async def history(self, entity_ids: list[str], start: Any, end: Any, statistics: bool) -> Any:
        """Passed through."""
        return await self.inner.history(entity_ids, start, end, statistics)

    def exposed(self, entity_id: str) -> bool:
        """Passed through."""
        return self.inner.exposed(entity_id)


async def weather(request: web.Request) -> web.Response:
    await request.read()
    return web.json_response({"city": request.match_info["city"], "temp": 21.5, "sky": "clear"})


async def main() -> dict[str, Any]:
    app = web.Application()
    app.router.add_post("/weather/{city}", weather)
    api = web.AppRunner(app, access_log=None)
    await api.setup()
    site = web.TCPSite(api, "127.0.0.1", 0)
    await site.start()
    api_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    endpoint_rest = SimpleNamespace(spent=0.0, started=0.0)

    async def on_start(_session: Any, _ctx: Any, _params: Any) -> None:
        endpoint_rest.started = time.perf_counter()

    async def on_end(_session: Any, _ctx: Any, _params: Any) -> None:
        endpoint_rest.spent += time.perf_counter() - endpoint_rest.started

    tracing = aiohttp.TraceConfig()
    tracing.on_request_start.append(on_start)
    tracing.on_request_end.append(on_end)

    fake = FakeHomeAssistant()
    await fake.start()
    async with (
        aiohttp.ClientSession(trace_configs=[tracing]) as session,
        aiohttp.ClientSession() as ha_session,
    ):
        client = HomeAssistantClient(ha_session, fake.ws_url, fake.rest_url, fake.token)
        await client.start()
        await client.wait_connected(10.0)
        port = TimedPort(HomeAssistantToolPort(client, HomeSync(client)))
        runner = Runner(session=session, port=port)
        rest_def = parse_definition(rest_definition(api_port), reserved=())
        service_def = parse_definition(SERVICE_DEFINITION, reserved=())
        registry = ToolRegistry(
            [
                CustomTool(rest_def, runner, SECRETS, canonical(rest_def.parameters)),
                CustomTool(service_def, runner, SECRETS, canonical(service_def.parameters)),
            ]
        )
        context = ToolContext(home=None, executor=None, language="en", now=datetime.now(UTC))
        calls = {
            "rest": ("get_weather", '{"city": "Den Haag", "days": "3"}', endpoint_rest),
            "service": ("dim_kitchen", '{"level": 40}', port),
        }
        figures: dict[str, dict[str, list[float]]] = {
            kind: {"overhead": [], "endpoint": []} for kind in calls
        }
        gc.collect()
        for round_no in range(WARMUP + ROUNDS):
            for kind, (name, raw, endpoint) in calls.items():
                endpoint.spent = 0.0
                started = time.perf_counter()
                outcome = await registry.execute(name, raw, context)
                wall = time.perf_counter() - started
                if outcome.error is not None:
                    raise SystemExit(f"{kind} call failed: {outcome.error}")
                if round_no >= WARMUP:
                    figures[kind]["overhead"].append((wall - endpoint.spent) * 1000)
                    figures[kind]["endpoint"].append(endpoint.spent * 1000)
        step = StepContext(
            renderer=runner.renderer,
            session=session,
            port=port,
            arguments={"city": "Den Haag", "days": 3},
            variables={"city": "Den Haag", "days": 3, "args": {"city": "Den Haag", "days": 3}},
            send=True,
            timeout=10.0,
            field="rest",
            now=lambda: datetime.now(UTC),
            gate=Gate(False),
            secrets=SECRETS,
        )
        assert isinstance(rest_def.settings, RestSettings)
        renders = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            render_request(rest_def.settings, dataclasses.replace(step))
            renders.append((time.perf_counter() - started) * 1000)
        await client.stop()
    await fake.close()
    await api.cleanup()

    print(f"custom tool calls through the registry, {ROUNDS} each after {WARMUP} warm-up")
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'kind':<8} {'overhead p50':>13} {'p95':>7} {'endpoint p50':>13}")
    overall: list[float] = []
    for kind, data in figures.items():
        overall.extend(data["overhead"])
        print(
            f"{kind:<8} {percentile(data['overhead'], 50):>10.3f} ms"
            f" {percentile(data['overhead'], 95):>7.3f}"
            f" {percentile(data['endpoint'], 50):>10.3f} ms"
        )
    render_p50 = percentile(renders, 50)
    print(f"rendering the rest request alone: p50 {render_p50:.3f} ms")
    p50, p95 = percentile(overall, 50), percentile(overall, 95)
    met_p50 = "met" if p50 <= TARGET_P50_MS else "MISSED"
    met_p95 = "met" if p95 <= TARGET_P95_MS else "MISSED"
    print(f"targets, both kinds: overhead p50 ≤ {TARGET_P50_MS} ms ({met_p50}),", end=" ")
    print(f"p95 ≤ {TARGET_P95_MS} ms ({met_p95})")
    return {
        "bench": "custom_tools",
        "overhead_p50_ms": round(p50, 3),
        "overhead_p95_ms": round(p95, 3),
        "render_p50_ms": round(render_p50, 3),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
