"""A local failure: the listener hears Home Assistant's sentence, the model keeps the reasons.

Without a model the failure is the turn's answer; the turn's history still holds the tool result
with the explanation, so a model asked later (or the trace) sees why and what would work.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from addon.agent.local_turn import run_local_turn
from addon.agent.trace import TurnTrace
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.i18n.translations import EN
from addon.llm.messages import AssistantMessage, ToolMessage
from addon.local.matcher import LocalMatcher
from addon.tools.base import ToolContext
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask
from tests.local.issue_home import ENGLISH, ENGLISH_AREAS, build

HIDDEN = frozenset({"light.kitchen"})
UNREACHABLE = "http://127.0.0.1:9/v1"
"""A model endpoint nobody listens on."""


async def test_the_reply_is_home_assistants_sentence_and_the_tool_result_explains(
    local_matcher: LocalMatcher,
) -> None:
    """The reply is HA's sentence; the tool result keeps the model's explanation for later."""
    home = build(ENGLISH, ENGLISH_AREAS, hidden=HIDDEN)
    context = ToolContext(
        home=home, executor=VirtualExecutor(home), language="en", now=datetime.now(UTC)
    )

    turn = await run_local_turn(
        local_matcher, "turn on the lights in the kitchen", context, TurnTrace(), fall_through=False
    )

    assert turn is not None
    _call, tool, answer = turn.messages
    assert isinstance(answer, AssistantMessage)
    assert isinstance(tool, ToolMessage)
    assert turn.reply == answer.content == "Sorry, no light in the Kitchen area is exposed"
    assert "not exposed to Assist" in json.loads(tool.content)["error_text"]
    assert turn.error is not None
    assert "exposed to Assist" in turn.error


async def test_without_a_model_the_agent_answers_home_assistants_sentence(
    make_agent: MakeAgent,
) -> None:
    """With no model, a sentence whose target is not exposed is answered in HA's words."""
    agent = make_agent()

    result = await agent.process(ask("lock all the doors"))

    assert (result.reply, result.handled_by) == ("Sorry, no lock is exposed", "local")


async def test_with_the_model_unreachable_the_apology_says_no_model_words(
    make_agent: MakeAgent,
) -> None:
    """A matching failure goes to the model; unreachable, its apology is said, nothing else."""
    agent = make_agent(llm=UNREACHABLE)

    result = await agent.process(ask("lock all the doors"))

    assert result.reply == EN.llm_unreachable


async def test_without_a_model_a_shared_name_is_said_to_be_ambiguous(
    local_matcher: LocalMatcher,
) -> None:
    """With no model to ask which was meant, two devices of one name are said to be several."""
    home = build(ENGLISH, ENGLISH_AREAS)
    context = ToolContext(
        home=home, executor=VirtualExecutor(home), language="en", now=datetime.now(UTC)
    )

    turn = await run_local_turn(
        local_matcher, "turn on the reading lamp", context, TurnTrace(), fall_through=False
    )

    assert turn is not None
    assert turn.reply == "Sorry, there are multiple devices called Reading Lamp"


async def test_with_a_model_a_shared_name_goes_to_the_model(local_matcher: LocalMatcher) -> None:
    """With a model, a name two devices share is left to it, which can ask which was meant."""
    home = build(ENGLISH, ENGLISH_AREAS)
    context = ToolContext(
        home=home, executor=VirtualExecutor(home), language="en", now=datetime.now(UTC)
    )

    turn = await run_local_turn(
        local_matcher, "turn on the reading lamp", context, TurnTrace(), fall_through=True
    )

    assert turn is None


async def test_without_a_model_an_unexposed_name_is_said_to_be_unexposed(
    make_agent: MakeAgent, demo_model: HomeModel
) -> None:
    """A sentence naming a device not exposed to Assist is answered so; the lock is untouched."""
    agent = make_agent()

    result = await agent.process(ask("unlock the front door"))

    assert (result.reply, result.handled_by) == ("Sorry, Front Door is not exposed", "local")
    state = demo_model.state("lock.front_door")
    assert state is not None
    assert state.state == "locked"


async def test_without_a_model_a_question_about_an_unexposed_name_says_so(
    make_agent: MakeAgent,
) -> None:
    """A question naming an unexposed device gets the same sentence, not an empty answer."""
    agent = make_agent()

    result = await agent.process(ask("is the front door locked"))

    assert result.reply == "Sorry, Front Door is not exposed"


async def test_with_a_model_an_unexposed_name_goes_to_the_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """With a model, a sentence that matches only an unexposed name is the model's to answer."""
    scripted_llm.reply("I can't reach that lock.")
    agent = make_agent(llm=scripted_llm)

    result = await agent.process(ask("unlock the front door"))

    assert (result.reply, result.handled_by) == ("I can't reach that lock.", "llm")
