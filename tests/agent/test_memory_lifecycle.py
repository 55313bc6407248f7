"""Memory as the app wires it: on by default, off by its option, kept across a restart."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from addon.agent.prompt import MEMORY_HEADER
from addon.config.settings import Settings
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings

AppClient = TestClient[Any, Any]


StartApp = Callable[[Settings], Awaitable[AppClient]]


@pytest.fixture
def start(aiohttp_client: Callable[..., Any], make_app: MakeApp) -> StartApp:
    """Start the app for some settings (again, on the same data, for a restart)."""

    async def started(settings: Settings) -> AppClient:
        client: AppClient = await aiohttp_client(make_app(settings))
        client.app[keys.AGENT].outcome_delay = 0.0
        return client

    return started


async def say(client: AppClient, text: str) -> dict[str, Any]:
    response = await client.post("/api/conversation", json={"text": text})
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    await client.app[keys.AGENT].drain()
    return body


async def test_memories_survive_a_restart(
    start: StartApp, make_settings: MakeSettings, scripted_llm: ScriptedLLM
) -> None:
    """Remembered before a restart, recalled after it from the same database file."""
    settings = make_settings(llm_base_url=scripted_llm.base_url, llm_model="scripted-model")
    first = await start(settings)
    assert keys.MEMORY_CHANGES in first.app
    scripted_llm.tool_calls(("remember", {"content": "The cat is called Miso."})).reply("Okay.")
    await say(first, "remember that the cat is called Miso")
    await first.close()

    second = await start(settings)
    scripted_llm.reply("Miso.")
    await say(second, "what is the cat called")
    content = scripted_llm.chat_requests[-1].messages[-1]["content"]
    assert MEMORY_HEADER in content
    assert "The cat is called Miso." in content


async def test_memory_off_wires_no_memory(
    start: StartApp, make_settings: MakeSettings, scripted_llm: ScriptedLLM
) -> None:
    """With the option off the panel has no memory to tell and the model no memory tools."""
    settings = make_settings(
        llm_base_url=scripted_llm.base_url, llm_model="scripted-model", memory=False
    )
    client = await start(settings)
    assert keys.MEMORY_CHANGES not in client.app
    scripted_llm.reply("Okay.")
    await say(client, "remember that the cat is called Miso")
    [request] = scripted_llm.chat_requests
    assert "remember" not in {tool["function"]["name"] for tool in request.tools}


async def asked_in_other_words(client: AppClient, scripted_llm: ScriptedLLM) -> str:
    """Have the cat's name remembered, then ask for it in other words; what the model was sent."""
    scripted_llm.tool_calls(("remember", {"content": "The cat is called Miso."})).reply("Okay.")
    await say(client, "remember that the cat is called Miso")
    scripted_llm.reply("Miso.")
    await say(client, "what's our kitty's name")
    content: str = scripted_llm.chat_requests[-1].messages[-1]["content"]
    return content


async def test_local_embeddings_recall_by_meaning(
    start: StartApp, make_settings: MakeSettings, scripted_llm: ScriptedLLM
) -> None:
    """With ``memory_embeddings: local`` a question sharing no word with a memory recalls it."""
    settings = make_settings(
        llm_base_url=scripted_llm.base_url, llm_model="scripted-model", memory_embeddings="local"
    )
    content = await asked_in_other_words(await start(settings), scripted_llm)
    assert "The cat is called Miso." in content


async def test_without_embeddings_the_same_question_recalls_nothing(
    start: StartApp, make_settings: MakeSettings, scripted_llm: ScriptedLLM
) -> None:
    """By words alone "kitty" is not "cat": the meaning above came from the local model."""
    settings = make_settings(llm_base_url=scripted_llm.base_url, llm_model="scripted-model")
    content = await asked_in_other_words(await start(settings), scripted_llm)
    assert "The cat is called Miso." not in content
