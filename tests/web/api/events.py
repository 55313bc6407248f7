"""Reading a server-sent event stream the way a browser's EventSource does, with arrival times."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import ClientResponse


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its name (``message`` when unnamed), its data, and when it arrived."""

    name: str
    data: str
    at: float

    def json(self) -> Any:
        return json.loads(self.data)


async def read_events(response: ClientResponse) -> list[Event]:
    """Every event until the server closes the stream."""
    events: list[Event] = []
    name, data = "message", list[str]()
    async for raw in response.content:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if data:
                events.append(Event(name, "\n".join(data), time.monotonic()))
            name, data = "message", list[str]()
        elif line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").removeprefix(" "))
    return events
