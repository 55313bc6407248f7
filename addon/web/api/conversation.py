"""``POST /api/conversation`` and its streaming twin: one utterance in, the agent's answer out."""

from __future__ import annotations

import logging

from aiohttp import web

from addon import keys
from addon.web.access import ingress_identity
from addon.web.api.schemas import ConversationIn, ConversationOut, DeltaEvent, ErrorOut
from addon.web.api.sse import EventStream, process_streaming
from addon.web.problems import KIB, read_model

_LOGGER = logging.getLogger(__name__)

# An utterance is at most 4,000 characters; 64 KiB leaves room for escaping and the other fields
# while keeping a hostile body from costing more than a glance.
BODY_LIMIT = 64 * KIB
INTERNAL_MESSAGE = "Internal error; the add-on log has the details."


async def conversation_view(request: web.Request) -> web.Response:
    """Answer once the turn is finished (and stored)."""
    body = await _parse(request)
    asked = body.to_request(ingress_identity(request))
    result = await request.config_dict[keys.AGENT].process(asked)
    return web.json_response(ConversationOut.from_result(result).model_dump(mode="json"))


async def conversation_stream_view(request: web.Request) -> web.StreamResponse:
    """Stream ``delta`` events while the model writes, then one ``result`` (or ``error``) event.

    The body is validated before the stream opens, so a bad request is still a plain 4xx.
    """
    body = await _parse(request)
    stream = EventStream(request)
    await stream.open()

    async def send_delta(text: str) -> None:
        await stream.send(DeltaEvent(text=text).model_dump_json(), event="delta")

    agent = request.config_dict[keys.AGENT]
    try:
        asked = body.to_request(ingress_identity(request))
        result = await process_streaming(agent, asked, send_delta)
    except Exception:  # the headers are sent: the error middleware can no longer answer
        _LOGGER.exception(
            "Streamed turn failed (conversation %s, from %s)",
            body.conversation_id or "new",
            request.remote,
        )
        error = ErrorOut(error="internal", message=INTERNAL_MESSAGE)
        await stream.send(error.model_dump_json(exclude_none=True), event="error")
    else:
        result_json = ConversationOut.from_result(result).model_dump_json()
        await stream.send(result_json, event="result")
    return await stream.close()


async def _parse(request: web.Request) -> ConversationIn:
    return await read_model(request, ConversationIn, limit=BODY_LIMIT)
