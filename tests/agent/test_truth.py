"""A reply never claims what did not happen: the model's words checked against its tool calls.

The agent over the demo home (its front door not exposed to Assist), the model scripted to try
the door, read the failure, and claim success all the same.
"""

from __future__ import annotations

import pytest

from addon.agent.spoken import reply_tail
from addon.store.database import Store
from addon.store.queries import ConversationFilters, list_conversations
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, RecordedEvents, ask, stored_turn

NOT_EXPOSED = "Sorry, Front Door is not exposed"


async def test_a_claimed_unlock_that_failed_is_corrected_and_the_turn_failed(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The person hears Home Assistant's sentence; the turn is failed, stored and announced so."""
    events = RecordedEvents()
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    scripted_llm.reply("The front door is unlocked.")
    agent = make_agent(llm=scripted_llm, events=events, local_first=False)
    result = await agent.process(ask("unlock the front door"))
    assert result.reply == NOT_EXPOSED
    assert result.error is not None
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert (turn.outcome, turn.flagged) == ("failed", True)
    assert turn.error is not None
    assert turn.reply_text == NOT_EXPOSED
    assert "The front door is unlocked." in str(turn.messages)  # the model's words, in the trace
    finished = [data for name, data in events.fired if name == "home_agent_conversation_finished"]
    assert finished[-1]["error"] == result.error
    async with store.sessionmaker() as session:
        page = await list_conversations(session, ConversationFilters(has_error=True))
    assert result.conversation_id in [row.id for row in page.rows]


async def test_a_retry_that_worked_leaves_the_reply_alone(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A failed call the model put right with a second one is not a failure of the turn."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lamp"}))
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lights"}))
    scripted_llm.reply("The kitchen lights are on.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    result = await agent.process(ask("kitchen lamp on"))
    assert result.reply == "The kitchen lights are on."
    assert result.error is None


async def test_a_partial_success_says_which_part_failed(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The lights came on and the door did not: the reply keeps the first and names the second."""
    scripted_llm.tool_calls(
        ("HassTurnOn", {"name": "Kitchen Lights"}),
        ("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}),
    )
    scripted_llm.reply("Lights on and the door is unlocked.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    result = await agent.process(ask("kitchen lights on and unlock the front door"))
    assert result.reply == f"Lights on and the door is unlocked. {NOT_EXPOSED}"
    assert result.error is not None
    assert "HassTurnOff" in result.error


@pytest.mark.parametrize(
    ("language", "said"),
    [("de", "Front Door ist nicht freigegeben"), ("fr", "n'est pas exposé")],
)
async def test_the_correction_is_said_in_the_requests_language(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, language: str, said: str
) -> None:
    """Home Assistant's own sentence of that language, not English and not the model's."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    scripted_llm.reply("Erledigt.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    result = await agent.process(ask("unlock", language=language))
    assert said in result.reply


class Listener:
    """What a streaming endpoint sends: each chunk as it comes, then the rest of the reply."""

    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def __call__(self, chunk: str) -> None:
        self.chunks.append(chunk)

    def heard(self, reply: str) -> str:
        streamed = "".join(self.chunks)
        return streamed + reply_tail(streamed, reply)


async def test_a_streamed_claim_after_a_failure_is_never_heard(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The model's words after a failed action wait for the check: the claim is not streamed."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    scripted_llm.reply("The front door is unlocked.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    listener = Listener()
    result = await agent.process(ask("unlock the front door"), on_text=listener)
    assert "unlocked" not in "".join(listener.chunks)
    assert listener.heard(result.reply) == result.reply == NOT_EXPOSED


async def test_a_streamed_partial_success_is_heard_with_what_failed(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The listener hears the corrected reply, what failed included, and nothing else."""
    scripted_llm.tool_calls(
        ("HassTurnOn", {"name": "Kitchen Lights"}),
        ("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}),
    )
    scripted_llm.reply("Lights on.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    listener = Listener()
    result = await agent.process(
        ask("kitchen lights on and unlock the front door"), on_text=listener
    )
    assert listener.heard(result.reply) == result.reply == f"Lights on. {NOT_EXPOSED}"


async def test_a_streamed_reply_after_a_retry_that_worked_is_heard_as_written(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Words held after a failed call are released when the check finds nothing to correct."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lamp"}))
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lights"}))
    scripted_llm.reply("The kitchen lights are on.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    listener = Listener()
    result = await agent.process(ask("kitchen lamp on"), on_text=listener)
    assert "".join(listener.chunks) == result.reply == "The kitchen lights are on."


async def test_a_streamed_claim_in_german_is_replaced_by_home_assistants_german(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Held back and corrected in the request's language, as the local path would say it."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    scripted_llm.reply("Die Haustür ist jetzt entriegelt.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    listener = Listener()
    result = await agent.process(ask("Haustür aufschließen", language="de"), on_text=listener)
    assert "entriegelt" not in listener.heard(result.reply)
    assert "Front Door ist nicht freigegeben" in listener.heard(result.reply)
