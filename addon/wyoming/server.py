"""The Wyoming TCP server: one handler per connection, with bounded event sizes.

The ``wyoming`` library does all the framing (``async_read_event``). What it does not do is bound
what a client may announce: an event header names ``data_length`` and ``payload_length`` and the
library then buffers that many bytes, so one client claiming gigabytes could exhaust the add-on's
memory. Each connection here reads through a :class:`BoundedStreamReader` that refuses such an
event before buffering it, which ends that one connection and nothing else.
"""

from __future__ import annotations

import asyncio
import logging

from wyoming.server import AsyncEventHandler, HandlerFactory

from addon.errors import HomeAgentError

_LOGGER = logging.getLogger(__name__)

# A header is one JSON line without the data (the library sends data separately); asyncio's
# default line limit is generous for it.
HEADER_LIMIT = 64 * 1024
# A transcript is a few hundred bytes and our own ``info`` about 2 KB; audio is not ours to take.
MAX_EVENT_BYTES = 1024 * 1024
# At shutdown a turn in progress gets this long to be answered before it is cancelled.
SHUTDOWN_GRACE_S = 5.0


class BoundedStreamReader(asyncio.StreamReader):
    """A stream reader that refuses over-long header lines and over-large event bodies."""

    def __init__(self, max_event_bytes: int) -> None:
        super().__init__(limit=HEADER_LIMIT)
        self.max_event_bytes = max_event_bytes

    async def readline(self) -> bytes:
        """Read one header line; a line over the limit is a protocol error, not a silent EOF."""
        try:
            return await super().readline()
        except ValueError as err:  # asyncio's LimitOverrunError, re-raised as ValueError
            raise HomeAgentError(f"event header longer than {HEADER_LIMIT} bytes") from err

    async def readexactly(self, n: int) -> bytes:
        """Read an event's data or payload, refusing it before buffering when it is too large."""
        if n > self.max_event_bytes:
            raise HomeAgentError(
                f"event announces {n} bytes of data or payload, "
                f"more than the {self.max_event_bytes} allowed"
            )
        return await super().readexactly(n)


class WyomingServer:
    """Listens for Wyoming clients and runs each connection's handler in its own task.

    The library's ``AsyncTcpServer`` does the same through ``asyncio.start_server``, with a plain
    reader and its connections kept private. Ours needs a bounded reader, a count of the
    connections for ``/health``, and a stop that lets turns in progress finish, so it is a small
    server of its own over the library's public handler API (``run`` and ``stop``).
    """

    def __init__(self, host: str, port: int, *, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self.host = host
        self.port = port
        self.max_event_bytes = max_event_bytes
        self._listener: asyncio.Server | None = None
        self._bound_port: int | None = None
        self._handlers: dict[asyncio.Task[None], AsyncEventHandler] = {}

    async def start(self, handler_factory: HandlerFactory) -> None:
        """Listen, with a bounded reader and a handler task per connection."""
        loop = asyncio.get_running_loop()

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            handler = handler_factory(reader, writer)
            task = asyncio.create_task(handler.run(), name="wyoming connection")
            self._handlers[task] = handler
            task.add_done_callback(self._forget)

        def protocol() -> asyncio.StreamReaderProtocol:
            return asyncio.StreamReaderProtocol(
                BoundedStreamReader(self.max_event_bytes), connected
            )

        self._listener = await loop.create_server(protocol, self.host, self.port)
        self._bound_port = int(self._listener.sockets[0].getsockname()[1])

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._handlers.pop(task, None)

    @property
    def bound_port(self) -> int:
        """The port actually listened on; differs from ``port`` when that was 0."""
        if self._bound_port is None:
            raise RuntimeError("the Wyoming server has not started")
        return self._bound_port

    @property
    def connections(self) -> int:
        """Connections being served now."""
        return len(self._handlers)

    async def stop(self, grace: float = SHUTDOWN_GRACE_S) -> None:
        """Stop listening, let turns in progress answer (up to ``grace`` s), then end the rest.

        Each handler's ``stop`` ends its connection once it is idle; a handler still running
        after ``grace`` is cancelled, so shutdown never waits on a slow model.
        """
        if self._listener is not None:
            self._listener.close()
        tasks = dict(self._handlers)
        await asyncio.gather(*(handler.stop() for handler in tasks.values()))
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=grace)
            if pending:
                _LOGGER.warning(
                    "Cancelling %d Wyoming turn(s) still running after %.0f s",
                    len(pending),
                    grace,
                )
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
        if self._listener is not None:
            await self._listener.wait_closed()
