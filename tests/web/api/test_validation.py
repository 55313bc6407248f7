"""Bad requests to ``/api/conversation`` get a clear 4xx naming what is wrong, and no turn runs."""

from __future__ import annotations

from typing import Any

import pytest

from devtools.scripted_llm import ScriptedLLM
from tests.web.api.conftest import AppClient


async def refused(api: AppClient, status: int, **kwargs: Any) -> dict[str, Any]:
    response = await api.post("/api/conversation", **kwargs)
    assert response.status == status, await response.text()
    assert response.content_type == "application/json"
    body: dict[str, Any] = await response.json()
    assert set(body) >= {"error", "message"}
    return body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"text": ""}, "text", id="empty-text"),
        pytest.param({"text": "   \n"}, "text", id="blank-text"),
        pytest.param({"text": "x" * 4001}, "text", id="text-too-long"),
        pytest.param({}, "text", id="text-missing"),
        pytest.param({"text": 42}, "text", id="text-not-a-string"),
        pytest.param({"text": "hi", "dry_run": "yes"}, "dry_run", id="dry-run-not-a-boolean"),
        pytest.param({"text": "hi", "conversation_id": "a" * 129}, "conversation_id", id="id-long"),
        pytest.param({"text": "hi", "conversation_id": "../etc"}, "conversation_id", id="id-chars"),
        pytest.param({"text": "hi", "language": "english!"}, "language", id="language"),
        pytest.param({"text": "hi", "conversationId": "x"}, "conversationId", id="unknown-field"),
    ],
)
async def test_invalid_field_is_named(
    api: AppClient, scripted_llm: ScriptedLLM, body: dict[str, Any], field: str
) -> None:
    """Each invalid field gives a 422 whose field and message name it; the model is not asked."""
    answer = await refused(api, 422, json=body)
    assert answer["error"] == "invalid_field"
    assert answer["field"] == field
    assert answer["message"].startswith(f"{field}: ")
    assert scripted_llm.chat_requests == []


async def test_longest_text_is_accepted(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """Exactly 4,000 characters is within the limit."""
    scripted_llm.reply("That was long.")
    response = await api.post("/api/conversation", json={"text": "x" * 4000})
    assert response.status == 200


async def test_body_that_is_not_json_is_refused(api: AppClient) -> None:
    """A body that does not parse is a 400 saying so."""
    answer = await refused(
        api, 400, data=b"{text: hi}", headers={"Content-Type": "application/json"}
    )
    assert answer["error"] == "invalid_json"
    assert "not valid JSON" in answer["message"]


async def test_body_must_be_an_object(api: AppClient) -> None:
    """A JSON array is valid JSON but not a request."""
    answer = await refused(api, 400, json=["turn on the lights"])
    assert answer == {
        "error": "invalid_json",
        "message": "the body must be a JSON object, not an array",
    }


async def test_wrong_content_type_is_refused(api: AppClient) -> None:
    """A form post is a 415 that says to send JSON."""
    answer = await refused(api, 415, data={"text": "hi"})
    assert answer["error"] == "unsupported_media_type"
    assert "application/json" in answer["message"]


async def test_oversized_body_is_refused(api: AppClient) -> None:
    """A body over 64 KiB is a 413 before it is parsed."""
    answer = await refused(api, 413, json={"text": "hi", "padding": "x" * 70_000})
    assert answer["error"] == "payload_too_large"
    assert answer["field"] == "body"


async def test_oversized_chunked_body_is_cut_off(api: AppClient) -> None:
    """Without a Content-Length the limit still holds while reading."""

    async def chunks() -> Any:
        yield b'{"text": "hi", "padding": "'
        for _ in range(80):
            yield b"x" * 1024
        yield b'"}'

    answer = await refused(api, 413, data=chunks(), headers={"Content-Type": "application/json"})
    assert answer["error"] == "payload_too_large"


async def test_deeply_nested_json_is_refused(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """10,000 nested arrays exhaust the parser's recursion: a 400 saying so, not a 500."""
    answer = await refused(
        api,
        400,
        data=b"[" * 10_000 + b"]" * 10_000,
        headers={"Content-Type": "application/json"},
    )
    assert answer == {
        "error": "invalid_json",
        "message": "the body is not valid JSON: it is nested too deeply",
    }
    assert scripted_llm.chat_requests == []


async def test_body_not_in_its_content_encoding_is_refused(api: AppClient) -> None:
    """A body marked gzip that is not gzip cannot be read: a 400 saying so."""
    answer = await refused(
        api,
        400,
        data=b'{"text": "hi"}',
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert answer["error"] == "invalid_body"
    assert answer["message"].startswith("the body could not be read")


async def test_lone_surrogate_is_refused(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """An escaped lone surrogate is not Unicode text: refused as such, whichever field holds it."""
    answer = await refused(
        api,
        400,
        data=b'{"text": "hi", "device_id": "\\udcff"}',
        headers={"Content-Type": "application/json"},
    )
    assert answer["error"] == "invalid_json"
    assert "lone surrogate" in answer["message"]
    assert scripted_llm.chat_requests == []
