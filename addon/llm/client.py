"""The model endpoint: one ``AsyncOpenAI`` client over any OpenAI-compatible server.

This module only converts formats and translates errors; the tool loop lives in
:mod:`addon.agent.loop`. Retries on 429, 5xx and dropped connections are the openai package's own
(exponential backoff with jitter, honouring ``Retry-After``), so every caller gets them.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from addon.errors import (
    LLMError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnreachableError,
)
from addon.health import ComponentHealth
from addon.llm.failures import refused, root_cause, status_error
from addon.llm.messages import (
    AssistantMessage,
    ChatMessage,
    RequestBody,
    ToolCallRequest,
    request_body,
    to_wire,
    wire_messages,
)
from addon.llm.speech_filter import SpeechFilter, filter_text
from addon.llm.sse import event_data
from addon.llm.text_calls import TextCall, read_reply
from addon.logs import scrub
from addon.text import JsonArray, JsonObject, JsonValue, ToolSpecs

_LOGGER = logging.getLogger(__name__)
PROBE_CACHE_S = 30.0
DEFAULT_RETRIES = 2
"""The openai package's own retries of a 429, a 5xx or a dropped connection."""
# Requests go through the client's documented low-level ``post`` with a body that is already
# plain JSON: ``chat.completions.create`` would first walk every message and tool to transform
# typed parameters (1-2 ms of CPU per call for a large home), which our dicts do not need.
# Retries, timeouts and error types are the client's as usual.
CHAT_PATH = "/chat/completions"
EMBEDDINGS_PATH = "/embeddings"
# Answers are read raw (the documented ``cast_to=httpx.Response`` of the low-level calls) and
# parsed with ``json.loads``: building the package's typed response objects was most of its
# CPU per call. A streamed answer needs the package's raw-stream header so the body is not read
# before it is returned; it is the header ``with_streaming_response`` sets.
RAW_STREAM_HEADER = "X-Stainless-Raw-Response"
TextSink = Callable[[str], Awaitable[None]]


@dataclass(slots=True)
class Completion:
    """What one request to the model produced, with the figures a trace shows.

    ``content`` is what may be spoken: reasoning and tool calls written as text are taken out
    (:mod:`addon.llm.speech_filter`); ``raw_content`` is the text as the model wrote it and
    ``reasoning`` its ``<think>`` text and ``reasoning_content``, kept for the trace only.
    """

    content: str
    tool_calls: list[ToolCallRequest]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    ttft_ms: float | None
    duration_ms: float
    streamed: bool
    reasoning: str = ""
    raw_content: str = ""

    def assistant_message(self) -> AssistantMessage:
        """The assistant message to append to the conversation."""
        return AssistantMessage(self.content or None, tuple(self.tool_calls))

    def traced(self) -> JsonObject:
        """The answer as a trace keeps it: the message as sent back, and what was not spoken.

        Reasoning and the text as written, which the listener never gets, are kept here; so
        are the ids of the calls read from the text ("recovered from text" on the trace page).
        """
        response = to_wire(self.assistant_message())
        if self.reasoning:
            response["reasoning"] = self.reasoning
        if self.raw_content.strip() != self.content.strip():
            response["raw_content"] = self.raw_content
        recovered: list[JsonValue] = [call.id for call in self.tool_calls if call.recovered]
        if recovered:
            response["recovered_from_text"] = recovered
        return response


