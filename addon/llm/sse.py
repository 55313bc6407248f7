"""Server-sent events: the ``data`` of each event in a ``text/event-stream`` body.

The model's streamed answer is read from the openai package's raw response so that each chunk
is a plain ``json.loads`` instead of a validated model object (most of the client's CPU per
call). Parsing follows the WHATWG event-stream rules the package's own decoder follows: lines
starting with ``:`` are comments (OpenRouter sends keep-alives that way), ``data`` lines of one
event are joined with newlines, a blank line ends the event, other fields are ignored.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator


async def event_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Each event's data, in order; events without data are skipped."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)
