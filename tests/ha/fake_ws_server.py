"""A scripted Home Assistant WebSocket and REST server on loopback, to drive faults on purpose.

It speaks the protocol of Home Assistant Core's ``websocket_api`` (auth phase, ids, ``result``,
``event``, ``pong``, coalesced array frames) over a real aiohttp server, but every answer can be
replaced by a test: delayed, withheld, malformed, sent as binary, or sent to an id nobody asked
for. The real Home Assistant is used for everything it does on its own (``test_real_ha.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

HA_VERSION = "2025.4.4"
# Only bounds a wait for something that never comes; generous for a loaded machine.
WAIT_S = 30.0
Handler = Callable[["FakeConnection", dict[str, Any]], Awaitable[None]]


@dataclass(slots=True)
class FakeConnection:
    """One authenticated client connection, with what it sent and what it subscribed to."""

    ws: web.WebSocketResponse
    number: int
    received: list[dict[str, Any]] = field(default_factory=list)
    subscriptions: dict[int, dict[str, Any]] = field(default_factory=dict)

    async def send(self, message: Any) -> None:
        """Send a message (or a list, as one coalesced frame) as JSON text."""
        await self.ws.send_str(json.dumps(message))

    async def send_raw(self, data: str | bytes) -> None:
        """Send a text or binary frame exactly as given."""
        if isinstance(data, bytes):
            await self.ws.send_bytes(data)
        else:
            await self.ws.send_str(data)

    async def result(self, msg_id: int, result: Any = None) -> None:
        """Answer ``msg_id`` with success."""
        await self.send({"id": msg_id, "type": "result", "success": True, "result": result})

    async def error(self, msg_id: int, code: str, message: str) -> None:
        """Answer ``msg_id`` with an error, as Home Assistant's ``send_error`` does."""
        await self.send(
            {
                "id": msg_id,
                "type": "result",
                "success": False,
                "error": {"code": code, "message": message},
            }
        )

    async def event(self, subscription_id: int, event: Any) -> None:
        """Send an event to a subscription."""
        await self.send({"id": subscription_id, "type": "event", "event": event})

    def sent_types(self) -> list[str]:
        """The command types this connection sent, in order."""
        return [str(message.get("type")) for message in self.received]


