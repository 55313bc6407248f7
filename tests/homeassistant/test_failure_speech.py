"""A local failure against each real Home Assistant release, as a listener hears it.

The demo home exposes no lock to Assist (Home Assistant's default), so "lock all the doors"
matches a sentence of 2025.4's whose target is not exposed ("Sorry, no lock is exposed"; 2026.11
has no such sentence and says it knows no device called "all the doors"), and "unlock the front
door" matches only with the name of an unexposed lock. Over our HTTP API, the OpenAI façade and
Wyoming the answer is what the connected release's own agent says for that, asked of it on the
same home, never the explanation our model would read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from openai import AsyncOpenAI

from addon import keys
from devtools.home_assistant import OLDEST_VERSION, HomeAssistantProcess
from tests.fixtures.app import MakeApp, MakeSettings
from tests.web.api.conftest import TOKEN, on_direct_port
from tests.wyoming.conftest import converse, final, wyoming_port

pytestmark = pytest.mark.homeassistant

SENTENCE = "lock all the doors"
SPOKEN = "Sorry, no lock is exposed"
"""What Home Assistant 2025.4.4 says for :data:`SENTENCE`."""
NAMED = "unlock the front door"
NAMED_SPOKEN = "Sorry, Front Door is not exposed"
MODEL_WORDS = ("exposed to Assist", "the user", "Expose", "voice assistant settings", "entity")
"""Words of the explanation the model reads for this failure (addon/home/actions/failure.py)."""


async def home_assistant_says(home: HomeAssistantProcess, sentence: str) -> str:
    """What ``home``'s own conversation agent answers ``sentence`` in English."""
    answer = await home.request(
        "POST", "/api/conversation/process", {"text": sentence, "language": "en"}
    )
    speech: str = answer["response"]["speech"]["plain"]["speech"]
    return speech


async def started(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home: HomeAssistantProcess,
    **options: Any,
) -> TestClient[Any, Any]:
    """The app on ``home`` with no model, once it has the home; the demo's locks unexposed."""
    settings = make_settings(ha_url=home.url, ha_token=home.token, **options)
    if "api_token" in options:
        settings = on_direct_port(settings)
    client: TestClient[Any, Any] = await aiohttp_client(make_app(settings))
    await client.server.app[keys.HOME_SYNC].wait_ready(30.0)
    model = client.server.app[keys.HOME_SYNC].model
    assert model is not None
    assert [e.entity_id for e in model.exposed_entities() if e.entity_id.startswith("lock.")] == []
    return client


async def test_http_api_speaks_home_assistants_sentence_for_an_unexposed_target(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
) -> None:
    """``POST /api/conversation`` answers the failure in Home Assistant's words, not the model's."""
    client = await started(aiohttp_client, make_app, make_settings, home_assistant)
    expected = await home_assistant_says(home_assistant, SENTENCE)

    response = await client.post("/api/conversation", json={"text": SENTENCE})

    body = await response.json()
    assert (response.status, body["reply"], body["handled_by"]) == (200, expected, "local")
    assert [word for word in MODEL_WORDS if word in body["reply"]] == []
    assert "exposed to Assist" in (body["actions"][0]["error"] or "")


async def test_wyoming_speaks_home_assistants_sentence_for_an_unexposed_target(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
) -> None:
    """The real wyoming client hears Home Assistant's sentence, with no model word in it."""
    client = await started(aiohttp_client, make_app, make_settings, home_assistant)
    expected = await home_assistant_says(home_assistant, SENTENCE)

    events = await converse(wyoming_port(client), SENTENCE)

    said = final(events).data["text"]
    assert said == expected
    assert [word for word in MODEL_WORDS if word in said] == []


async def test_openai_facade_answers_home_assistants_sentence_for_an_unexposed_target(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
) -> None:
    """The OpenAI-compatible façade's assistant message is Home Assistant's sentence."""
    client = await started(aiohttp_client, make_app, make_settings, home_assistant, api_token=TOKEN)
    expected = await home_assistant_says(home_assistant, SENTENCE)

    async with AsyncOpenAI(
        base_url=str(client.make_url("/v1")), api_key=TOKEN, max_retries=0, timeout=30
    ) as openai:
        completion = await openai.chat.completions.create(
            model="home-agent", messages=[{"role": "user", "content": SENTENCE}]
        )

    assert completion.choices[0].message.content == expected


async def test_http_api_says_a_named_device_is_not_exposed(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
) -> None:
    """A sentence naming an unexposed lock is said to be unexposed; the lock stays as it was."""
    client = await started(aiohttp_client, make_app, make_settings, home_assistant)
    before = (await home_assistant.state("lock.front_door"))["state"]

    response = await client.post("/api/conversation", json={"text": NAMED})

    body = await response.json()
    assert (body["reply"], body["actions"][0]["success"]) == (NAMED_SPOKEN, False)
    assert (await home_assistant.state("lock.front_door"))["state"] == before


@pytest.mark.parametrize("sentence", [SENTENCE, NAMED])
async def test_home_assistants_own_agent_says_the_same(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    home_assistant: HomeAssistantProcess,
    sentence: str,
) -> None:
    """Home Assistant's own agent answers each sentence with the very words we speak."""
    client = await started(aiohttp_client, make_app, make_settings, home_assistant)

    response = await client.post("/api/conversation", json={"text": sentence})

    ours = (await response.json())["reply"]
    assert ours == await home_assistant_says(home_assistant, sentence)


async def test_the_oldest_release_says_an_unexposed_domain(
    home_assistant: HomeAssistantProcess, ha_version: str
) -> None:
    """2025.4.4's agent says the whole home's locks are not exposed (2026.11's has no such form)."""
    said = await home_assistant_says(home_assistant, SENTENCE)

    assert (said == SPOKEN) is (ha_version == OLDEST_VERSION)
