"""Reading server-sent events the way OpenAI-compatible servers write them."""

from __future__ import annotations

from collections.abc import AsyncIterator

from addon.llm.sse import event_data


async def lines(*items: str) -> AsyncIterator[str]:
    for item in items:
        yield item


async def collect(*items: str) -> list[str]:
    return [data async for data in event_data(lines(*items))]


async def test_each_event_gives_its_data() -> None:
    """A blank line ends an event; the space after the colon is not part of the value."""
    assert await collect("data: {}", "", 'data:{"a":1}', "") == ["{}", '{"a":1}']


async def test_comments_and_other_fields_are_skipped() -> None:
    """Keep-alive comments (OpenRouter) and event/id lines carry no data."""
    events = await collect(": OPENROUTER PROCESSING", "", "event: message", "id: 7", "data: x", "")
    assert events == ["x"]


async def test_data_lines_of_one_event_are_joined() -> None:
    """Several data lines make one value, joined by newlines."""
    assert await collect("data: first", "data: second", "") == ["first\nsecond"]


async def test_an_event_cut_off_at_the_end_still_counts() -> None:
    """A body that ends without the final blank line still yields its last event."""
    assert await collect("data: [DONE]") == ["[DONE]"]
