"""Server-sent events: a reply streamed to the caller while the agent is still working on it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.service import Agent
from addon.agent.spoken import reply_tail

_LOGGER = logging.getLogger(__name__)

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    # Proxies that buffer (nginx, some ingress set-ups) would hold every event until the end.
    "X-Accel-Buffering": "no",
}


class EventStream:
    """One ``text/event-stream`` response, written event by event as soon as each is ready.

    A caller that hangs up mid-turn does not stop the turn: what the agent started in the home
    should finish and be recorded either way, so later writes are skipped, not raised.
    """

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.response = web.StreamResponse(headers=SSE_HEADERS)
        self.gone = False

    async def open(self) -> None:
        """Send the status and headers; after this, failures can only be reported as events."""
        await self.response.prepare(self.request)

    async def send(self, data: str, *, event: str | None = None) -> None:
        """Write one event; multi-line data becomes several ``data:`` lines, as SSE requires."""
        if self.gone:
            return
        lines = "".join(f"data: {line}\n" for line in data.split("\n"))
        frame = (f"event: {event}\n" if event else "") + lines + "\n"
        try:
            await self.response.write(frame.encode())
        except ConnectionResetError:
            self.gone = True
            _LOGGER.info(
                "Client %s left %s mid-stream; the turn continues without it",
                self.request.remote,
                self.request.path,
            )

    async def close(self) -> web.StreamResponse:
        """End the stream (unless the client already left) and hand back the response."""
        if not self.gone:
            try:
                await self.response.write_eof()
            except ConnectionResetError:
                self.gone = True
        return self.response


async def process_streaming(
    agent: Agent, request: ConversationRequest, send: Callable[[str], Awaitable[None]]
) -> ConversationResult:
    """Run a turn, passing reply text to ``send`` as it is written and completing it at the end.

    Once anything was streamed the agent completes the stream to its reply itself; a reply it did
    not stream (an apology when the model failed before writing anything) is sent here, so the
    pieces always add up to the reply.
    """
    streamed: list[str] = []

    async def on_text(chunk: str) -> None:
        streamed.append(chunk)
        await send(chunk)

    result = await agent.process(request, on_text=on_text)
    tail = reply_tail("".join(streamed), result.reply)
    if tail:
        await send(tail)
    return result
