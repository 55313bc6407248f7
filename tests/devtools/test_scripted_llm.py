"""The scripted model server, driven by the real ``openai`` client over loopback HTTP."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI
from openai.types.chat import (
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionToolParam,
)

from devtools.scripted_llm import Completion, ScriptedLLM

MODEL = "scripted-model"
ASK: list[Any] = [{"role": "user", "content": "Turn on the kitchen lights"}]
TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "HassTurnOn",
            "description": "Turns on a device",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    }
]


@pytest.fixture
async def client(scripted_llm: ScriptedLLM) -> AsyncIterator[AsyncOpenAI]:
    async with AsyncOpenAI(
        base_url=scripted_llm.base_url, api_key="sk-test", max_retries=0, timeout=5
    ) as made:
        yield made


async def collect(client: AsyncOpenAI, **kwargs: Any) -> list[ChatCompletionChunk]:
    stream = await client.chat.completions.create(model=MODEL, messages=ASK, stream=True, **kwargs)
    return [chunk async for chunk in stream]


def function_calls(message: ChatCompletionMessage) -> list[ChatCompletionMessageFunctionToolCall]:
    calls = message.tool_calls or []
    return [c for c in calls if isinstance(c, ChatCompletionMessageFunctionToolCall)]


async def test_reply_returns_text(scripted_llm: ScriptedLLM, client: AsyncOpenAI) -> None:
    """A scripted reply comes back as a parsed ChatCompletion with finish_reason stop."""
    scripted_llm.reply("The kitchen lights are on.")

    completion = await client.chat.completions.create(model=MODEL, messages=ASK)

    choice = completion.choices[0]
    assert choice.message.content == "The kitchen lights are on."
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "stop"
    assert completion.object == "chat.completion"
    assert completion.model == MODEL
    assert completion.usage is not None
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


async def test_steps_are_consumed_in_order(scripted_llm: ScriptedLLM, client: AsyncOpenAI) -> None:
    """Each request takes the next step, so a test scripts a whole conversation up front."""
    scripted_llm.reply("one").reply("two")

    first = await client.chat.completions.create(model=MODEL, messages=ASK)
    second = await client.chat.completions.create(model=MODEL, messages=ASK)

    assert [first.choices[0].message.content, second.choices[0].message.content] == ["one", "two"]
    assert scripted_llm.remaining == 0


async def test_tool_calls_are_returned(scripted_llm: ScriptedLLM, client: AsyncOpenAI) -> None:
    """Parallel tool calls arrive with ids, names, JSON-encoded arguments and tool_calls."""
    scripted_llm.tool_calls(
        ("HassTurnOn", {"name": "Kitchen Lights"}), ("HassTurnOff", {"name": "Fan"})
    )

    completion = await client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)

    choice = completion.choices[0]
    calls = function_calls(choice.message)
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert [(c.type, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("function", "HassTurnOn", {"name": "Kitchen Lights"}),
        ("function", "HassTurnOff", {"name": "Fan"}),
    ]
    assert len({c.id for c in calls}) == 2


async def test_streamed_text_reassembles(scripted_llm: ScriptedLLM, client: AsyncOpenAI) -> None:
    """Streamed text arrives over several content deltas that join to the scripted reply."""
    text = "The kitchen lights are on, and the fan is off."
    scripted_llm.reply(text)

    chunks = await collect(client)

    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert "".join(pieces) == text
    assert len(pieces) > 3
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks][-2:] == [None, "stop"]
    assert {c.id for c in chunks} == {chunks[0].id}


async def test_streamed_tool_call_arguments_reassemble(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """Each call opens with index, id, type and name, then its arguments arrive in fragments."""
    arguments = {"name": "Kitchen Lights", "brightness": 80, "area": "Kitchen"}
    scripted_llm.tool_calls(("HassTurnOn", arguments), ("HassTurnOff", {"name": "Fan"}))

    chunks = await collect(client, tools=TOOLS)

    deltas = [tc for c in chunks for tc in c.choices[0].delta.tool_calls or []]
    headers = [d for d in deltas if d.id is not None]
    assert [(h.index, h.type, h.function and h.function.name) for h in headers] == [
        (0, "function", "HassTurnOn"),
        (1, "function", "HassTurnOff"),
    ]
    fragments = [d.function.arguments for d in deltas if d.index == 0 and d.function]
    assert len([f for f in fragments if f]) > 2
    assert json.loads("".join(f or "" for f in fragments)) == arguments
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_include_usage_sends_final_usage_chunk(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """With include_usage, the last chunk has no choices and carries the usage; others have none."""
    scripted_llm.reply("Done.", usage={"prompt_tokens": 120, "completion_tokens": 3})

    chunks = await collect(client, stream_options={"include_usage": True})

    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.total_tokens) == (120, 123)
    assert all(c.usage is None for c in chunks[:-1])


async def test_stream_helper_assembles_final_completion(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """The SDK's own stream accumulator accepts the chunk sequence and rebuilds the answer."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lights"}), content="On it.")

    async with client.chat.completions.stream(model=MODEL, messages=ASK, tools=TOOLS) as stream:
        completion = await stream.get_final_completion()

    message = completion.choices[0].message
    assert message.content == "On it."
    assert [(c.function.name, c.function.arguments) for c in message.tool_calls or []] == [
        ("HassTurnOn", '{"name": "Kitchen Lights"}')
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_malformed_arguments_pass_through_verbatim(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI, stream: bool
) -> None:
    """A raw argument string is sent as is, to test how the agent copes with broken JSON."""
    broken = '{"name": "Kitchen Lights",'
    scripted_llm.tool_calls(("HassTurnOn", broken))

    if stream:
        chunks = await collect(client, tools=TOOLS)
        deltas = [tc for c in chunks for tc in c.choices[0].delta.tool_calls or []]
        received = "".join(d.function.arguments or "" for d in deltas if d.function)
    else:
        completion = await client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
        received = function_calls(completion.choices[0].message)[0].function.arguments

    assert received == broken


async def test_finish_reason_can_be_overridden(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """A scripted finish_reason replaces the natural one, e.g. length for a truncated answer."""
    scripted_llm.reply("The kitchen lights are", finish_reason="length")

    completion = await client.chat.completions.create(model=MODEL, messages=ASK)

    assert completion.choices[0].finish_reason == "length"


async def test_rate_limit_becomes_rate_limit_error(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """A scripted 429 raises RateLimitError with OpenAI's error body and the given headers."""
    scripted_llm.error(429, "Slow down", headers={"retry-after": "0"})

    with pytest.raises(openai.RateLimitError) as caught:
        await client.chat.completions.create(model=MODEL, messages=ASK)

    assert caught.value.body == {
        "message": "Slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    assert caught.value.response.headers["retry-after"] == "0"


async def test_server_error_becomes_internal_server_error(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """A scripted 500 raises InternalServerError with type server_error."""
    scripted_llm.error(500)

    with pytest.raises(openai.InternalServerError) as caught:
        await client.chat.completions.create(model=MODEL, messages=ASK)

    assert caught.value.type == "server_error"


async def test_client_retries_consume_following_steps(scripted_llm: ScriptedLLM) -> None:
    """A retrying client meets the next step, so a 429 then a reply tests recovery."""
    scripted_llm.error(429, headers={"retry-after-ms": "1"}).reply("Recovered.")

    async with AsyncOpenAI(base_url=scripted_llm.base_url, api_key="k", max_retries=1) as client:
        completion = await client.chat.completions.create(model=MODEL, messages=ASK)

    assert completion.choices[0].message.content == "Recovered."


async def test_delay_beyond_timeout_raises_timeout(scripted_llm: ScriptedLLM) -> None:
    """An answer slower than the client's timeout raises APITimeoutError."""
    scripted_llm.reply("Too late.", delay=5)

    async with AsyncOpenAI(
        base_url=scripted_llm.base_url, api_key="k", max_retries=0, timeout=0.3
    ) as client:
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model=MODEL, messages=ASK)


async def test_chunk_delay_spaces_streamed_chunks(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """The first chunk comes after ``delay`` and later ones ``chunk_delay`` apart."""
    scripted_llm.reply("one two three", delay=0.2, chunk_delay=0.1)
    started = time.monotonic()
    arrivals: list[float] = []

    stream = await client.chat.completions.create(model=MODEL, messages=ASK, stream=True)
    async for _chunk in stream:
        arrivals.append(time.monotonic() - started)

    assert arrivals[0] >= 0.19
    assert arrivals[-1] - arrivals[0] >= 0.1 * (len(arrivals) - 1) - 0.01


async def test_requests_are_recorded(scripted_llm: ScriptedLLM, client: AsyncOpenAI) -> None:
    """Tests can assert on the messages, tools, parameters and key the agent sent."""
    scripted_llm.reply("ok")

    await client.chat.completions.create(
        model="gpt-test", messages=ASK, tools=TOOLS, temperature=0.2
    )

    (sent,) = scripted_llm.requests
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.messages == ASK
    assert [t["function"]["name"] for t in sent.tools] == ["HassTurnOn"]
    assert (sent.body["model"], sent.body["temperature"]) == ("gpt-test", 0.2)
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.api_key == "sk-test"


async def test_exhausted_script_answers_clear_error() -> None:
    """Running out of script answers 500 naming the cause and notes it in ``problems``."""
    async with (
        ScriptedLLM() as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0) as client,
    ):
        with pytest.raises(openai.InternalServerError, match="script exhausted"):
            await client.chat.completions.create(model=MODEL, messages=ASK)

    assert len(llm.problems) == 1
    assert "Turn on the kitchen lights" in llm.problems[0]


async def test_default_step_answers_when_script_is_empty() -> None:
    """A fixed default answers every request the script does not cover."""
    async with (
        ScriptedLLM(default=Completion("ok")) as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0) as client,
    ):
        llm.reply("scripted")
        answers = [
            (await client.chat.completions.create(model=MODEL, messages=ASK))
            .choices[0]
            .message.content
            for _ in range(3)
        ]

    assert answers == ["scripted", "ok", "ok"]


async def test_responder_computes_answer_from_request() -> None:
    """An async responder sees the request JSON and returns the step to answer with."""

    async def echo(request: dict[str, Any]) -> Completion:
        await asyncio.sleep(0)
        return Completion(f"You said: {request['messages'][-1]['content']}")

    async with (
        ScriptedLLM(default=echo) as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0) as client,
    ):
        completion = await client.chat.completions.create(model=MODEL, messages=ASK)

    assert completion.choices[0].message.content == "You said: Turn on the kitchen lights"


async def test_wrong_api_key_gets_authentication_error() -> None:
    """With require_api_key, another key gets OpenAI's 401 and consumes no step."""
    async with (
        ScriptedLLM(require_api_key="sk-right-key-1234") as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="sk-wrong-key-9876", max_retries=0) as client,
    ):
        llm.reply("unused")
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.chat.completions.create(model=MODEL, messages=ASK)

    assert caught.value.code == "invalid_api_key"
    assert llm.remaining == 1


async def test_unanswered_tool_call_is_rejected_like_openai() -> None:
    """History with a tool call but no tool result gets OpenAI's 400 and is noted as a problem."""
    history: list[Any] = [
        *ASK,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "HassTurnOn", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "Well?"},
    ]
    async with (
        ScriptedLLM() as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0) as client,
    ):
        llm.reply("unused")
        with pytest.raises(openai.BadRequestError, match="call_1"):
            await client.chat.completions.create(model=MODEL, messages=history, tools=TOOLS)

    assert caught_problem(llm, "tool_call_ids did not have response messages")


