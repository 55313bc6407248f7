"""One Wyoming connection: ``describe`` gets our ``info``, a ``transcript`` gets the agent's reply.

What a client receives for a transcript:

- A turn the agent handled (locally or through the model): ``handled-start``, one
  ``handled-chunk`` per piece of text as the model streams it, ``handled`` with the whole reply,
  ``handled-stop``. The protocol has no way for a client to ask for streaming; the server
  advertises ``supports_handled_streaming`` and a client that does not stream simply skips the
  events it does not know (Home Assistant 2025.4 reads until ``handled`` and ignores the rest),
  which is why the plain ``handled`` always comes as well.
- A turn the agent could not do (the model unreachable, no model configured, Home Assistant away:
  ``handled_by == "failed"``): ``not-handled`` with the agent's apology, in place of ``handled``
  and inside the stream if one was started. Home Assistant speaks a not-handled text just as it
  speaks a handled one, but reports the turn as ``failed_to_handle``, so an automation calling
  ``conversation.process`` can tell that nothing was done, and that is the truth.
- A request we cannot serve at all (a malformed transcript, the agent raising): an ``error``
  event, then ``not-handled`` with an apology. Newer Home Assistant stops at the error; 2025.4
  ignores error events and would otherwise wait until the connection drops.

The ``handled``/``not-handled`` context carries our ``conversation_id`` and
``continue_conversation`` for clients that keep context between turns; clients that send a
``conversation_id`` in the transcript's context continue that conversation.

Home Assistant 2025.4 does neither: it builds its transcript with a ``conversation_id`` in the
context, but wyoming 1.5.4's ``Transcript.event`` sends the text alone, and it reads only the
reply's text (its satellites do not listen again after a question). Such a bare transcript is
"the voice pipeline" to the agent (:func:`addon.agent.confirm.from_voice_pipeline`): the next
one answers what the last one held for confirmation.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from wyoming.asr import Transcript
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, HandledChunk, HandledStart, HandledStop, NotHandled
from wyoming.info import Describe, Info
from wyoming.server import AsyncEventHandler

from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.service import Agent
from addon.errors import HomeAgentError
from addon.i18n.translations import messages_for
from addon.text import JsonObject, is_unicode

_LOGGER = logging.getLogger(__name__)

# A spoken or typed sentence; the same bound as the HTTP API's, so no endpoint sends the model more.
MAX_TEXT = 4000
# Bounds of the store's columns (addon/store/models.py): refuse, rather than truncate, ids.
_CONTEXT_LIMITS = {"conversation_id": 64, "device_id": 128, "satellite_id": 128, "language": 16}

Send = Callable[[Event], Awaitable[None]]


def transcript_request(event: Event) -> ConversationRequest:
    """The agent request a ``transcript`` event asks for; ValueError says what is wrong with it.

    ``language`` is a field of the event in newer wyoming releases (1.5.4, which Home Assistant
    2025.4 uses, has none); a context ``language`` is accepted too.
    """
    data = event.data
    if not isinstance(data, dict):
        raise ValueError("the transcript's data is not an object")
    try:
        unicode = is_unicode(data)
    except RecursionError:
        raise ValueError("the transcript's data is nested too deeply") from None
    if not unicode:
        raise ValueError("the transcript holds a lone surrogate, which is not Unicode text")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the transcript has no text")
    if len(text) > MAX_TEXT:
        raise ValueError(f"the transcript is longer than {MAX_TEXT} characters")
    context = data.get("context") or {}
    if not isinstance(context, dict):
        raise ValueError("the transcript's context is not an object")
    language = _field(data, "language") or _field(context, "language")
    return ConversationRequest(
        text=text.strip(),
        source="wyoming",
        conversation_id=_field(context, "conversation_id"),
        language=language,
        device_id=_field(context, "device_id"),
        satellite_id=_field(context, "satellite_id"),
    )


def _field(mapping: JsonObject, name: str) -> str | None:
    value = mapping.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    if len(value) > _CONTEXT_LIMITS[name]:
        raise ValueError(f"{name} is longer than {_CONTEXT_LIMITS[name]} characters")
    return value


def result_context(result: ConversationResult) -> JsonObject:
    """The context a reply carries so the client's next transcript continues this conversation."""
    return {
        "conversation_id": result.conversation_id,
        "continue_conversation": result.continue_conversation,
    }


class _Reply:
    """The events of one answer; the stream is opened by the first piece of text, if any."""

    def __init__(self, send: Send, context: JsonObject | None) -> None:
        self._send = send
        self._context = context
        self.streamed = False

    async def chunk(self, text: str) -> None:
        """Pass one piece of the reply on as the model produces it."""
        if not text:
            return
        if not self.streamed:
            self.streamed = True
            await self._send(HandledStart(context=self._context).event())
        await self._send(HandledChunk(text=text).event())

    async def finish(self, final: Event) -> None:
        """Send the final ``handled``/``not-handled``, and close the stream if one was opened."""
        await self._send(final)
        if self.streamed:
            await self._send(HandledStop().event())

    async def fail(self, text: str, code: str, reply: str) -> None:
        """Report a request we could not serve: an ``error``, then a spoken ``not-handled``."""
        await self._send(Error(text=text, code=code).event())
        await self.finish(NotHandled(text=reply).event())


