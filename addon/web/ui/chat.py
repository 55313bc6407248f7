"""The chat playground: talk to the agent from the UI, streamed, with a link to each trace.

With script, the form is sent with ``fetch`` to :func:`chat_stream_view`, which answers
Server-Sent Events: ``text`` events as the reply streams, then ``done`` with the trace's URL.
Without script the same form posts to :func:`chat_send_view`, which waits for the reply and
redirects (303) to the trace. Both default to a dry run (the virtual executor), so trying things
out changes nothing in the home unless the switch is turned off; with the ``dry_run`` option on,
the switch is shown on and locked, and the agent keeps the turn a dry run whatever the form says.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from aiohttp import web

from addon import keys
from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.i18n.confirmation import yes_and_no
from addon.store.queries import conversation_turns
from addon.web.access import IngressIdentity, ingress_identity
from addon.web.ui.forms import read_form
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

MAX_TEXT_LENGTH = 2000
_CONVERSATION_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


@dataclass(frozen=True, slots=True)
class ChatForm:
    """A validated chat submission."""

    text: str
    conversation_id: str | None
    dry_run: bool


async def chat_view(request: web.Request) -> web.Response:
    """The playground; ``?conversation=<id>`` continues that conversation."""
    conversation_id = _conversation_id(request.query.get("conversation"))
    turns = []
    if conversation_id is not None:
        store = request.app[keys.STORE]
        await store.writer.flush()  # turns just answered are shown too
        async with store.sessionmaker() as session:
            turns = await conversation_turns(session, conversation_id)
    options = request.app[keys.SETTINGS].options
    # A question still waiting offers its answer again, a PIN field for a PIN.
    awaiting = None
    if turns and conversation_id is not None:
        awaiting = request.app[keys.AGENT].question_waiting(conversation_id)
    # The chat's turns speak the add-on's language: the buttons say yes and no in it.
    say_yes, say_no = yes_and_no(options.language)
    return render(
        request,
        "chat.html",
        {
            "conversation_id": conversation_id if turns else None,
            "turns": turns,
            "dry_run_option": options.dry_run,
            "awaiting": awaiting,
            "say_yes": say_yes,
            "say_no": say_no,
        },
    )


async def chat_send_view(request: web.Request) -> web.StreamResponse:
    """The form without script: run the turn, then show its trace."""
    form = await _read_form(request)
    urls = Urls.of(request)
    if not form.text:
        query = {"conversation": form.conversation_id} if form.conversation_id else None
        raise web.HTTPSeeOther(urls.page("ui.chat", query))
    result = await request.app[keys.AGENT].process(_agent_request(form, ingress_identity(request)))
    _LOGGER.debug("UI chat turn %s in %s", result.turn_id, result.conversation_id)
    raise web.HTTPSeeOther(_trace_url(urls, result))


async def chat_stream_view(request: web.Request) -> web.StreamResponse:
    """The form with script: the reply as Server-Sent Events, then where its trace is."""
    form = await _read_form(request)
    if not form.text:
        raise web.HTTPBadRequest(text="Say something first.")
    urls = Urls.of(request)
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
    )
    await response.prepare(request)
    events = _EventStream(response, request.remote)

    async def on_text(chunk: str) -> None:
        await events.send("text", {"text": chunk})

    try:
        asked = _agent_request(form, ingress_identity(request))
        result = await request.app[keys.AGENT].process(asked, on_text=on_text)
    except Exception:  # the boundary: the browser gets a message, the log the traceback
        _LOGGER.exception("UI chat turn failed (conversation %s)", form.conversation_id)
        await events.send("failed", {"message": "The turn failed; the add-on log has details."})
    else:
        await events.send(
            "done",
            {
                "reply": result.reply,
                "conversation_id": result.conversation_id,
                "turn_id": result.turn_id,
                "handled_by": result.handled_by,
                "error": result.error,
                "trace_url": _trace_url(urls, result),
                # What the user said as stored (a PIN masked), shown in place of what was typed.
                "said": result.said,
                "dry_run": result.dry_run,
                # A held action waits: the page offers Yes and No, or a masked PIN field.
                "confirm": (result.needs_confirmation or {}).get("method"),
            },
        )
    if events.open:
        await response.write_eof()
    return response


class _EventStream:
    """Writes SSE events; a browser that went away ends the stream, not the turn."""

    def __init__(self, response: web.StreamResponse, peer: str | None) -> None:
        self._response = response
        self._peer = peer
        self.open = True

    async def send(self, event: str, data: dict[str, object]) -> None:
        if not self.open:
            return
        payload = json.dumps(data, ensure_ascii=False)
        try:
            await self._response.write(f"event: {event}\ndata: {payload}\n\n".encode())
        except ConnectionResetError:
            # The turn goes on and is recorded; only its live view is gone.
            _LOGGER.info("Chat client %s went away; the turn continues unseen", self._peer)
            self.open = False


async def _read_form(request: web.Request) -> ChatForm:
    form = await read_form(request)
    text = form.get("text")
    conversation = form.get("conversation_id")
    text = text.strip() if isinstance(text, str) else ""
    if len(text) > MAX_TEXT_LENGTH:
        raise web.HTTPBadRequest(text=f"Keep it under {MAX_TEXT_LENGTH} characters.")
    return ChatForm(
        text=text,
        conversation_id=_conversation_id(conversation if isinstance(conversation, str) else None),
        dry_run=form.get("dry_run") == "on",
    )


def _conversation_id(value: str | None) -> str | None:
    if not value:
        return None
    if not _CONVERSATION_ID.fullmatch(value):
        raise web.HTTPBadRequest(text="That is not a conversation id.")
    return value


def _agent_request(form: ChatForm, identity: IngressIdentity) -> ConversationRequest:
    return ConversationRequest(
        text=form.text,
        source="ui",
        conversation_id=form.conversation_id,
        dry_run=form.dry_run,
        user_id=identity.user_id,
        user_name=identity.name,
    )


def _trace_url(urls: Urls, result: ConversationResult) -> str:
    return urls.page(
        "ui.conversation", fragment=f"turn-{result.turn_id}", conversation_id=result.conversation_id
    )
