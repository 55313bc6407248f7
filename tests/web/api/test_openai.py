"""The ``/v1`` façade, driven by the official ``openai`` client as any OpenAI app would drive it."""

from __future__ import annotations

import json

import openai
import pytest
from openai import AsyncOpenAI
from sqlalchemy import select

from addon import keys
from addon.store.models import Conversation, Turn
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.llm import spoken
from tests.web.api.conftest import AppClient

USAGE = {"prompt_tokens": 120, "completion_tokens": 9}
TOOLS = [
    {
        "type": "function",
        "function": {"name": "client_tool", "parameters": {"type": "object", "properties": {}}},
    }
]


async def test_completion_is_the_agents_reply(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """A plain completion returns the reply as the assistant message with the turn's usage."""
    scripted_llm.reply("The garage door is closed.", usage=USAGE)
    completion = await openai_client.chat.completions.create(
        model="home-agent", messages=[{"role": "user", "content": "Is the garage closed?"}]
    )
    choice = completion.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "The garage door is closed."
    assert choice.finish_reason == "stop"
    assert completion.object == "chat.completion"
    assert completion.model == "home-agent"
    assert completion.id.startswith("chatcmpl-")
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (120, 9)
    assert completion.usage.total_tokens == 129


async def test_streamed_chunks_reassemble_to_the_reply(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """Streaming yields OpenAI chunks whose content joins to the reply, then a stop."""
    scripted_llm.reply("All three bedroom lights are off now.", usage=USAGE)
    stream = await openai_client.chat.completions.create(
        model="home-agent",
        messages=[{"role": "user", "content": "Bedroom lights off"}],
        stream=True,
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == (
        "All three bedroom lights are off now."
    )
    assert [c.choices[0].finish_reason for c in chunks][-1] == "stop"
    assert len({c.id for c in chunks}) == 1
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert all(c.usage is None for c in chunks)


async def test_stream_usage_comes_last_when_asked(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """``stream_options.include_usage`` adds a final chunk with no choices and the usage."""
    scripted_llm.reply("Done.", usage=USAGE)
    stream = await openai_client.chat.completions.create(
        model="home-agent",
        messages=[{"role": "user", "content": "Do it"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 129


async def test_models_list_offers_the_home_agent(openai_client: AsyncOpenAI) -> None:
    """The model list holds one model, ``home-agent``, and retrieving it works."""
    models = [model async for model in openai_client.models.list()]
    assert [m.id for m in models] == ["home-agent"]
    assert (await openai_client.models.retrieve("home-agent")).id == "home-agent"


async def test_unknown_model_is_not_found(openai_client: AsyncOpenAI) -> None:
    """Retrieving any other model raises the client's NotFoundError."""
    with pytest.raises(openai.NotFoundError):
        await openai_client.models.retrieve("gpt-4o")


async def test_user_continues_the_conversation(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """The same ``user`` on the next request gives the model the first turn as history."""
    scripted_llm.reply("Which room?").reply("The kitchen lights are on.")
    await openai_client.chat.completions.create(
        model="home-agent", messages=[{"role": "user", "content": "Lights on"}], user="alice"
    )
    await openai_client.chat.completions.create(
        model="home-agent",
        messages=[
            {"role": "user", "content": "Lights on"},
            {"role": "assistant", "content": "Which room?"},
            {"role": "user", "content": "Kitchen"},
        ],
        user="alice",
    )
    contents = [m.get("content") for m in spoken(scripted_llm.chat_requests[1].messages)]
    assert contents[-3:] == ["Lights on", "Which room?", "Kitchen"]
    assert contents.count("Lights on") == 1  # the client's copy of the history is not added


async def test_without_user_each_request_is_new(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """No ``user``: the second request starts a conversation of its own."""
    scripted_llm.reply("Hello.").reply("Hello again.")
    for _ in range(2):
        await openai_client.chat.completions.create(
            model="home-agent", messages=[{"role": "user", "content": "Hi"}]
        )
    contents = [m.get("content") for m in spoken(scripted_llm.chat_requests[1].messages)]
    assert "Hello." not in contents


async def test_only_the_last_user_message_is_the_utterance(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """Client system prompt and tools are ignored; the last user text (parts joined) is used."""
    scripted_llm.reply("Okay.")
    await openai_client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": "You are a pirate."},
            {"role": "user", "content": "Earlier words"},
            {"role": "user", "content": [{"type": "text", "text": "Close the blinds"}]},
        ],
        tools=TOOLS,  # type: ignore[arg-type]
    )
    sent = scripted_llm.chat_requests[0]
    assert spoken(sent.messages)[-1] == {"role": "user", "content": "Close the blinds"}
    assert "pirate" not in str(sent.messages)
    assert "client_tool" not in str(sent.tools)


async def test_turn_is_stored_with_source_openai(
    openai_client: AsyncOpenAI, direct: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """The façade's turn is stored, its conversation marked as coming from the façade."""
    scripted_llm.reply("Sure.")
    await openai_client.chat.completions.create(
        model="home-agent", messages=[{"role": "user", "content": "Fan on"}], user="bob"
    )
    await direct.app[keys.STORE].writer.flush()
    async with direct.app[keys.STORE].sessionmaker() as session:
        conversation = (await session.scalars(select(Conversation))).one()
        turn = (await session.scalars(select(Turn))).one()
    assert conversation.source == "openai"
    assert conversation.id.startswith("openai-")
    assert (turn.user_text, turn.reply_text) == ("Fan on", "Sure.")


async def test_answer_after_the_last_user_message_is_refused(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """A history ending in an assistant message would repeat the user's request: 400."""
    with pytest.raises(openai.BadRequestError) as caught:
        await openai_client.chat.completions.create(
            model="home-agent",
            messages=[
                {"role": "user", "content": "Unlock the door"},
                {"role": "assistant", "content": "Unlocked."},
            ],
        )
    assert caught.value.param == "messages"
    assert scripted_llm.chat_requests == []


async def test_invalid_message_names_the_parameter(openai_client: AsyncOpenAI) -> None:
    """A malformed message is a 400 whose ``param`` points at it, as OpenAI's does."""
    with pytest.raises(openai.BadRequestError) as caught:
        await openai_client.chat.completions.create(
            model="home-agent",
            messages=[{"role": "user", "content": 5}],  # type: ignore[list-item,misc]
        )
    assert caught.value.param == "messages[0].content"
    assert caught.value.body["type"] == "invalid_request_error"  # type: ignore[index]


async def test_empty_user_text_is_refused(openai_client: AsyncOpenAI) -> None:
    """A last user message without text is a 400 naming it."""
    with pytest.raises(openai.BadRequestError) as caught:
        await openai_client.chat.completions.create(
            model="home-agent", messages=[{"role": "user", "content": "  "}]
        )
    assert caught.value.param == "messages[0].content"


async def test_unknown_route_is_an_openai_404(direct: AppClient) -> None:
    """Paths the façade lacks answer 404 in OpenAI's error shape."""
    response = await direct.post(
        "/v1/embeddings",
        json={},
        headers={"Authorization": "Bearer test-api-token-0123456789abcdef"},
    )
    assert response.status == 404
    error = (await response.json())["error"]
    assert set(error) == {"message", "type", "param", "code"}


async def test_deeply_nested_json_is_an_openai_400(direct: AppClient) -> None:
    """A body nested too deeply to parse is refused in OpenAI's shape, not answered 500."""
    response = await direct.post(
        "/v1/chat/completions",
        data=b'{"messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
        headers={
            "Authorization": "Bearer test-api-token-0123456789abcdef",
            "Content-Type": "application/json",
        },
    )
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "invalid_json"
    assert "nested too deeply" in error["message"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"messages": [{"role": "user", "content": "hi \ud800"}]}, id="content"),
        pytest.param(
            {"messages": [{"role": "user", "content": "hi"}], "user": "\ud800"}, id="user"
        ),
    ],
)
async def test_lone_surrogate_is_an_openai_400(
    direct: AppClient, scripted_llm: ScriptedLLM, body: dict[str, object]
) -> None:
    """An escaped lone surrogate is not Unicode text: a 400, not a 500 from the model call."""
    response = await direct.post(
        "/v1/chat/completions",
        data=json.dumps({"model": "home-agent", **body}),  # ensure_ascii: sent as "\ud800"
        headers={
            "Authorization": "Bearer test-api-token-0123456789abcdef",
            "Content-Type": "application/json",
        },
    )
    assert response.status == 400, await response.text()
    error = (await response.json())["error"]
    assert "lone surrogate" in error["message"]
    assert scripted_llm.chat_requests == []


async def test_a_mistral_call_and_reasoning_never_reach_the_stream(
    openai_client: AsyncOpenAI, scripted_llm: ScriptedLLM
) -> None:
    """The façade's stream carries only the final answer: no reasoning, no call written as text."""
    scripted_llm.text_calls(
        "mistral", ("GetDateTime", {}), before="Checking.", reasoning="hidden plan"
    )
    scripted_llm.reply("<think>hidden check</think>It is noon.")
    stream = await openai_client.chat.completions.create(
        model="home-agent", messages=[{"role": "user", "content": "Time?"}], stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream])
    assert text == "Checking. It is noon."
    tool_message = scripted_llm.chat_requests[1].messages[-1]
    assert tool_message["role"] == "tool"
    assert "error" not in json.loads(tool_message["content"])