class AgentEventHandler(AsyncEventHandler):
    """Serves one Wyoming connection; the server runs each in its own task."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        agent: Agent,
        info: Info,
    ) -> None:
        super().__init__(reader, writer)
        self._agent = agent
        # Built once at start and shared; its event is made only when a client describes.
        self._info = info
        peer = writer.get_extra_info("peername")
        self._peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self._gone = False
        # Set once this side ends the connection; the read loop then stops at the next event.
        self._ending = False

    async def run(self) -> None:
        """The library's read loop, with a log line for every way a client can break it.

        The library turns broken JSON into a silent end of stream and lets other malformed
        headers raise out of :meth:`AsyncEventHandler.run`; here each ends this connection with a
        warning saying why, and never disturbs another connection.
        """
        try:
            await super().run()
        except asyncio.IncompleteReadError:
            _LOGGER.debug("Wyoming client %s hung up in the middle of an event", self._peer)
        except ConnectionError as err:
            # Home Assistant 2026.x closes as soon as it has read ``handled``; a streamed
            # answer's last event then meets a closed socket and the next read a reset.
            _LOGGER.debug("Wyoming client %s hung up: %s", self._peer, err)
        except HomeAgentError as err:
            _LOGGER.warning("Closing Wyoming connection from %s: %s", self._peer, err)
        except Exception as err:  # a header the library cannot read; only this client
            _LOGGER.warning(
                "Closing Wyoming connection from %s: malformed event header (%s: %s)",
                self._peer,
                type(err).__name__,
                err,
            )
        else:
            # The loop ended without our say: the client hung up, or sent what the library
            # could not parse, which it reports as the end of the stream with bytes still unread.
            if not (self._ending or self._gone or self.reader.at_eof()):
                _LOGGER.warning(
                    "Closing Wyoming connection from %s: it sent something that is not "
                    "a Wyoming event (broken JSON?)",
                    self._peer,
                )

    async def handle_event(self, event: Event) -> bool:
        """Answer one event; False ends the connection (client gone, stopping, or a failure)."""
        if self._ending:
            return False
        try:
            if Describe.is_type(event.type):
                await self._send(self._info.event())
            elif Transcript.is_type(event.type):
                await self._answer(event)
            else:
                _LOGGER.debug("Ignoring Wyoming event %r from %s", event.type, self._peer)
        except Exception:  # a bug of ours; end this connection, not the server
            _LOGGER.exception(
                "Closing Wyoming connection from %s: %r event failed", self._peer, event.type
            )
            self._ending = True
            return False
        return not (self._ending or self._gone)

    async def stop(self) -> None:
        """End the connection once it is idle: a turn in progress still gets its answer.

        The library's ``stop`` closes the connection at once, cutting off a reply on its way;
        here the read loop only sees the end of the stream, and no event read after this is
        served.
        """
        self._ending = True
        self.reader.feed_eof()

    async def _answer(self, event: Event) -> None:
        try:
            request = transcript_request(event)
        except ValueError as err:
            _LOGGER.warning("Refusing a transcript from %s: %s", self._peer, err)
            # The request's own language cannot be trusted here; the configured one is spoken.
            apology = messages_for(self._agent.options.language).invalid_request
            await _Reply(self._send, None).fail(str(err), "invalid-transcript", apology)
            return
        start_context: JsonObject | None = (
            {"conversation_id": request.conversation_id} if request.conversation_id else None
        )
        reply = _Reply(self._send, start_context)
        try:
            result = await self._agent.process(request, on_text=reply.chunk)
        except Exception as err:  # the connection's boundary: answer, log, keep serving
            _LOGGER.exception("Wyoming turn from %s failed", self._peer)
            await reply.fail(
                f"Home Agent could not complete the turn ({type(err).__name__})",
                "agent-error",
                messages_for(request.language or self._agent.options.language).agent_error,
            )
            return
        _LOGGER.debug(
            "Wyoming turn %s from %s handled by %s",
            result.turn_id,
            self._peer,
            result.handled_by,
        )
        if result.handled_by == "failed":
            final = NotHandled(text=result.reply, context=result_context(result))
            await reply.finish(final.event())
        else:
            await reply.finish(Handled(text=result.reply, context=result_context(result)).event())

    async def _send(self, event: Event) -> None:
        """Write one event; a client that has gone is noted, not raised into the agent's turn.

        The turn goes on (and is recorded) without anyone to hear it; the connection ends after.
        """
        if self._gone:
            return
        try:
            await self.write_event(event)
        except OSError as err:
            self._gone = True
            _LOGGER.debug(
                "Wyoming client %s went away before %r was sent: %s", self._peer, event.type, err
            )