@dataclass(slots=True)
class _StreamedCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class LLMClient:
    """Chat completions with tool calling, streamed or not, over a configured endpoint."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        temperature: float,
        timeout: float,
        max_retries: int = DEFAULT_RETRIES,
    ) -> None:
        # Imported here, not with the module: the package is a fifth of the add-on's memory at
        # start, and an add-on with no model configured never builds a client.
        import openai

        self.model = model
        self.base_url = base_url
        self._temperature = temperature
        # Local servers (Ollama, llama.cpp) accept any key but the client insists on one.
        # The package's aiohttp transport (its ``aiohttp`` extra) rather than its default
        # httpx one: aiohttp is already the add-on's HTTP stack, and it costs about half the
        # CPU per request, which is what bounds many conversations at once (bench/concurrency.py).
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=max_retries,
            http_client=openai.DefaultAioHttpClient(timeout=timeout),
        )
        self._timeout = timeout
        self._probe: tuple[float, ComponentHealth] | None = None

    async def close(self) -> None:
        """Release the HTTP connection pool."""
        await self._client.close()

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: list[JsonObject],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        response_format: JsonObject | None = None,
    ) -> Completion:
        """Ask the model once; raise :class:`LLMError` with a readable reason on failure.

        ``response_format`` is sent as given (e.g. a strict ``json_schema``); an endpoint that
        does not support it answers 400, which the caller may take as the cue to fall back.
        """
        request: dict[str, JsonValue | ToolSpecs] = {
            "model": self.model,
            "messages": [*wire_messages(messages)],
            "temperature": self._temperature,
        }
        if response_format is not None:
            request["response_format"] = response_format
        if tools:
            request["tools"] = tools if isinstance(tools, ToolSpecs) else ToolSpecs(tools)
        started = time.perf_counter()
        import httpx2  # loaded by the constructor already; see there
        import openai

        try:
            if stream:
                return await self._stream(request, started, on_text, calls=bool(tools))
            response = await self._client.post(
                CHAT_PATH, content=request_body(request), cast_to=httpx2.Response
            )
            body = _json_object(response.content)
        except openai.APITimeoutError as err:
            if refused(err):
                raise LLMUnreachableError(
                    f"cannot reach the model endpoint at {self.base_url}: {root_cause(err)}"
                ) from err
            raise LLMTimeoutError(f"the model did not answer within {self._timeout:.0f} s") from err
        except openai.APIConnectionError as err:
            raise LLMUnreachableError(
                f"cannot reach the model endpoint at {self.base_url}"
            ) from err
        except openai.APIStatusError as err:
            raise status_error(err, self.model, self._client.api_key) from err
        except openai.OpenAIError as err:
            raise LLMError(f"the model endpoint failed: {err}") from err
        except httpx2.HTTPError as err:
            raise LLMServerError(f"the model endpoint's answer broke off: {err}") from err
        duration = (time.perf_counter() - started) * 1000
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LLMError("the model endpoint answered with no choices")
        choice = choices[0]
        message = _mapping(choice.get("message"))
        calls = [
            ToolCallRequest(
                str(call.get("id") or f"call_{index}"),
                str(_mapping(call.get("function")).get("name") or ""),
                str(_mapping(call.get("function")).get("arguments") or ""),
            )
            for index, call in enumerate(_list(message.get("tool_calls")))
            if isinstance(call, dict) and call.get("type", "function") == "function"
        ]
        prompt_tokens, completion_tokens = _usage(body)
        raw = _text(message.get("content"))
        filtered = filter_text(raw, calls=bool(tools))
        read = read_reply(
            filtered.speech,
            filtered.reasoning,
            _reasoning(message),
            filtered.calls,
            calls=bool(tools),
        )
        return Completion(
            content=read.speech,
            tool_calls=calls or _recovered(read.calls),
            reasoning=read.reasoning,
            raw_content=raw,
            finish_reason=_optional_str(choice.get("finish_reason")),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            ttft_ms=duration,
            duration_ms=duration,
            streamed=False,
        )

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        """One vector per text from the endpoint's ``/v1/embeddings``, in the order given.

        Asked for as plain floats so no decoding (or numpy, in the openai package) is involved.
        """
        request = {"model": model, "input": texts, "encoding_format": "float"}
        import httpx2  # loaded by the constructor already; see there
        import openai

        try:
            response = await self._client.post(
                EMBEDDINGS_PATH, body=request, cast_to=httpx2.Response
            )
            body = _json_object(response.content)
        except openai.APITimeoutError as err:
            raise LLMTimeoutError(
                f"the embeddings did not come within {self._timeout:.0f} s"
            ) from err
        except openai.APIConnectionError as err:
            raise LLMUnreachableError(
                f"cannot reach the model endpoint at {self.base_url}"
            ) from err
        except openai.APIStatusError as err:
            raise status_error(err, model, self._client.api_key) from err
        except (openai.OpenAIError, httpx2.HTTPError) as err:
            raise LLMError(f"the embeddings endpoint failed: {err}") from err
        items = sorted(
            (item for item in _list(body.get("data")) if isinstance(item, dict)),
            key=lambda item: int(_number(item.get("index") or 0)),
        )
        vectors = [[float(_number(v)) for v in _list(item.get("embedding"))] for item in items]
        if len(vectors) != len(texts) or any(not vector for vector in vectors):
            raise LLMError(f"the endpoint gave {len(vectors)} embeddings for {len(texts)} texts")
        return vectors

    async def _stream(
        self, request: RequestBody, started: float, on_text: TextSink | None, *, calls: bool
    ) -> Completion:
        """Stream the answer, passing on only speech (:class:`SpeechFilter`)."""
        import httpx2  # loaded by the constructor already; see there

        response = await self._client.post(
            CHAT_PATH,
            content=request_body(
                {**request, "stream": True, "stream_options": {"include_usage": True}}
            ),
            cast_to=httpx2.Response,
            options={"headers": {RAW_STREAM_HEADER: "stream"}},
        )
        text: list[str] = []
        reasoning: list[str] = []
        speech = SpeechFilter(calls=calls)
        streamed_calls: dict[int, _StreamedCall] = {}
        finish_reason: str | None = None
        ttft_ms: float | None = None
        prompt_tokens = completion_tokens = 0
        try:
            async for data in event_data(response.aiter_lines()):
                if data.startswith("[DONE]"):
                    break
                chunk = _json_object(data.encode())
                if chunk.get("error"):
                    failure = _error_text(chunk, self._client.api_key)
                    raise LLMServerError(f"the model endpoint failed mid-answer: {failure}")
                if chunk.get("usage"):
                    prompt_tokens, completion_tokens = _usage(chunk)
                choices = _list(chunk.get("choices"))
                if not choices or not isinstance(choices[0], dict):
                    continue
                choice = choices[0]
                delta = _mapping(choice.get("delta"))
                content = delta.get("content")
                tool_deltas = _list(delta.get("tool_calls"))
                if ttft_ms is None and (content or tool_deltas):
                    ttft_ms = (time.perf_counter() - started) * 1000
                reasoning.append(_reasoning(delta))
                if isinstance(content, str) and content:
                    text.append(content)
                    said = speech.push(content)
                    if said and on_text is not None:
                        await on_text(said)
                for position, call_delta in enumerate(tool_deltas):
                    if not isinstance(call_delta, dict):
                        continue
                    index = call_delta.get("index", position)
                    call = streamed_calls.setdefault(
                        index if isinstance(index, int) else position, _StreamedCall()
                    )
                    if call_delta.get("id"):
                        call.id = str(call_delta["id"])
                    function = _mapping(call_delta.get("function"))
                    if function.get("name"):
                        call.name += str(function["name"])
                    if function.get("arguments"):
                        call.arguments.append(str(function["arguments"]))
                if choice.get("finish_reason"):
                    finish_reason = str(choice["finish_reason"])
        finally:
            await response.aclose()
        tail, filtered = speech.finish()
        if tail and on_text is not None:
            await on_text(tail)
        read = read_reply(
            filtered.speech, filtered.reasoning, "".join(reasoning), filtered.calls, calls=calls
        )
        native = [
            ToolCallRequest(call.id or f"call_{index}", call.name, "".join(call.arguments))
            for index, call in sorted(streamed_calls.items())
        ]
        return Completion(
            content=read.speech,
            tool_calls=native or _recovered(read.calls),
            reasoning=read.reasoning,
            raw_content="".join(text),
            finish_reason=finish_reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            ttft_ms=ttft_ms,
            duration_ms=(time.perf_counter() - started) * 1000,
            streamed=True,
        )

    async def health(self) -> ComponentHealth:
        """List the endpoint's models (cached briefly) to tell whether it answers."""
        now = time.monotonic()
        if self._probe is not None and now - self._probe[0] < PROBE_CACHE_S:
            return self._probe[1]
        import openai  # loaded by the constructor already; see there

        try:
            models = await self._client.with_options(max_retries=0, timeout=5.0).models.list()
            names = [model.id for model in models.data]
            if names and self.model not in names:
                result = ComponentHealth(
                    "degraded", f"{self.base_url} answers but does not list model {self.model!r}"
                )
            else:
                result = ComponentHealth("ok", f"{self.model} at {self.base_url}")
        except openai.OpenAIError as err:
            result = ComponentHealth("degraded", f"{self.base_url}: {type(err).__name__}")
        self._probe = (now, result)
        return result


