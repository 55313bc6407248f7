"""Turns in the request's language: local matching, the agent's own words, the outcome check."""

from __future__ import annotations

import pytest

from addon.home.actions.executor import ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.i18n.translations import DE, EN, PL
from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask, stored_turn

COMMANDS = {
    "de": "schalte Kitchen Lights aus",
    "de-DE": "schalte Kitchen Lights aus",
    "fr": "éteins Kitchen Lights",
    "es": "apaga Kitchen Lights",
    "nl": "doe Kitchen Lights uit",
    "it": "spegni Kitchen Lights",
    "pl": "wyłącz Kitchen Lights",
    "pt": "desliga Kitchen Lights",
}


@pytest.mark.parametrize(("language", "text"), COMMANDS.items(), ids=COMMANDS.keys())
async def test_a_command_in_the_requests_language_is_matched_locally(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    demo_model: HomeModel,
    language: str,
    text: str,
) -> None:
    """An agent configured for English matches a command in the request's language itself."""
    await VirtualExecutor(demo_model).call_service(
        ServiceCall("light", "turn_on", ("light.kitchen_lights",))
    )
    agent = make_agent(llm=scripted_llm, language="en")
    result = await agent.process(ask(text, language=language))
    assert result.handled_by == "local"
    assert scripted_llm.chat_requests == []
    assert demo_model.state("light.kitchen_lights").state == "off"  # type: ignore[union-attr]


async def test_a_local_reply_is_spoken_in_the_requests_language(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Home Assistant's German response template answers a German command."""
    agent = make_agent(llm=scripted_llm, language="en")
    result = await agent.process(ask("schalte Kitchen Lights aus", language="de"))
    english = await agent.process(ask("turn off the kitchen lights", language="en"))
    assert result.reply != english.reply
    assert "ausgeschaltet" in result.reply.lower()


async def test_a_language_without_sentences_goes_to_the_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A language Home Assistant ships no sentences for is left to the model, without error."""
    scripted_llm.reply("Bone.")
    agent = make_agent(llm=scripted_llm, language="en")
    result = await agent.process(ask("turn off the kitchen lights", language="eo"))
    assert result.handled_by == "llm"
    assert result.reply == "Bone."


async def test_the_no_model_reply_is_in_the_requests_language(make_agent: MakeAgent) -> None:
    """Without a model, a sentence nobody understood is refused in German for a German request."""
    agent = make_agent(llm=None, language="en")
    result = await agent.process(ask("schreib mir ein Gedicht", language="de-AT"))
    assert result.reply == DE.no_model
    assert result.handled_by == "failed"


async def test_an_unknown_language_is_refused_in_english(make_agent: MakeAgent) -> None:
    """A language without messages of its own falls back to English."""
    agent = make_agent(llm=None, language="en")
    result = await agent.process(ask("skribu poemon", language="eo"))
    assert result.reply == EN.no_model


async def test_the_configured_language_is_spoken_when_the_request_names_none(
    make_agent: MakeAgent,
) -> None:
    """With no language on the request, the configured ``language`` option speaks."""
    agent = make_agent(llm=None, language="pl")
    result = await agent.process(ask("napisz wiersz"))
    assert result.reply == PL.no_model


async def test_a_german_claim_without_a_tool_call_is_flagged(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A German reply saying it switched a light on, with no tool call, is judged a false claim."""
    scripted_llm.reply("Ich habe das Licht auf der Veranda eingeschaltet.")
    agent = make_agent(llm=scripted_llm)
    result = await agent.process(ask("Verandalicht an, bitte", language="de"))
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert (turn.outcome, turn.flagged) == ("mismatch", True)


async def test_a_german_answer_without_a_claim_is_not_flagged(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A German reply that only reports a state is not a claimed action."""
    scripted_llm.reply("Das Licht auf der Veranda ist an, es wurde nichts geändert.")
    agent = make_agent(llm=scripted_llm)
    result = await agent.process(ask("ist das Verandalicht an?", language="de"))
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert (turn.outcome, turn.flagged) == ("not_applicable", False)
