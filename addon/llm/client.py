"""The model endpoint: one ``AsyncOpenAI`` client over any OpenAI-compatible server.

This module only converts formats and translates errors; the tool loop lives in
:mod:`addon.agent.loop`. Retries on 429, 5xx and dropped connections are the openai package's own
(exponential backoff with jitter, honouring ``Retry-After``), so every caller gets them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from addon.errors import LLMError
from addon.health import ComponentHealth

_LOGGER = logging.getLogger(__name__)
PROBE_CACHE_S = 30.0
# Requests go through the client's documented low-level ``post`` with a body that is already
# plain JSON: ``chat.completions.create`` would first walk every message and tool to transform
# typed parameters (1-2 ms of CPU per call for a large home), which our dicts do not need.
# Retries, timeouts, error types and response parsing are the client's as usual.
CHAT_PATH = "/chat/completions"
TextSink = Callable[[str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call as the model asked for it; ``arguments`` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(slots=True)
class Completion:
    """What one request to the model produced, with the figures a trace shows."""

    content: str
    tool_calls: list[ToolCallRequest]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    ttft_ms: float | None
    duration_ms: float
    streamed: bool

    def assistant_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation, in OpenAI format."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


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
        max_retries: int = 2,
    ) -> None:
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
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
    ) -> Completion:
        """Ask the model once; raise :class:`LLMError` with a readable reason on failure."""
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self._temperature,
        }
        if tools:
            request["tools"] = tools
        started = time.perf_counter()
        try:
            if stream:
                return await self._stream(request, started, on_text)
            response = await self._client.post(
                CHAT_PATH, body=request, cast_to=ChatCompletion, stream=False
            )
        except openai.APITimeoutError as err:
            raise LLMError(f"the model did not answer within {self._timeout:.0f} s") from err
        except openai.APIConnectionError as err:
            raise LLMError(f"cannot reach the model endpoint at {self.base_url}") from err
        except openai.APIStatusError as err:
            raise LLMError(
                f"the model endpoint answered {err.status_code}: {_message(err)}"
            ) from err
        except openai.OpenAIError as err:
            raise LLMError(f"the model endpoint failed: {err}") from err
        duration = (time.perf_counter() - started) * 1000
        if not response.choices:
            raise LLMError("the model endpoint answered with no choices")
        choice = response.choices[0]
        calls = [
            ToolCallRequest(call.id, call.function.name, call.function.arguments or "")
            for call in (choice.message.tool_calls or [])
            if call.type == "function"
        ]
        usage = response.usage
        return Completion(
            content=choice.message.content or "",
            tool_calls=calls,
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            ttft_ms=duration,
            duration_ms=duration,
            streamed=False,
        )

    async def _stream(
        self, request: dict[str, Any], started: float, on_text: TextSink | None
    ) -> Completion:
        stream = await self._client.post(
            CHAT_PATH,
            body={**request, "stream": True, "stream_options": {"include_usage": True}},
            cast_to=ChatCompletion,
            stream=True,
            stream_cls=openai.AsyncStream[ChatCompletionChunk],
        )
        text: list[str] = []
        calls: dict[int, _StreamedCall] = {}
        finish_reason: str | None = None
        ttft_ms: float | None = None
        prompt_tokens = completion_tokens = 0
        async for chunk in stream:
            if chunk.usage is not None:
                prompt_tokens = chunk.usage.prompt_tokens
                completion_tokens = chunk.usage.completion_tokens
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            delta = choice.delta
            if ttft_ms is None and (delta.content or delta.tool_calls):
                ttft_ms = (time.perf_counter() - started) * 1000
            if delta.content:
                text.append(delta.content)
                if on_text is not None:
                    await on_text(delta.content)
            for call_delta in delta.tool_calls or []:
                call = calls.setdefault(call_delta.index, _StreamedCall())
                if call_delta.id:
                    call.id = call_delta.id
                if call_delta.function is not None:
                    if call_delta.function.name:
                        call.name += call_delta.function.name
                    if call_delta.function.arguments:
                        call.arguments.append(call_delta.function.arguments)
            if choice.finish_reason:
                finish_reason = choice.finish_reason
        return Completion(
            content="".join(text),
            tool_calls=[
                ToolCallRequest(call.id or f"call_{index}", call.name, "".join(call.arguments))
                for index, call in sorted(calls.items())
            ],
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


def _message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:300]
    return str(err.message)[:300]
