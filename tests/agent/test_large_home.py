"""The agent in a home above the overview's budget: summary, per-turn devices, search, trace."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from addon.agent.context import HomeContext
from addon.agent.prompt import (
    LARGE_HOME_CONTEXT_HEADER,
    STATIC_CONTEXT_HEADER,
    TURN_CONTEXT_HEADER,
    PromptInputs,
    build_system_prompt,
)
from addon.home.context.overview import static_overview
from addon.home.model.live import HomeModel
from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ManualClock, ask, stored_turn
from tests.home.context.test_selection import small_home
from tests.home.context.test_selection_ranking import look_alike_home

SEARCH_HINT = "`SearchEntities` finds them by name, area or kind.\n"


def tool_names(scripted_llm: ScriptedLLM, call: int = 0) -> list[str]:
    return [tool["function"]["name"] for tool in scripted_llm.chat_requests[call].tools]


async def test_a_home_within_the_budget_gets_todays_prompt_byte_for_byte(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel
) -> None:
    """Under the budget: the full static overview, the plain timed message, no search tool."""
    clock = ManualClock()
    scripted_llm.reply("Hi.")
    await make_agent(llm=scripted_llm, local_first=False, clock=clock).process(ask("hello"))
    sent = scripted_llm.chat_requests[0].messages
    assert sent[0]["content"] == build_system_prompt(
        PromptInputs(static_overview(demo_model), extra_instructions="", area_name=None)
    )
    assert STATIC_CONTEXT_HEADER in sent[0]["content"]
    time_line, words = sent[-1]["content"].split("\n")
    assert time_line.startswith("Current time is ")  # in the home's zone, as before
    assert words == "hello"
    assert "SearchEntities" not in tool_names(scripted_llm)


async def test_above_the_budget_the_request_lists_its_devices_after_the_prefix(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Over budget: a summary in the system prompt, the request's devices on the user message."""
    scripted_llm.reply("Done.").reply("Done again.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    await agent.process(ask("turn on the big light in the lounge"))
    await agent.process(ask("close the blinds in the kitchen"))
    first, second = (request.messages for request in scripted_llm.chat_requests)
    assert first[0]["content"] == second[0]["content"]  # the cached prefix does not move
    assert LARGE_HOME_CONTEXT_HEADER in first[0]["content"]
    assert "Ceiling Light" not in first[0]["content"]
    assert TURN_CONTEXT_HEADER in first[-1]["content"]
    assert "Living Room, Lounge:" in first[-1]["content"]
    assert "- Ceiling Light, Big Light" in first[-1]["content"]
    assert first[-1]["content"].endswith("\n\nturn on the big light in the lounge")
    assert "- Blinds" in second[-1]["content"]
    assert "SearchEntities" in tool_names(scripted_llm)


async def test_history_keeps_the_request_without_its_device_list(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The next turn selects its own devices; earlier lists are not replayed in history."""
    scripted_llm.reply("Done.").reply("Done again.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    first = await agent.process(ask("turn on the desk lamp"))
    await agent.process(ask("and the fan", conversation_id=first.conversation_id))
    replayed = scripted_llm.chat_requests[1].messages[1]
    assert replayed["role"] == "user"
    assert TURN_CONTEXT_HEADER not in replayed["content"]
    assert replayed["content"].endswith("\nturn on the desk lamp")


async def test_acted_on_entities_return_as_history_in_the_next_turn(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The entity a tool acted on is selected for the follow-up, marked as history."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Desk Lamp"})).reply("On.")
    scripted_llm.reply("Off.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    first = await agent.process(ask("turn on the desk lamp"))
    second = await agent.process(ask("turn it off again", conversation_id=first.conversation_id))
    turn = await stored_turn(store, second.turn_id)
    assert turn.context is not None
    reasons = {item["entity_id"]: item["reasons"] for item in turn.context["selected"]}
    assert "history" in reasons["light.desk_lamp"]


async def test_search_tool_finds_exposed_entities_and_the_trace_keeps_them(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """SearchEntities lists matches by area and domain, never a hidden one; the trace says so."""
    scripted_llm.tool_calls(("SearchEntities", {"area": "study", "domain": "light"})).reply("Ok.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    result = await agent.process(ask("what could I switch on"))
    tool_message = scripted_llm.chat_requests[1].messages[-1]
    found = json.loads(tool_message["content"])
    assert found["count"] == 2
    assert "Desk Lamp" in found["result"]
    assert "Secret Lamp" not in found["result"]
    turn = await stored_turn(store, result.turn_id)
    assert turn.context is not None
    reasons = {item["entity_id"]: item["reasons"] for item in turn.context["selected"]}
    assert reasons["light.desk_lamp"] == ["search"]
    assert turn.context["select_ms"] >= 0


async def test_speaker_area_reason_is_in_the_trace(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A satellite's area brings its devices, and the stored trace gives that as the reason."""
    scripted_llm.reply("Ok.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    result = await agent.process(ask("brighter please", device_id="satellite_office"))
    turn = await stored_turn(store, result.turn_id)
    assert turn.context is not None
    reasons = {item["entity_id"]: item["reasons"] for item in turn.context["selected"]}
    assert "speaker_area" in reasons["light.desk_lamp"]
    assert "light.secret_lamp" not in reasons


class KeywordEmbedder:
    """A stand-in embedding model: one axis per keyword, so similarity is predictable."""

    KEYWORDS = ("coffee", "brew", "lamp")

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail:
            raise RuntimeError("embedding server down")
        rows = [[1.0 if k in t.lower() else 0.0 for k in self.KEYWORDS] for t in texts]
        # "brew" means coffee here: the embedding knows what the words do not.
        return np.asarray([[r[0] + r[1], 0.0, r[2]] for r in rows], dtype=np.float32)


async def test_an_embedding_source_adds_entities_close_in_meaning() -> None:
    """With an embedder, "brew me something" brings the Coffee Maker, marked as embedding."""
    home = small_home()
    context = HomeContext(0, KeywordEmbedder())
    turn = await context.select(home, "brew me something", speaker_area_id=None, history=[])
    reasons = {s.entity_id: s.reasons for s in turn.selection.entities}
    assert reasons["switch.coffee_maker"] == ("embedding",)
    assert "light.desk_lamp" not in reasons


async def test_a_failing_embedding_source_leaves_lexical_selection() -> None:
    """An embedder that fails costs only its signal, and is not asked again for the same home."""
    home = small_home()
    embedder = KeywordEmbedder(fail=True)
    context = HomeContext(0, embedder)
    first = await context.select(home, "turn on the desk lamp", speaker_area_id=None, history=[])
    await context.select(home, "brew me something", speaker_area_id=None, history=[])
    assert "light.desk_lamp" in first.selection.entity_ids
    assert embedder.calls == 1


async def test_the_trace_says_which_words_named_a_kind_and_why_each_device_came(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """For "lock the door" the trace reads both words as locks and marks the lock as of its kind."""
    scripted_llm.reply("Locked.")
    agent = make_agent(
        llm=scripted_llm, home=small_home(), local_first=False, overview_token_budget=0
    )
    result = await agent.process(ask("lock the door"))
    turn = await stored_turn(store, result.turn_id)
    assert turn.context is not None
    assert turn.context["kind_words"] == {"lock": ["lock"], "door": ["lock"]}
    reasons = {item["entity_id"]: item["reasons"] for item in turn.context["selected"]}
    assert "every_of_kind" in reasons["lock.front_door"]


async def test_a_kind_above_the_cap_is_counted_for_the_model_and_the_trace() -> None:
    """Among more blinds than fit, the turn and the trace say how many more there are."""
    home = look_alike_home()
    context = HomeContext(0)
    turn = await context.select(home, "close the blind", speaker_area_id=None, history=[])
    left = dict(turn.selection.unlisted)[("cover", "blind")]
    assert turn.text.endswith(f"Not listed: {left} more cover (blind); " + SEARCH_HINT)
    assert turn.trace(context.index(home))["unlisted"] == {"cover.blind": left}
