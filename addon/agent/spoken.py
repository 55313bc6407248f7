"""What the listener hears over one turn, so the reply sent at the end is the text they heard.

A model may write beside its tool calls ("Let me check the lights.") before its final answer, and
that text is streamed out as it comes. The reply every endpoint sends at the end (Wyoming's
``handled``, the API's ``result``, the chat's ``done``) and the stored turn hold the same words:
every piece the model wrote, in order, with a space where two pieces would otherwise run together
("check.The"), and the stream puts that space in the same place. A reply the model did not write
(an apology after its endpoint failed, the iteration limit's message) comes after what was heard.

Once an action of the turn has failed, the model's next words are held back
(:meth:`SpokenStream.hold`) until the truth check (:mod:`addon.agent.truth`) has read them: a
claim that the failed action happened must never reach a listener, and words already spoken
cannot be taken back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from addon.llm.client import TextSink
from addon.llm.messages import AssistantMessage, ChatMessage


def needs_space(before: str, after: str) -> bool:
    """Whether ``after`` written straight after ``before`` would run two sentences together."""
    return bool(before) and bool(after) and not before[-1].isspace() and not after[0].isspace()


def join_spoken(parts: Iterable[str]) -> str:
    """The pieces as one reply, spaced as :class:`SpokenStream` spaces them while streaming."""
    text = ""
    for part in parts:
        if needs_space(text, part):
            text += " "
        text += part
    return text.strip()


def spoken_reply(messages: Sequence[ChatMessage], final: str) -> str:
    """The whole reply of a tool loop: the text of each assistant message, then ``final``.

    ``messages`` are the ones the loop added. When the last is the model's answer in words,
    ``final`` is that answer and is not repeated; otherwise (a failed or stopped loop) ``final``
    is what the agent says in its place.
    """
    said = [m.content or "" for m in messages if isinstance(m, AssistantMessage)]
    last = messages[-1] if messages else None
    answered = isinstance(last, AssistantMessage) and not last.tool_calls
    return join_spoken(said if answered else [*said, final])


def reply_tail(heard: str, reply: str) -> str:
    """What to send after ``heard`` so that the listener's text ends up being ``reply``.

    Usually ``reply`` starts with what was heard and only the rest is sent; a reply that does not
    (text streamed before the model's endpoint broke off) is sent whole, spaced from what came
    before.
    """
    if not reply.strip() or heard.strip().endswith(reply.strip()):
        return ""
    start = heard.lstrip()
    if start and reply.startswith(start):
        return reply[len(start) :]
    return " " + reply if needs_space(heard, reply) else reply


class SpokenStream:
    """Passes the model's text on as it streams, with :func:`join_spoken`'s spacing between calls.

    Also keeps what was passed on, so the agent can complete a stream that does not yet add up to
    the reply. While held, text is kept back instead, until it is released or dropped.
    """

    def __init__(self, on_text: TextSink) -> None:
        self._on_text = on_text
        self._heard: list[str] = []
        self._held: list[str] | None = None

    @property
    def heard(self) -> str:
        """Everything passed on so far."""
        return "".join(self._heard)

    @property
    def holding(self) -> bool:
        """Whether text is being held back."""
        return self._held is not None

    def hold(self) -> None:
        """Keep what comes from now on back from the listener until :meth:`release`."""
        if self._held is None:
            self._held = []

    async def release(self) -> None:
        """Pass on what was held back, and pass text on as it comes again."""
        held, self._held = self._held or [], None
        for text in held:
            await self.send(text)

    def drop(self) -> None:
        """Forget what was held back (the reply said instead replaces it); stop holding."""
        self._held = None

    def message_sink(self) -> TextSink:
        """The sink for one model call's text: a space goes first if the call's text needs one."""
        first = True

        async def sink(chunk: str) -> None:
            nonlocal first
            if not chunk:
                return
            last = self._held[-1] if self._held else (self._heard[-1] if self._heard else "")
            if first and needs_space(last, chunk):
                chunk = " " + chunk
            first = False
            await self.send(chunk)

        return sink

    async def send(self, text: str) -> None:
        """Pass ``text`` on as it is (keep it back while held)."""
        if text and self._held is not None:
            self._held.append(text)
        elif text:
            self._heard.append(text)
            await self._on_text(text)

    async def complete(self, reply: str) -> None:
        """Once something was heard, send what the listener has not yet heard of ``reply``.

        A turn that streamed nothing is left alone: its endpoint sends the reply as it sees fit.
        """
        if self._heard:
            await self.send(reply_tail(self.heard, reply))
