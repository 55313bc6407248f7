"""The states of the entities a turn acted on, noted before and after for "Save as test"."""

from __future__ import annotations

from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask, stored_turn


async def test_a_turn_that_acts_stores_the_states_before_and_after(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The light was on before the call and off after it; only it is noted."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights", "domain": ["light"]}))
    scripted_llm.reply("Off.")
    result = await make_agent(llm=scripted_llm, local_first=False).process(ask("kitchen off"))
    turn = await stored_turn(store, result.turn_id)
    assert turn.states is not None
    assert turn.states["before"]["light.kitchen_lights"]["state"] == "on"
    assert turn.states["after"] == {"light.kitchen_lights": {"state": "off"}}
    assert list(turn.states["before"]) == ["light.kitchen_lights"]


async def test_a_turn_that_acts_on_nothing_stores_no_states(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A question leaves the column empty."""
    scripted_llm.reply("Hello.")
    result = await make_agent(llm=scripted_llm, local_first=False).process(ask("hi"))
    assert (await stored_turn(store, result.turn_id)).states is None
