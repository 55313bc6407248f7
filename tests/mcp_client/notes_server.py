"""A small MCP server built with the official package (``MCPServer``), served by uvicorn.

It keeps notes in memory and wants a bearer token, so a test sees headers, structured results,
tool errors and, once stopped, a server that has gone away. Its tools carry safety labels as
Home Assistant's do: ``add_note`` only adds, ``list_notes`` only reads, ``clear_notes`` is
destructive; ``broken`` gives none, so the specification's defaults apply.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

TOKEN = "notes-secret-token-42"


@dataclass(slots=True)
class NotesServer:
    """The running server: its URL, the notes it holds, and a way to stop it early."""

    url: str
    notes: list[str] = field(default_factory=list)
    uvicorn: uvicorn.Server | None = None
    task: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        """Go away, as a server that is shut down or unplugged does."""
        if self.uvicorn is not None and self.task is not None and not self.task.done():
            self.uvicorn.should_exit = True
            await self.task


ADD_NOTE = "Add a note to the user's notes."


def build(notes: list[str], add_note_description: str = ADD_NOTE) -> MCPServer:
    """The MCP server: add, list and clear notes, and a tool that always fails."""
    server = MCPServer("notes")

    @server.tool(
        description=add_note_description,
        annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False),
    )
    def add_note(text: str) -> dict[str, Any]:
        """Add a note (the description is given above, so a test can change it)."""
        notes.append(text)
        return {"saved": text, "count": len(notes)}

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def list_notes() -> str:
        """List the user's notes, one a line."""
        return "\n".join(notes)

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True
        )
    )
    def clear_notes() -> str:
        """Delete every note."""
        notes.clear()
        return "cleared"

    @server.tool()
    def broken() -> str:
        """A tool that always fails."""
        raise ToolError("the notebook is locked")

    return server


def _require_token(app: Any) -> Any:
    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return guarded


@contextlib.asynccontextmanager
async def notes_server(add_note_description: str = ADD_NOTE) -> AsyncIterator[NotesServer]:
    """Serve the notes server on a free loopback port until the block ends (or ``stop``)."""
    notes: list[str] = []
    app = build(notes, add_note_description).streamable_http_app()
    config = uvicorn.Config(
        _require_token(app), host="127.0.0.1", port=0, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    running = NotesServer(f"http://127.0.0.1:{port}/mcp", notes, server, task)
    try:
        yield running
    finally:
        await running.stop()