class FakeHomeAssistant:
    """The server; ``handlers`` maps a command type to a coroutine that answers it."""

    def __init__(self, token: str = "good-token-0123456789") -> None:
        self.token = token
        self.connection_attempts = 0
        self.auth_attempts = 0
        self.connections: list[FakeConnection] = []
        self.answer_pings = True
        # Sent on the connection just before a pong: what Home Assistant had queued for it.
        self.before_pong: list[Any] = []
        self.rest_requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.rest_answer: tuple[int, Any] = (200, {"ok": True})
        self.handlers: dict[str, Handler] = {
            "supported_features": self._answer_empty,
            "subscribe_events": self._answer_subscribe,
            "subscribe_entities": self._answer_subscribe,
            "unsubscribe_events": self._answer_unsubscribe,
            "call_service": self._answer_call_service,
            "fire_event": self._answer_empty,
            "get_config": self._answer_config,
        }
        self.new_connection = asyncio.Event()
        self._server: TestServer | None = None
        self._base = ""
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def ws_url(self) -> str:
        """The WebSocket endpoint, ``/api/websocket`` as on the real one; kept after close."""
        return self._base.replace("http://", "ws://") + "/api/websocket"

    @property
    def rest_url(self) -> str:
        """The REST base, ``/api`` as on the real one."""
        return self._base + "/api"

    @property
    def latest(self) -> FakeConnection:
        """The newest authenticated connection."""
        return self.connections[-1]

    async def start(self) -> None:
        """Listen on a free loopback port."""
        app = web.Application()
        app.router.add_get("/api/websocket", self._websocket)
        app.router.add_route("*", "/api/{path:.*}", self._rest)
        self._server = TestServer(app, host="127.0.0.1")
        await self._server.start_server()
        self._base = str(self._server.make_url("")).rstrip("/")

    async def close(self) -> None:
        """Close every socket and stop listening."""
        await self.drop_all()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.close()

    async def drop_all(self) -> None:
        """Close every open connection from the server side, as a restarting Home Assistant does."""
        for connection in self.connections:
            if not connection.ws.closed:
                await connection.ws.close()

    async def wait_for_connection(self, count: int) -> FakeConnection:
        """Wait (up to WAIT_S) until ``count`` connections have authenticated; the newest."""
        async with asyncio.timeout(WAIT_S):
            while len(self.connections) < count:
                self.new_connection.clear()
                await self.new_connection.wait()
        return self.latest

    async def wait_for_message(
        self, connection: FakeConnection, command_type: str
    ) -> dict[str, Any]:
        """Wait (up to WAIT_S) until ``connection`` has sent ``command_type``; returns it."""
        async with asyncio.timeout(WAIT_S):
            while True:
                for message in connection.received:
                    if message.get("type") == command_type:
                        return message
                await asyncio.sleep(0.01)

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.connection_attempts += 1
        await ws.send_json({"type": "auth_required", "ha_version": HA_VERSION})
        auth = await ws.receive()
        self.auth_attempts += 1
        if (
            auth.type is not WSMsgType.TEXT
            or json.loads(auth.data).get("access_token") != self.token
        ):
            await ws.send_json(
                {"type": "auth_invalid", "message": "Invalid access token or password"}
            )
            await ws.close()
            return ws
        await ws.send_json({"type": "auth_ok", "ha_version": HA_VERSION})
        connection = FakeConnection(ws, len(self.connections) + 1)
        self.connections.append(connection)
        self.new_connection.set()
        async for frame in ws:
            if frame.type is not WSMsgType.TEXT:
                continue
            message = json.loads(frame.data)
            connection.received.append(message)
            if message["type"] == "ping":
                if self.answer_pings:
                    queued, self.before_pong = self.before_pong, []
                    for earlier in queued:
                        await connection.send(earlier)
                    await connection.send({"id": message["id"], "type": "pong"})
                continue
            handler = self.handlers.get(message["type"])
            if handler is None:
                await connection.error(message["id"], "unknown_command", "Unknown command.")
            else:
                # Each command is answered on its own task, as Home Assistant's async handlers
                # are, so a withheld answer does not hold up the ones after it.
                task = asyncio.get_running_loop().create_task(
                    self._run_handler(handler, connection, message)
                )
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return ws

    @staticmethod
    async def _run_handler(
        handler: Handler, connection: FakeConnection, message: dict[str, Any]
    ) -> None:
        """Run one handler; a client that went away meanwhile is not the server's failure."""
        # The client may close the socket before the answer; nobody is left to tell then.
        with contextlib.suppress(ConnectionResetError):
            await handler(connection, message)

    async def _rest(self, request: web.Request) -> web.Response:
        body = await request.json() if request.can_read_body else None
        self.rest_requests.append((request.method, request.path, dict(request.headers), body))
        status, payload = self.rest_answer
        if isinstance(payload, str):
            return web.Response(status=status, text=payload)
        return web.json_response(payload, status=status)

    @staticmethod
    async def _answer_empty(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.result(message["id"])

    @staticmethod
    async def _answer_subscribe(connection: FakeConnection, message: dict[str, Any]) -> None:
        connection.subscriptions[message["id"]] = message
        await connection.result(message["id"])

    @staticmethod
    async def _answer_unsubscribe(connection: FakeConnection, message: dict[str, Any]) -> None:
        if connection.subscriptions.pop(message["subscription"], None) is None:
            await connection.error(message["id"], "not_found", "Subscription not found.")
        else:
            await connection.result(message["id"])

    @staticmethod
    async def _answer_call_service(connection: FakeConnection, message: dict[str, Any]) -> None:
        context = {"id": "ctx", "parent_id": None, "user_id": "u"}
        result: dict[str, Any] = {"context": context}
        if message.get("return_response"):
            result["response"] = {"echo": message.get("service_data")}
        await connection.result(message["id"], result)

    @staticmethod
    async def _answer_config(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.result(message["id"], {"location_name": "Fake", "version": HA_VERSION})
