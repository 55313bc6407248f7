"""The OpenAI-compatible façade: the home agent answering as if it were a chat model.

Any OpenAI client (or Home Assistant integration speaking chat completions) can point its base URL
at ``…/v1`` and talk to the home. How requests map onto the agent:

- The utterance is the text of the last ``user`` message. The agent keeps its own history, so the
  client's earlier messages, system prompt and ``tools`` are ignored; the agent acts with its own
  tools and never returns ``tool_calls``.
- ``user`` names the conversation: the same value continues the same agent conversation
  (``openai-`` + a hash of it). Without ``user`` every request starts a new conversation, because
  nothing else in the protocol tells two clients' identical histories apart.
- ``usage`` is the turn's token count at the model endpoint, summed over its tool loop.
- Errors come in OpenAI's error shape, so the client raises its usual exceptions.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Handler

from addon import keys
from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.web.access import ingress_identity
from addon.web.api.openai_schemas import (
    AssistantMessage,
    ChatCompletionChunk,
    ChatCompletionIn,
    ChatCompletionOut,
    ChatMessage,
    Choice,
    ChunkChoice,
    Delta,
    ModelList,
    ModelOut,
    Usage,
)
from addon.web.api.schemas import MAX_TEXT
from addon.web.api.sse import EventStream, process_streaming
from addon.web.problems import (
    KIB,
    RequestProblem,
    field_path,
    invalid_value,
    openai_error,
    openai_problem,
    read_model,
)

_LOGGER = logging.getLogger(__name__)

# Clients resend the whole chat, and Home Assistant integrations add a long system prompt listing
# the home; only the last message is used, but the body must fit first.
BODY_LIMIT = 1024 * KIB
INTERNAL_MESSAGE = "Internal error; the add-on log has the details."


def openai_app() -> web.Application:
    """The façade as a sub-application, so its errors (even 404s) come in OpenAI's shape."""
    app = web.Application(middlewares=[openai_error_middleware])
    app.router.add_post("/chat/completions", chat_completions_view, name="chat_completions")
    app.router.add_get("/models", models_view, name="models")
    app.router.add_get("/models/{model}", model_view, name="model")
    return app


@web.middleware
async def openai_error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The façade's edge: every failure becomes OpenAI's error body, unexpected ones logged."""
    try:
        return await handler(request)
    except RequestProblem as problem:
        return openai_problem(problem)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        message = f"{exc.reason}: {request.method} {request.path}"
        return openai_error(
            exc.status, message, code=exc.reason.lower().replace(" ", "_"), headers=headers
        )
    except Exception:
        _LOGGER.exception("Unhandled error serving %s %s", request.method, request.path)
        return openai_error(500, INTERNAL_MESSAGE, code="internal")


async def chat_completions_view(request: web.Request) -> web.StreamResponse:
    """``POST /v1/chat/completions``: one agent turn, as a completion or a chunk stream."""
    body = await _parse(request)
    identity = ingress_identity(request)
    turn = ConversationRequest(
        text=last_utterance(body.messages),
        source="openai",
        conversation_id=conversation_for(body.user),
        user_id=identity.user_id,
        user_name=identity.name,
    )
    completion = _Completion(f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), body.model)
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return await _stream(request, turn, completion, include_usage=include_usage)
    result = await request.config_dict[keys.AGENT].process(turn)
    usage = turn_usage(result)
    answer = completion.answer(result.reply, usage)
    answer.needs_confirmation = result.needs_confirmation
    return web.json_response(answer.model_dump(mode="json"))


async def models_view(request: web.Request) -> web.Response:
    """``GET /v1/models``: the home agent is the only model."""
    return web.json_response(ModelList(data=[ModelOut()]).model_dump(mode="json"))


async def model_view(request: web.Request) -> web.Response:
    """``GET /v1/models/{model}``: the home agent, or OpenAI's 404 for any other name."""
    name = request.match_info["model"]
    if name != ModelOut().id:
        raise RequestProblem(
            404, "model_not_found", f"The model '{name}' does not exist", field="model"
        )
    return web.json_response(ModelOut().model_dump(mode="json"))


