"""A scripted stand-in for an OpenAI-compatible chat API, served over real HTTP on loopback.

We cannot run a capable model in tests or benchmarks, so we fake it at the protocol boundary: the
agent talks to this server through the real ``openai`` client, exactly as it would talk to a real
provider, and each test scripts the answers. Nothing above the socket is mocked, so the agent's
request building, streaming, retry and timeout handling all run for real.

Shapes follow ``openai/types/chat/chat_completion.py`` and ``chat_completion_chunk.py``. Requests
are also checked against the rules the real API enforces (tool messages must answer tool calls,
tool names must match ``^[a-zA-Z0-9_-]+$``…), because an agent that passes here but gets a 400
from the real service would be a test that lies.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import inspect
import itertools
import json
import math
import re
import socket
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

from aiohttp import web
from aiohttp.typedefs import Handler
from multidict import CIMultiDict, CIMultiDictProxy

FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]
CHAT_PATH = "/v1/chat/completions"
FINGERPRINT = "fp_scripted"
# One streamed delta per word-ish piece: long enough to read, short enough that arguments and
# text always arrive split over several chunks, as a real model's tokens do.
_PIECE = re.compile(r"\s*\S{1,8}|\s+")
_WORD = re.compile(r"\w+")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# What OpenAI answers for each status when a test does not say; (type, code, message).
_ERROR_DEFAULTS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Bad request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_error", None, "You are not allowed to sample from this model."),
    404: ("invalid_request_error", None, "Not found."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests."),
    500: (
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call the model asks for; a ``str`` of arguments is sent verbatim."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    @property
    def arguments_json(self) -> str:
        """Arguments as the wire carries them; raw strings let tests send malformed JSON."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Completion:
    """A successful model answer: text, tool calls, or both.

    ``delay`` is the time before the first byte (time to first token); ``chunk_delay`` spaces
    streamed chunks and does not apply to non-streaming answers. ``reasoning`` is sent as
    ``reasoning_content`` (DeepSeek's, vLLM's and llama.cpp's field), streamed before the text.
    """

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason | None = None
    usage: Mapping[str, int] | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    reasoning: str | None = None


TextCallStyle = Literal["hermes", "json", "mistral", "python_tag"]


def text_call(style: TextCallStyle, name: str, arguments: Mapping[str, Any] | str) -> str:
    """One tool call written as text, the way local model servers leave it in ``content``.

    Hermes/Qwen ``<tool_call>{…}</tool_call>``, a bare JSON object, Mistral
    ``[TOOL_CALLS][{…}]`` and Llama 3's ``<|python_tag|>{…}`` (with ``parameters``, as Llama's
    template writes it). A ``str`` of arguments goes in verbatim, so tests can send broken JSON.
    """
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    key = "parameters" if style == "python_tag" else "arguments"
    call = f'{{"name": {json.dumps(name)}, "{key}": {args}}}'
    if style == "hermes":
        return f"<tool_call>\n{call}\n</tool_call>"
    if style == "mistral":
        return f"[TOOL_CALLS] [{call}]"
    if style == "python_tag":
        return f"<|python_tag|>{call}<|eom_id|>"
    return call


@dataclass(frozen=True, slots=True)
class Failure:
    """An HTTP error answer with OpenAI's ``{"error": {...}}`` body; blanks get OpenAI's text."""

    status: int
    message: str | None = None
    type: str | None = None
    code: str | None = None
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def body(self) -> dict[str, Any]:
        """The JSON body, filling blanks the way OpenAI does for this status."""
        fallback = _ERROR_DEFAULTS[400 if self.status < 500 else 500]
        kind, code, message = _ERROR_DEFAULTS.get(self.status, fallback)
        return {
            "error": {
                "message": self.message or message,
                "type": self.type or kind,
                "param": self.param,
                "code": self.code or code,
            }
        }


Step = Completion | Failure
Responder = Callable[[dict[str, Any]], Step | Awaitable[Step]]


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """What the agent sent, kept so tests can assert on messages, tools, model and key."""

    method: str
    path: str
    headers: CIMultiDictProxy[str]
    body: dict[str, Any]
    received_at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages, or ``[]`` for requests that carry none."""
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool definitions offered to the model, or ``[]``."""
        return list(self.body.get("tools") or [])

    @property
    def api_key(self) -> str | None:
        """The bearer token from ``Authorization``, which is how the openai client sends it."""
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        return token if scheme.lower() == "bearer" and token else None