def _json_object(raw: bytes) -> JsonObject:
    """A JSON object from the endpoint, or :class:`LLMError` saying what came instead."""
    try:
        value = json.loads(raw)
    except ValueError as err:
        raise LLMError(
            f"the model endpoint answered with something that is not JSON: {err}"
        ) from err
    if not isinstance(value, dict):
        raise LLMError("the model endpoint answered with JSON that is not an object")
    return value


def _mapping(value: object) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> JsonArray:
    return value if isinstance(value, list) else []


def _number(value: JsonValue) -> int | float | str:
    """An embedding's number (or its index) as the endpoint wrote it; anything else refused."""
    if isinstance(value, int | float | str):
        return value
    raise LLMError(f"the embeddings endpoint answered with {value!r} where a number belongs")


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _text(content: object) -> str:
    """Message content as text; some servers send a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _reasoning(message: JsonObject) -> str:
    """A message's or delta's reasoning, never to be spoken.

    ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning`` (Ollama's and
    OpenRouter's OpenAI endpoints).
    """
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _recovered(calls: Iterable[TextCall]) -> list[ToolCallRequest]:
    """Calls read from the text, with ids of their own (the model gave none)."""
    return [
        ToolCallRequest(f"call_{uuid.uuid4().hex[:24]}", call.name, call.arguments, recovered=True)
        for call in calls
    ]


def _usage(body: JsonObject) -> tuple[int, int]:
    usage = _mapping(body.get("usage"))
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) else 0,
        completion if isinstance(completion, int) else 0,
    )


def _error_text(chunk: JsonObject, api_key: str) -> str:
    error = chunk.get("error")
    message = error.get("message") if isinstance(error, dict) else error
    return scrub(str(message), [api_key])[:300] if message else "an error occurred while streaming"