def caught_problem(llm: ScriptedLLM, text: str) -> bool:
    return any(text in problem for problem in llm.problems)


async def test_models_lists_configured_models() -> None:
    """GET /v1/models lists the configured model ids in OpenAI's shape."""
    async with (
        ScriptedLLM(models=("small", "large")) as llm,
        AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0) as client,
    ):
        page = await client.models.list()
        large = await client.models.retrieve("large")

    assert [m.id for m in page.data] == ["small", "large"]
    assert large.object == "model"


async def test_embeddings_are_deterministic_unit_vectors(client: AsyncOpenAI) -> None:
    """The same text always embeds to the same unit vector, in the client's default base64 too."""
    first = await client.embeddings.create(model="embed", input=["kitchen lights", "garage"])
    again = await client.embeddings.create(
        model="embed", input="kitchen lights", encoding_format="float"
    )

    vectors = [d.embedding for d in first.data]
    assert vectors[0] == pytest.approx(again.data[0].embedding, abs=1e-6)
    assert vectors[0] != pytest.approx(vectors[1], abs=1e-3)
    assert math.fsum(v * v for v in vectors[1]) == pytest.approx(1.0, abs=1e-5)


async def test_embeddings_of_texts_sharing_words_are_closer(client: AsyncOpenAI) -> None:
    """Texts with words in common score higher cosine similarity, so recall tests can rank."""
    response = await client.embeddings.create(
        model="embed",
        input=["turn on the kitchen lights", "kitchen lights please", "what is the weather"],
        encoding_format="float",
    )

    query, near, far = (d.embedding for d in response.data)
    assert sum(a * b for a, b in zip(query, near, strict=True)) > sum(
        a * b for a, b in zip(query, far, strict=True)
    )


async def test_concurrent_requests_are_answered_concurrently(
    scripted_llm: ScriptedLLM, client: AsyncOpenAI
) -> None:
    """Twenty requests are all in the server at once: none is answered until all have arrived."""
    arrived: list[None] = []
    everyone_here = asyncio.Event()

    async def responder(_body: dict[str, Any]) -> Completion:
        arrived.append(None)
        if len(arrived) == 20:
            everyone_here.set()
        await everyone_here.wait()  # a server that queued requests would never get here
        return Completion("ok")

    scripted_llm.default = responder
    completions = await asyncio.wait_for(
        asyncio.gather(
            *(client.chat.completions.create(model=MODEL, messages=ASK) for _ in range(20))
        ),
        timeout=30,
    )

    assert {c.choices[0].message.content for c in completions} == {"ok"}