class ScriptedLLM:
    """An OpenAI-compatible server on 127.0.0.1 answering from a per-test script.

    Each chat request consumes the next scripted step; when the script is empty the ``default``
    (a step, or a responder computing one from the request JSON) answers; without a default the
    server answers 500 and notes the overrun in ``problems``. Requests are answered in their own
    tasks, so delays overlap and many conversations run at once.
    """

    def __init__(
        self,
        *,
        default: Step | Responder | None = None,
        require_api_key: str | None = None,
        models: Sequence[str] = ("scripted-model",),
        embedding_dimensions: int = 64,
        validate: bool = True,
    ) -> None:
        self.default = default
        self.require_api_key = require_api_key
        self.models = tuple(models)
        self.embedding_dimensions = embedding_dimensions
        self.validate = validate
        self.requests: list[RecordedRequest] = []
        # Script overruns, protocol violations and responder crashes: the fixture fails the test
        # on any of them, because an agent may swallow the 500 it got and still "pass".
        self.problems: list[str] = []
        self._script: deque[Step] = deque()
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # Scripting

    def then(self, *steps: Step) -> Self:
        """Append prebuilt steps; the chainable form behind ``reply``, ``tool_calls``, ``error``."""
        self._script.extend(steps)
        return self

    def reply(
        self,
        content: str,
        *,
        finish_reason: FinishReason | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
    ) -> Self:
        """Script a plain text answer."""
        return self.then(Completion(content, (), finish_reason, usage, delay, chunk_delay))

    def text_calls(
        self,
        style: TextCallStyle,
        *calls: tuple[str, Mapping[str, Any] | str],
        before: str = "",
        think: str | None = None,
        reasoning: str | None = None,
    ) -> Self:
        """Script an answer whose calls are in its text, not in ``tool_calls``.

        ``before`` is speech ahead of the calls; ``think`` is reasoning in ``<think>`` ahead of
        everything (put a :func:`text_call` in it, and no calls here, to script a call inside the
        reasoning); ``reasoning`` is sent as ``reasoning_content``.
        """
        written = "".join(text_call(style, name, arguments) for name, arguments in calls)
        head = f"<think>{think}</think>" if think is not None else ""
        return self.then(Completion(head + before + written, reasoning=reasoning))

    def tool_calls(
        self,
        *calls: ToolCall | tuple[str, Mapping[str, Any] | str],
        content: str | None = None,
        finish_reason: FinishReason | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
    ) -> Self:
        """Script one answer calling the given tools (parallel calls), optionally with text."""
        made = tuple(c if isinstance(c, ToolCall) else ToolCall(*c) for c in calls)
        return self.then(Completion(content, made, finish_reason, usage, delay, chunk_delay))

    def error(
        self,
        status: int = 500,
        message: str | None = None,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
    ) -> Self:
        """Script an HTTP error answer, e.g. ``error(429, headers={"retry-after": "0"})``."""
        return self.then(Failure(status, message, type, code, param, dict(headers or {}), delay))

    @property
    def remaining(self) -> int:
        """Scripted steps not yet consumed, so a test can assert the agent used them all."""
        return len(self._script)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Only the chat-completion requests, in arrival order."""
        return [r for r in self.requests if r.path == CHAT_PATH]

    def clear(self) -> None:
        """Forget script, records and problems, e.g. between benchmark rounds."""
        self._script.clear()
        self.requests.clear()
        self.problems.clear()

    # Lifecycle

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give the openai client, ``http://127.0.0.1:PORT/v1``."""
        if self._port is None:
            raise RuntimeError("ScriptedLLM is not started")
        return f"http://127.0.0.1:{self._port}/v1"

    async def start(self, *, port: int = 0) -> None:
        """Listen on a loopback port (a free one unless given)."""
        if self._runner is not None:
            raise RuntimeError("ScriptedLLM is already started")
        app = web.Application(middlewares=[_json_errors])
        app.router.add_post(CHAT_PATH, self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/v1/models/{model}", self._model)
        app.router.add_post("/v1/embeddings", self._embeddings)
        # Cancel a handler whose client hung up (a timed-out request would otherwise sleep on),
        # and do not let stop() wait a minute for one.
        runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5
        )
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", port))
        await web.SockSite(runner, sock, backlog=512).start()
        self._runner, self._port = runner, sock.getsockname()[1]

    async def stop(self) -> None:
        """Close the listener and any open connections; safe to call twice."""
        runner, self._runner, self._port = self._runner, None, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # Handlers

    async def _admit(self, request: web.Request) -> tuple[RecordedRequest, Failure | None]:
        """Record the request first, so even rejected or timed-out ones show up in tests."""
        raw = await request.read() if request.can_read_body else b""
        try:
            body = json.loads(raw) if raw else {}
            failure = None if isinstance(body, dict) else _bad_json()
        except ValueError:
            body, failure = {}, _bad_json()
        record = RecordedRequest(
            request.method,
            request.path,
            CIMultiDictProxy(CIMultiDict(request.headers)),
            body if isinstance(body, dict) else {},
            time.monotonic(),
        )
        self.requests.append(record)
        if self.require_api_key is not None and record.api_key != self.require_api_key:
            failure = _auth_failure(record.api_key)
        return record, failure

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        record, failure = await self._admit(request)
        if failure is None and self.validate:
            failure = _check_chat(record.body)
            if failure is not None:
                self.problems.append(f"request #{len(self.requests)}: {failure.message}")
        step = failure or await self._next_step(record)
        await asyncio.sleep(step.delay)
        if isinstance(step, Failure):
            return _error_response(step)
        model = str(record.body.get("model", self.models[0]))
        usage = _usage(record.body, step)
        if record.body.get("stream"):
            return await self._stream(request, record, step, model, usage)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": step.content,
            "refusal": None,
            "annotations": [],
        }
        if step.reasoning is not None:
            message["reasoning_content"] = step.reasoning
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": c.name, "arguments": a}}
                for i, c, a in self._wire_calls(step)
            ]
        choice = {"index": 0, "message": message, "logprobs": None}
        completion = {**self._envelope("chat.completion", model), "usage": usage}
        completion["choices"] = [{**choice, "finish_reason": _finish_reason(step)}]
        return _json(completion, headers=self._request_id())

    async def _next_step(self, record: RecordedRequest) -> Step:
        if self._script:
            return self._script.popleft()
        if self.default is None:
            last_user = next(
                (m.get("content") for m in reversed(record.messages) if m.get("role") == "user"),
                None,
            )
            message = (
                f"ScriptedLLM script exhausted: chat request #{len(self.chat_requests)} had no "
                f"scripted step left and no default is set (last user message: {last_user!r})"
            )
            self.problems.append(message)
            return Failure(500, message, code="script_exhausted")
        if isinstance(self.default, Completion | Failure):
            return self.default
        try:
            step = self.default(record.body)
            return await step if inspect.isawaitable(step) else step
        except Exception as err:  # a crashing responder must fail the test, not the server
            self.problems.append(f"ScriptedLLM responder raised {err!r}")
            return Failure(500, f"ScriptedLLM responder raised {err!r}")

    async def _stream(
        self,
        request: web.Request,
        record: RecordedRequest,
        step: Completion,
        model: str,
        usage: dict[str, Any],
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                **self._request_id(),
            }
        )
        await response.prepare(request)
        options = record.body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage"))
        envelope = self._envelope("chat.completion.chunk", model)
        if include_usage:
            envelope["usage"] = None  # OpenAI sends null on every chunk but the last
        for n, chunk in enumerate(self._chunks(envelope, step, usage, include_usage)):
            if n and step.chunk_delay:
                await asyncio.sleep(step.chunk_delay)
            await response.write(f"data: {_compact(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    def _chunks(
        self,
        envelope: dict[str, Any],
        step: Completion,
        usage: dict[str, Any],
        include_usage: bool,
    ) -> Iterator[dict[str, Any]]:
        """The chunk sequence OpenAI sends: role, text pieces, per call a header then fragments."""
        deltas: list[dict[str, Any]] = [
            {"reasoning_content": p} for p in _PIECE.findall(step.reasoning or "")
        ]
        if step.content is not None or not step.tool_calls:
            deltas.append({"role": "assistant", "content": "", "refusal": None})
            deltas.extend({"content": p} for p in _PIECE.findall(step.content or ""))
        for index, (call_id, call, arguments) in enumerate(self._wire_calls(step)):
            function = {"name": call.name, "arguments": ""}
            header = {"index": index, "id": call_id, "type": "function", "function": function}
            deltas.append({"tool_calls": [header]})
            deltas.extend(
                {"tool_calls": [{"index": index, "function": {"arguments": p}}]}
                for p in _PIECE.findall(arguments)
            )
        if "role" not in deltas[0]:  # a tool-only answer names the role on its first call
            deltas[0] = {"role": "assistant", "content": None, "refusal": None, **deltas[0]}
        deltas.append({})
        for n, delta in enumerate(deltas):
            finish = _finish_reason(step) if n == len(deltas) - 1 else None
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            yield {**envelope, "choices": [choice]}
        if include_usage:
            yield {**envelope, "choices": [], "usage": usage}

    def _wire_calls(self, step: Completion) -> Iterator[tuple[str, ToolCall, str]]:
        for call in step.tool_calls:
            yield call.id or f"call_{next(self._ids):024d}", call, call.arguments_json

    def _envelope(self, kind: str, model: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{next(self._ids):024d}",
            "object": kind,
            "created": int(time.time()),
            "model": model,
            "service_tier": "default",
            "system_fingerprint": FINGERPRINT,
        }

    def _request_id(self) -> dict[str, str]:
        return {"x-request-id": f"req_{next(self._ids):024d}"}

    async def _models(self, request: web.Request) -> web.Response:
        _, failure = await self._admit(request)
        if failure is not None:
            return _error_response(failure)
        data = [_model_entry(m) for m in self.models]
        return _json({"object": "list", "data": data})

    async def _model(self, request: web.Request) -> web.Response:
        _, failure = await self._admit(request)
        name = request.match_info["model"]
        if failure is None and name not in self.models:
            message = f"The model '{name}' does not exist"
            failure = Failure(404, message, param="model", code="model_not_found")
        if failure is not None:
            return _error_response(failure)
        return _json(_model_entry(name))

    async def _embeddings(self, request: web.Request) -> web.Response:
        record, failure = await self._admit(request)
        texts = _embedding_texts(record.body.get("input"))
        if failure is None and not texts:
            failure = Failure(400, "'input' must be a non-empty string or array", param="input")
        if failure is not None:
            return _error_response(failure)
        dims = int(record.body.get("dimensions") or self.embedding_dimensions)
        as_base64 = record.body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = _embed(text, dims)
            encoded = base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode()
            data.append(
                {
                    "object": "embedding",
                    "index": index,
                    "embedding": encoded if as_base64 else vector,
                }
            )
        tokens = sum(len(_WORD.findall(t)) or 1 for t in texts)
        return _json(
            {
                "object": "list",
                "data": data,
                "model": str(record.body.get("model", "")),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


@web.middleware
async def _json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Unknown routes answer in OpenAI's error shape, so the client raises its own errors."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error_response(
            Failure(exc.status, f"Invalid URL ({request.method} {request.path})")
        )


def _compact(value: Any) -> str:
    """JSON as OpenAI writes it: no spaces, UTF-8 left as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _json(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.json_response(data, status=status, headers=headers, dumps=_compact)


def _error_response(failure: Failure) -> web.Response:
    return _json(failure.body(), status=failure.status, headers=failure.headers)


def _bad_json() -> Failure:
    return Failure(400, "We could not parse the JSON body of your request.")


def _auth_failure(key: str | None) -> Failure:
    if key is None:
        return Failure(401, "You didn't provide an API key.")
    hint = f"{key[:3]}***{key[-4:]}" if len(key) > 8 else "***"
    return Failure(401, f"Incorrect API key provided: {hint}.", code="invalid_api_key")


def _model_entry(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 1700000000, "owned_by": "scripted"}


def _finish_reason(step: Completion) -> FinishReason:
    return step.finish_reason or ("tool_calls" if step.tool_calls else "stop")


def _usage(body: dict[str, Any], step: Completion) -> dict[str, Any]:
    """Scripted usage, else a rough count (4 characters a token) that grows with the prompt."""
    scripted = dict(step.usage or {})
    prompt_chars = len(json.dumps(body.get("messages", []))) + len(
        json.dumps(body.get("tools", []))
    )
    output = (step.content or "") + "".join(c.name + c.arguments_json for c in step.tool_calls)
    prompt = scripted.pop("prompt_tokens", math.ceil(prompt_chars / 4))
    completion = scripted.pop("completion_tokens", math.ceil(len(output) / 4))
    total = scripted.pop("total_tokens", prompt + completion)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
        **scripted,
    }


def _check_chat(body: dict[str, Any]) -> Failure | None:
    """The 400s the real API gives for malformed chat requests, with its wording."""
    messages = body.get("messages")
    if not body.get("model"):
        return _invalid("you must provide a model parameter", "model")
    if not isinstance(messages, list) or not messages:
        return _invalid("Invalid 'messages': expected a non-empty array.", "messages")
    if body.get("stream_options") is not None and not body.get("stream"):
        return _invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    if body.get("tool_choice") is not None and not body.get("tools"):
        return _invalid(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            "tool_choice",
        )
    for i, tool in enumerate(body.get("tools") or []):
        name = (tool.get("function") or {}).get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            where = f"tools[{i}].function.name"
            return _invalid(
                f"Invalid '{where}': string does not match pattern. Expected a string that "
                "matches the pattern '^[a-zA-Z0-9_-]+$'.",
                where,
                "invalid_value",
            )
    return _check_messages(messages)


def _check_messages(messages: list[Any]) -> Failure | None:
    """Roles and content types, and that every tool call is answered before the talk moves on."""
    pending: dict[str, int] = {}  # tool_call_id -> index of the assistant message asking
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _ROLES:
            return _invalid(f"Invalid value: {role!r}.", f"messages[{i}].role", "invalid_value")
        content = message.get("content")
        if not (isinstance(content, str | list) or (content is None and role == "assistant")):
            where = f"messages[{i}].content"
            return _invalid(
                f"Invalid type for '{where}': expected one of a string or array of objects.",
                where,
                "invalid_type",
            )
        if role == "tool":
            if pending.pop(str(message.get("tool_call_id")), None) is None:
                return _invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            continue
        if pending:
            break
        for j, call in enumerate(message.get("tool_calls") or []):
            if not isinstance(call.get("function", {}).get("arguments"), str):
                where = f"messages[{i}].tool_calls[{j}].function.arguments"
                return _invalid(f"Invalid type for '{where}': expected a string.", where)
            pending[str(call.get("id"))] = i
    if not pending:
        return None
    return _invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(pending),
        f"messages.[{min(pending.values())}].role",
    )


def _invalid(message: str, param: str, code: str | None = None) -> Failure:
    return Failure(400, message, type="invalid_request_error", code=code, param=param)


def _embedding_texts(value: Any) -> list[str]:
    """OpenAI accepts a string, strings, a token list or token lists; tokens hash as text."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value:
        return []
    if all(isinstance(v, int) for v in value):
        return [" ".join(map(str, value))]
    return [v if isinstance(v, str) else " ".join(map(str, v)) for v in value]


def _embed(text: str, dims: int) -> list[float]:
    """A unit vector summed from per-word hashes.

    Identical texts give identical vectors and texts sharing words point the same way, so
    memory-recall tests can rank by similarity without a real embedding model.
    """
    vector = [0.0] * dims
    for word in _WORD.findall(text.lower()) or [text]:
        for i, byte in enumerate(hashlib.shake_256(word.encode()).digest(dims)):
            vector[i] += byte / 127.5 - 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


async def serve(reply: str, delay: float, *, port: int = 0) -> None:
    """Answer every chat request with ``reply`` after ``delay`` seconds, until cancelled.

    The command-line form, for benchmarks that want the model in a process of its own, as a
    real model server is: the first line printed is the ``base_url``. Requests are not kept.
    """
    llm = ScriptedLLM(default=Completion(reply, delay=delay))
    await llm.start(port=port)
    print(llm.base_url, flush=True)  # noqa: T201 - the caller reads it
    try:
        while True:
            await asyncio.sleep(1.0)
            llm.requests.clear()
            if llm.problems:
                print("\n".join(llm.problems), flush=True)  # noqa: T201
                llm.problems.clear()
    finally:
        await llm.stop()


def main() -> None:
    """``python -m devtools.scripted_llm --reply ok --delay 0.2 [--port N]``."""
    import argparse

    parser = argparse.ArgumentParser(description=serve.__doc__)
    parser.add_argument("--reply", default="ok", help="the text every answer carries")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0, help="loopback port (default: any free)")
    arguments = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(arguments.reply, arguments.delay, port=arguments.port))


if __name__ == "__main__":
    main()