def last_utterance(messages: list[ChatMessage]) -> str:
    """The text of the last user message, refused when an answer to it follows.

    An assistant or tool message after it means the client is mid tool loop with some other model;
    answering that user message again would repeat whatever it asked the home to do.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role in ("assistant", "tool", "function"):
            break
        if message.role != "user":
            continue
        where = field_path(["messages", index, "content"])
        text = (message.content or "").strip()
        if not text:
            raise RequestProblem(400, "invalid_value", f"'{where}' has no text", field=where)
        if len(text) > MAX_TEXT:
            raise RequestProblem(
                400,
                "string_too_long",
                f"'{where}' is longer than {MAX_TEXT} characters",
                field=where,
            )
        return text
    raise RequestProblem(
        400,
        "invalid_value",
        "'messages' must end with a user message: the home agent answers the last thing the "
        "user said and returns no tool calls",
        field="messages",
    )


def conversation_for(user: str | None) -> str | None:
    """A stable agent conversation id for the client's ``user``, or None for a new conversation.

    Hashed so any string is a safe id of fixed length, and the client's identifier is not stored
    as is.
    """
    if not user:
        return None
    return "openai-" + hashlib.sha256(user.encode()).hexdigest()[:32]


def turn_usage(result: ConversationResult) -> Usage:
    """The tokens the turn spent, as OpenAI reports usage."""
    prompt, completion = result.prompt_tokens, result.completion_tokens
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


@dataclass(frozen=True, slots=True)
class _Completion:
    """What every chunk and the answer of one completion share."""

    id: str
    created: int
    model: str

    def answer(self, reply: str, usage: Usage) -> ChatCompletionOut:
        return ChatCompletionOut(
            id=self.id,
            created=self.created,
            model=self.model,
            choices=[Choice(message=AssistantMessage(content=reply))],
            usage=usage,
        )

    def chunk(
        self,
        delta: Delta | None,
        *,
        include_usage: bool,
        usage: Usage | None = None,
        finish: bool = False,
    ) -> str:
        """One ``data:`` payload; ``delta=None`` is the usage-only chunk with no choices."""
        choices = (
            []
            if delta is None
            else [ChunkChoice(delta=delta, finish_reason="stop" if finish else None)]
        )
        data = ChatCompletionChunk(
            id=self.id, created=self.created, model=self.model, choices=choices, usage=usage
        ).model_dump(mode="json", exclude=None if include_usage else {"usage"})
        # OpenAI's deltas carry only what changes: {"content": "…"}, not {"role": null, …}.
        for choice in data["choices"]:
            choice["delta"] = {k: v for k, v in choice["delta"].items() if v is not None}
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


async def _stream(
    request: web.Request,
    turn: ConversationRequest,
    completion: _Completion,
    *,
    include_usage: bool,
) -> web.StreamResponse:
    stream = EventStream(request)
    await stream.open()
    await stream.send(
        completion.chunk(Delta(role="assistant", content=""), include_usage=include_usage)
    )

    async def send_text(text: str) -> None:
        await stream.send(completion.chunk(Delta(content=text), include_usage=include_usage))

    try:
        result = await process_streaming(request.config_dict[keys.AGENT], turn, send_text)
        usage = turn_usage(result)
    except Exception:  # the headers are sent; the client raises on an error event instead
        _LOGGER.exception(
            "Streamed completion %s failed (conversation %s, from %s)",
            completion.id,
            turn.conversation_id or "new",
            request.remote,
        )
        error = {
            "message": INTERNAL_MESSAGE,
            "type": "server_error",
            "param": None,
            "code": "internal",
        }
        await stream.send(json.dumps({"error": error}))
    else:
        await stream.send(completion.chunk(Delta(), include_usage=include_usage, finish=True))
        if include_usage:
            await stream.send(completion.chunk(None, include_usage=True, usage=usage))
    await stream.send("[DONE]")
    return await stream.close()


async def _parse(request: web.Request) -> ChatCompletionIn:
    return await read_model(request, ChatCompletionIn, limit=BODY_LIMIT, refusal=invalid_value)
