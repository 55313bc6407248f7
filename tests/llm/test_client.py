"""The model client against servers that answer in the odd ways real ones do.

Each test serves one fixed answer from a real aiohttp server on loopback and asks through the
real openai client underneath :class:`LLMClient`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from addon.errors import ErrorKind, LLMError
from addon.llm.client import LLMClient
from addon.llm.messages import UserMessage, request_body
from addon.text import ToolSpecs

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Serve = Callable[[Handler], Awaitable[LLMClient]]
MESSAGES = [UserMessage("hi")]


@pytest.fixture
async def serve(aiohttp_server: Callable[..., Awaitable[TestServer]]) -> AsyncIterator[Serve]:
    """A client whose endpoint answers every chat and embeddings request with ``handler``."""
    clients: list[LLMClient] = []

    async def start(handler: Handler) -> LLMClient:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", handler)
        app.router.add_post("/v1/embeddings", handler)
        server = await aiohttp_server(app)
        client = LLMClient(
            base_url=str(server.make_url("/v1")),
            api_key="",
            model="m",
            temperature=0.0,
            timeout=5.0,
            max_retries=0,
        )
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.close()


async def events(request: web.Request, *chunks: str) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    for chunk in chunks:
        await response.write(chunk.encode())
    await response.write_eof()
    return response


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n"


async def test_content_given_as_text_parts_is_read_as_text(serve: Serve) -> None:
    """Some servers send ``content`` as a list of text parts; the reply is their text."""

    async def answer(_request: web.Request) -> web.Response:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": "Hel"}, {"text": "lo"}],
        }
        return web.json_response({"choices": [{"message": message, "finish_reason": "stop"}]})

    completion = await (await serve(answer)).complete(MESSAGES, [])
    assert completion.content == "Hello"
    assert (completion.prompt_tokens, completion.completion_tokens) == (0, 0)


async def test_an_answer_that_is_not_json_is_a_clear_error(serve: Serve) -> None:
    """A proxy's HTML page with status 200 fails the call with a reason, not a crash."""

    async def answer(_request: web.Request) -> web.Response:
        return web.Response(text="<html>Bad gateway</html>", content_type="application/json")

    with pytest.raises(LLMError, match="not JSON"):
        await (await serve(answer)).complete(MESSAGES, [])


async def test_no_choices_is_a_clear_error(serve: Serve) -> None:
    """An empty ``choices`` list says so."""

    async def answer(_request: web.Request) -> web.Response:
        return web.json_response({"choices": []})

    with pytest.raises(LLMError, match="no choices"):
        await (await serve(answer)).complete(MESSAGES, [])


async def test_a_stream_reassembles_text_and_tool_calls_past_comments(serve: Serve) -> None:
    """Keep-alive comments are skipped; text and argument pieces are joined in order."""

    async def answer(request: web.Request) -> web.StreamResponse:
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "HassTurnOn"}}
        return await events(
            request,
            ": keep-alive\n\n",
            chunk({"role": "assistant", "content": "On "}),
            chunk({"content": "it goes."}),
            chunk({"tool_calls": [call]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"name": '}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Lamp"}'}}]}),
            chunk({}, finish="tool_calls"),
            'data: {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}}\n\n',
            "data: [DONE]\n\n",
        )

    spoken: list[str] = []

    async def on_text(text: str) -> None:
        spoken.append(text)

    completion = await (await serve(answer)).complete(MESSAGES, [], stream=True, on_text=on_text)
    assert spoken == ["On ", "it goes."]
    assert completion.content == "On it goes."
    assert [(c.id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("call_1", "HassTurnOn", '{"name": "Lamp"}')
    ]
    assert completion.finish_reason == "tool_calls"
    assert (completion.prompt_tokens, completion.completion_tokens) == (12, 3)
    assert completion.streamed
    assert completion.ttft_ms is not None


async def test_an_error_event_in_the_stream_fails_the_call(serve: Serve) -> None:
    """A server that reports an error mid-stream (vLLM, OpenRouter do) gives its message."""

    async def answer(request: web.Request) -> web.StreamResponse:
        return await events(
            request,
            chunk({"content": "Par"}),
            'data: {"error": {"message": "the backend crashed"}}\n\n',
        )

    with pytest.raises(LLMError, match="the backend crashed"):
        await (await serve(answer)).complete(MESSAGES, [], stream=True)


async def test_a_stream_cut_off_mid_answer_is_a_clear_error(serve: Serve) -> None:
    """The connection dropping in the middle of the body fails the call, never hangs it."""

    async def answer(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Content-Length": "100000"}
        )
        await response.prepare(request)
        await response.write(chunk({"content": "Par"}).encode())
        assert request.transport is not None
        request.transport.close()
        return response

    with pytest.raises(LLMError):
        await (await serve(answer)).complete(MESSAGES, [], stream=True)


STATUS_KINDS = {
    "openai's unknown model": (
        404,
        {"message": "The model `m` does not exist.", "code": "model_not_found"},
        ErrorKind.LLM_MODEL_NOT_FOUND,
    ),
    "ollama's unknown model": (
        404,
        {"message": 'model "m" not found, try pulling it first'},
        ErrorKind.LLM_MODEL_NOT_FOUND,
    ),
    "a wrong path": (404, {"message": "Not found."}, ErrorKind.LLM_FAILED),
    "a wrong key": (401, {"message": "Incorrect API key provided."}, ErrorKind.LLM_AUTH),
    "rate limiting": (429, {"message": "Rate limit reached."}, ErrorKind.LLM_RATE_LIMITED),
    "a server error": (503, {"message": "Overloaded."}, ErrorKind.LLM_FAILED),
}


@pytest.mark.parametrize(
    ("status", "error", "kind"), STATUS_KINDS.values(), ids=STATUS_KINDS.keys()
)
async def test_an_error_status_is_translated_to_its_kind(
    serve: Serve, status: int, error: dict[str, str], kind: ErrorKind
) -> None:
    """Each status gets the kind that says what to fix; a 404 is the model's only if it says so."""

    async def answer(_request: web.Request) -> web.Response:
        return web.json_response({"error": error}, status=status)

    with pytest.raises(LLMError) as raised:
        await (await serve(answer)).complete(MESSAGES, [])
    assert raised.value.kind is kind
    assert error["message"] in str(raised.value)


async def test_the_body_is_what_the_openai_package_would_send(serve: Serve) -> None:
    """The tool list's own text is set into the body: same bytes, same headers, both calls."""
    from openai._utils._json import openapi_dumps

    seen: list[tuple[bytes, str]] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append((await request.read(), request.headers["Content-Type"]))
        return web.json_response({"choices": [{"message": {"content": "ok"}}]})

    tools = ToolSpecs([{"type": "function", "function": {"name": "Licht", "description": "Höhe"}}])
    client = await serve(answer)
    for _ in range(2):
        await client.complete(MESSAGES, tools)
    expected = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.0,
        "tools": list(tools),
    }
    assert seen == [(openapi_dumps(expected), "application/json")] * 2
    assert request_body(expected) == openapi_dumps(expected)  # a plain list, serialised whole


async def test_an_embedding_that_is_not_numbers_is_a_clear_error(serve: Serve) -> None:
    """An embedding holding something other than numbers is refused as LLMError, not a crash."""

    async def answer(_request: web.Request) -> web.Response:
        item = {"object": "embedding", "index": 0, "embedding": [0.5, {"x": 1}]}
        return web.json_response({"data": [item]})

    client = await serve(answer)
    with pytest.raises(LLMError, match="where a number belongs"):
        await client.embed(["hi"], model="m")
