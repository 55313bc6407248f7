"""Extraction through the real client against the scripted model, answering well and badly."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from addon.llm.client import LLMClient
from addon.memory.candidates import MemoryKind
from addon.memory.extraction import RESPONSE_FORMAT, Exchange, Extractor
from addon.memory.rules import RejectReason
from devtools.scripted_llm import Completion, Failure, ScriptedLLM, Step
from tests.memory.answers import answer, memory

EXCHANGE = Exchange(
    user_text="Our cat Miso sleeps in the kitchen, please keep it warm there at night.",
    reply="Sure, I'll keep the kitchen warm at night for Miso.",
    tool_calls="HassClimateSetTemperature(area=kitchen, temperature=21): done",
    history="user: hello\nassistant: Hi! How can I help?",
)
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


async def test_well_formed_answer_becomes_candidates(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """A schema-shaped answer yields its memories with kind, importance, entities and areas."""
    scripted_llm.reply(
        answer(
            {
                "content": "The cat is called Miso and sleeps in the kitchen.",
                "kind": "fact",
                "importance": 0.8,
                "entities": ["climate.Kitchen"],
                "areas": ["Kitchen"],
            },
            memory("The kitchen should be kept warm at night.", "preference", 0.6),
        )
    )
    result = await Extractor(scripted_client, clock=lambda: NOW).extract(EXCHANGE)
    assert result.error is None
    assert [(c.content, c.kind, c.importance) for c in result.candidates] == [
        ("The cat is called Miso and sleeps in the kitchen.", MemoryKind.FACT, 0.8),
        ("The kitchen should be kept warm at night.", MemoryKind.PREFERENCE, 0.6),
    ]
    assert result.candidates[0].entities == ("climate.kitchen",)
    assert result.candidates[0].areas == ("kitchen",)
    assert not result.repaired


async def test_request_asks_for_the_strict_json_schema(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """The request carries response_format json_schema, strict, and the exchange's text."""
    scripted_llm.reply(answer())
    result = await Extractor(scripted_client, clock=lambda: NOW).extract(EXCHANGE)
    (request,) = scripted_llm.chat_requests
    response_format = request.body["response_format"]
    assert response_format == RESPONSE_FORMAT
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    assert "tools" not in request.body
    user = request.messages[-1]["content"]
    assert EXCHANGE.user_text in user
    assert EXCHANGE.reply in user
    assert EXCHANGE.tool_calls in user
    assert EXCHANGE.history in user
    (call,) = result.calls
    assert call.started_at == NOW
    assert call.model == "scripted-model"
    assert call.response_format == RESPONSE_FORMAT
    assert call.prompt_tokens > 0
    assert call.error is None


async def test_broken_json_is_repaired(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """Fenced JSON with a trailing comma and a missing bracket still yields its memory."""
    scripted_llm.reply(
        '```json\n{"memories": [{"content": "Anna works from home on Fridays", '
        '"kind": "fact", "importance": 0.7, "entities": [], "areas": [],}\n```'
    )
    result = await Extractor(scripted_client).extract(EXCHANGE)
    assert result.error is None
    assert result.repaired
    assert [c.content for c in result.candidates] == ["Anna works from home on Fridays"]


async def test_unusable_answer_yields_no_candidates_and_an_error(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """Prose instead of JSON records an error and returns nothing, without raising."""
    scripted_llm.reply("I'm sorry, I can't help with that.")
    result = await Extractor(scripted_client).extract(EXCHANGE)
    assert result.candidates == ()
    assert result.error is not None
    assert len(result.calls) == 1


async def test_failed_call_yields_no_candidates_and_an_error(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """A 500 from the endpoint is recorded on the call and nothing escapes."""
    scripted_llm.error(500)
    result = await Extractor(scripted_client).extract(EXCHANGE)
    assert result.candidates == ()
    assert result.error is not None
    assert "500" in result.error
    assert result.calls[0].error == result.error
    assert Extractor(scripted_client).structured


async def test_refused_schema_falls_back_to_plain_json(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """A 400 naming response_format is answered by asking again with the schema in the prompt."""
    scripted_llm.error(
        400, "response_format of type json_schema is not supported", param="response_format"
    )
    scripted_llm.reply(answer(memory("The cat is called Miso.")))
    extractor = Extractor(scripted_client)
    result = await extractor.extract(EXCHANGE)
    assert [c.content for c in result.candidates] == ["The cat is called Miso."]
    assert result.error is None
    first, second = scripted_llm.chat_requests
    assert "response_format" in first.body
    assert "response_format" not in second.body
    assert '"memories"' in second.messages[0]["content"]
    assert [call.response_format is None for call in result.calls] == [False, True]
    assert "400" in (result.calls[0].error or "")
    assert not extractor.structured


async def test_endpoint_refusing_schema_is_not_offered_it_again(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """After one refusal the next extraction goes straight to plain JSON."""

    def endpoint(body: dict[str, Any]) -> Step:
        if "response_format" in body:
            return Failure(400, "Unsupported parameter: 'response_format'")
        return Completion(answer(memory("The cat is called Miso.")))

    scripted_llm.default = endpoint
    extractor = Extractor(scripted_client)
    await extractor.extract(EXCHANGE)
    second = await extractor.extract(EXCHANGE)
    assert len(second.calls) == 1
    assert [c.content for c in second.candidates] == ["The cat is called Miso."]
    assert ["response_format" in r.body for r in scripted_llm.chat_requests] == [
        True,
        False,
        False,
    ]


async def test_option_off_never_sends_the_schema(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """With structured output off the only request has no response_format."""
    scripted_llm.reply(answer(memory("The cat is called Miso.")))
    result = await Extractor(scripted_client, structured=False).extract(EXCHANGE)
    assert [c.content for c in result.candidates] == ["The cat is called Miso."]
    (request,) = scripted_llm.chat_requests
    assert "response_format" not in request.body


async def test_secret_said_in_conversation_never_becomes_a_candidate(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """Even when the model proposes it, "the alarm code is 4821" is rejected as a secret."""
    scripted_llm.reply(
        answer(
            memory("The alarm code is 4821.", "fact", 0.9),
            memory("Anna sets the alarm when she leaves.", "preference", 0.5),
        )
    )
    exchange = Exchange(
        user_text="The alarm code is 4821, remember that.", reply="I'd rather not store codes."
    )
    result = await Extractor(scripted_client).extract(exchange)
    assert all("4821" not in c.content for c in result.candidates)
    assert [c.content for c in result.candidates] == ["Anna sets the alarm when she leaves."]
    assert [(r.reason, r.content) for r in result.rejected] == [(RejectReason.SECRET, None)]


async def test_unknown_kinds_and_bad_items_are_skipped(
    scripted_llm: ScriptedLLM, scripted_client: LLMClient
) -> None:
    """Items with an invented kind or no text are dropped; importance is kept within 0..1."""
    scripted_llm.reply(
        json.dumps(
            {
                "memories": [
                    memory("The cat is called Miso.", "rumour"),
                    {"kind": "fact"},
                    memory("The boiler was serviced on 3 May.", "event", 7),
                ]
            }
        )
    )
    result = await Extractor(scripted_client).extract(EXCHANGE)
    assert [(c.content, c.importance) for c in result.candidates] == [
        ("The boiler was serviced on 3 May.", 1.0)
    ]
