"""The reply a listener hears: the model's pieces joined, and the tail of a stream."""

from __future__ import annotations

from addon.agent.spoken import SpokenStream, join_spoken, reply_tail


def test_pieces_that_would_run_together_are_spaced() -> None:
    """A space goes between two pieces only where neither side already has one."""
    assert join_spoken(["Let me check.", "It is on."]) == "Let me check. It is on."
    assert join_spoken(["Let me check.\n", "It is on."]) == "Let me check.\nIt is on."
    assert join_spoken(["", "It is on.", ""]) == "It is on."


async def test_the_stream_is_spaced_as_the_reply_is() -> None:
    """Streamed chunks of two model calls add up to the joined reply, space included."""
    heard: list[str] = []

    async def listen(text: str) -> None:
        heard.append(text)

    stream = SpokenStream(listen)
    first, second = stream.message_sink(), stream.message_sink()
    for chunk in ("Let", " me", " check."):
        await first(chunk)
    for chunk in ("It", " is on."):
        await second(chunk)
    assert "".join(heard) == join_spoken(["Let me check.", "It is on."])


def test_the_tail_is_what_was_not_yet_heard() -> None:
    """After streamed text only the rest of the reply is sent; unrelated replies come whole."""
    assert reply_tail("Let me check.", "Let me check. Sorry.") == " Sorry."
    assert reply_tail("Let me check.", "Let me check.") == ""
    assert reply_tail("", "Sorry.") == "Sorry."
    assert reply_tail("Let me ch", "Sorry.") == " Sorry."


async def test_held_text_waits_until_released() -> None:
    """Text held back reaches the listener only when released, spaced as it would have been."""
    heard: list[str] = []

    async def listen(text: str) -> None:
        heard.append(text)

    stream = SpokenStream(listen)
    await stream.message_sink()("Let me check.")
    stream.hold()
    await stream.message_sink()("It is on.")
    assert "".join(heard) == "Let me check."
    await stream.release()
    assert "".join(heard) == "Let me check. It is on."
    assert not stream.holding


async def test_dropped_text_is_never_heard() -> None:
    """Text held back and then dropped never reaches the listener; later text does."""
    heard: list[str] = []

    async def listen(text: str) -> None:
        heard.append(text)

    stream = SpokenStream(listen)
    stream.hold()
    await stream.message_sink()("The door is unlocked.")
    stream.drop()
    await stream.complete("Sorry, Front Door is not exposed")
    assert heard == []
    await stream.send("Sorry, Front Door is not exposed")
    assert stream.heard == "Sorry, Front Door is not exposed"
