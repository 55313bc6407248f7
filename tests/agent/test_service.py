"""The agent's turns over the real demo home, the store, and the scripted model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from addon.errors import HomeAssistantCommandError
from addon.home.actions.executor import ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.i18n.translations import EN
from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, ToolCall
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ManualClock, RecordedEvents, ask, stored_turn


class FlakyEvents(RecordedEvents):
    """An event sink whose Home Assistant refuses some event types, as a non-admin token would."""

    def __init__(self, refuse: set[str]) -> None:
        super().__init__()
        self.refuse = refuse

    async def fire_event(self, event_type: str, event_data: dict[str, Any]) -> None:
        if event_type in self.refuse:
            raise HomeAssistantCommandError("unauthorized", "Unauthorized")
        await super().fire_event(event_type, event_data)


async def test_local_command_acts_without_the_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """A sentence Home Assistant's matcher knows is handled locally; the model is not called."""
    agent = make_agent(llm=scripted_llm)
    await VirtualExecutor(demo_model).call_service(
        ServiceCall("light", "turn_off", ("light.kitchen_lights",))
    )
    result = await agent.process(ask("turn on the kitchen lights"))
    assert result.handled_by == "local"
    assert demo_model.state("light.kitchen_lights").state == "on"  # type: ignore[union-attr]
    assert scripted_llm.chat_requests == []
    assert result.actions[0].tool == "HassTurnOn"
    assert result.actions[0].targets == ["light.kitchen_lights"]
    turn = await stored_turn(store, result.turn_id)
    assert turn.handled_by == "local"
    assert "local_match" in turn.timings


async def test_unrecognised_sentence_goes_to_the_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Anything the local matcher does not recognise is answered by the model."""
    scripted_llm.reply("Paris.")
    result = await make_agent(llm=scripted_llm).process(ask("what is the capital of France"))
    assert result.reply == "Paris."
    assert result.handled_by == "llm"


async def test_without_a_model_local_commands_still_work(
    make_agent: MakeAgent, demo_model: HomeModel
) -> None:
    """With no model configured the local path answers and the rest is refused plainly."""
    agent = make_agent(llm=None)
    done = await agent.process(ask("turn off the kitchen lights"))
    refused = await agent.process(ask("write me a poem about lamps"))
    assert done.handled_by == "local"
    assert demo_model.state("light.kitchen_lights").state == "off"  # type: ignore[union-attr]
    assert refused.reply == EN.no_model
    assert refused.handled_by == "failed"


async def test_local_first_can_be_turned_off(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """With local_first off even a simple command goes to the model."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lights"})).reply("Done.")
    result = await make_agent(llm=scripted_llm, local_first=False).process(
        ask("turn on the kitchen lights")
    )
    assert result.handled_by == "llm"
    assert len(scripted_llm.chat_requests) == 2


async def test_model_tool_call_acts_on_the_home(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """The model's intent call runs through the resolver and executor, and is traced."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights", "domain": ["light"]})).reply(
        "The kitchen lights are off."
    )
    result = await make_agent(llm=scripted_llm).process(ask("kitchen, lights, off please"))
    assert demo_model.state("light.kitchen_lights").state == "off"  # type: ignore[union-attr]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        calls = (await session.execute(select(LLMCall).order_by(LLMCall.seq))).scalars().all()
        tools = (await session.execute(select(ToolCall))).scalars().all()
    assert [c.finish_reason for c in calls] == ["tool_calls", "stop"]
    assert tools[0].name == "HassTurnOff"
    assert tools[0].executor == "virtual"  # the fixture's executor is a virtual one on the home
    assert tools[0].llm_call_id == calls[0].id
    assert tools[0].result["data"]["success"][0]["id"] == "light.kitchen_lights"
    assert result.actions[0].success


async def test_follow_up_sees_the_previous_turn(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel
) -> None:
    """A locally handled turn is in the history the model gets, so "it" can be resolved."""
    agent = make_agent(llm=scripted_llm)
    first = await agent.process(ask("turn on the kitchen lights"))
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply("Off again.")
    second = await agent.process(
        ask("and now turn it off again", conversation_id=first.conversation_id)
    )
    sent = scripted_llm.chat_requests[0].messages
    calls = [m for m in sent if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "HassTurnOn"
    assert sent[-1]["content"].endswith("\nand now turn it off again")
    assert second.reply == "Off again."
    assert demo_model.state("light.kitchen_lights").state == "off"  # type: ignore[union-attr]


async def test_history_survives_a_restart(make_agent: MakeAgent, scripted_llm: ScriptedLLM) -> None:
    """A new agent over the same store continues a conversation from the stored turns."""
    scripted_llm.reply("Your name is Ada.")
    first = await make_agent(llm=scripted_llm).process(ask("my name is Ada"))
    scripted_llm.reply("Ada.")
    restarted = make_agent(llm=scripted_llm)
    await restarted.process(ask("what is my name?", conversation_id=first.conversation_id))
    contents = [m.get("content") or "" for m in scripted_llm.chat_requests[1].messages]
    assert any(c.endswith("\nmy name is Ada") for c in contents)
    assert "Your name is Ada." in contents


async def test_history_is_bounded_by_turns(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Only the configured number of earlier turns is sent."""
    agent = make_agent(llm=scripted_llm, history_turns=1)
    conversation = None
    for word in ("one", "two", "three"):
        scripted_llm.reply(f"ok {word}")
        result = await agent.process(ask(f"say {word}", conversation_id=conversation))
        conversation = result.conversation_id
    contents = [m.get("content") or "" for m in scripted_llm.chat_requests[2].messages]
    assert any(c.endswith("\nsay two") for c in contents)
    assert not any(c.endswith("\nsay one") for c in contents)


async def test_system_prompt_is_identical_while_states_and_time_change(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel
) -> None:
    """System prompt and tools stay identical between turns; the time rides on the user's words."""
    agent = make_agent(llm=scripted_llm, local_first=False)
    scripted_llm.reply("one")
    await agent.process(ask("hello"))
    await VirtualExecutor(demo_model).call_service(
        ServiceCall("light", "turn_off", ("light.bed_light",))
    )
    scripted_llm.reply("two")
    await agent.process(ask("hello again"))
    first, second = scripted_llm.chat_requests
    assert first.messages[0] == second.messages[0]
    assert first.tools == second.tools
    system = first.messages[0]["content"]
    assert "Static Context: An overview of the areas and the devices" in system
    assert "- Kitchen Lights" in system
    assert "state" not in system.split("Static Context", 1)[1]
    assert "Current time is" not in system
    assert second.messages[-1]["content"].startswith("Current time is ")
    assert second.messages[-1]["content"].endswith("\nhello again")


async def test_prompt_preview_is_the_system_prompt_a_turn_sends(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The preview (the settings page's) is exactly the system prompt of a turn from no area."""
    agent = make_agent(llm=scripted_llm, local_first=False, extra_instructions="Be a pirate.")
    scripted_llm.reply("Arr.")
    await agent.process(ask("hello"))
    preview = agent.prompt_preview()
    assert preview.system_prompt == scripted_llm.chat_requests[0].messages[0]["content"]
    assert "Be a pirate." in preview.system_prompt
    assert preview.static_overview is not None
    assert "- Kitchen Lights" in preview.static_overview


async def test_tools_follow_home_assistants_assist_api(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The model gets HA's intent tools for exposed domains, GetLiveContext and GetDateTime."""
    scripted_llm.reply("hi")
    await make_agent(llm=scripted_llm, local_first=False).process(ask("hi"))
    names = [tool["function"]["name"] for tool in scripted_llm.chat_requests[0].tools]
    assert {"HassTurnOn", "HassTurnOff", "HassLightSet", "GetLiveContext", "GetDateTime"} <= set(
        names
    )
    assert "HassGetState" not in names  # Home Assistant's Assist API leaves it out
    turn_on = next(
        t for t in scripted_llm.chat_requests[0].tools if t["function"]["name"] == "HassTurnOn"
    )
    assert turn_on["function"]["parameters"]["properties"]["domain"]["type"] == "array"


async def test_live_context_reports_current_states(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """GetLiveContext gives the model states in Home Assistant's live-context format."""
    scripted_llm.tool_calls(("GetLiveContext", {"domain": ["light"]})).reply("Some are on.")
    await make_agent(llm=scripted_llm).process(ask("give me a rundown of the lights"))
    tool_message = scripted_llm.chat_requests[1].messages[-1]
    result = json.loads(tool_message["content"])
    assert result["success"] is True
    assert result["result"].startswith("Live Context: An overview")
    assert "names: Kitchen Lights" in result["result"]
    assert "domain: switch" not in result["result"]


async def test_dry_run_acts_on_a_virtual_copy(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """A dry-run request leaves the home untouched and records the virtual executor."""
    before = demo_model.state("light.kitchen_lights").state  # type: ignore[union-attr]
    command = "turn off the kitchen lights" if before == "on" else "turn on the kitchen lights"
    result = await make_agent(llm=scripted_llm).process(ask(command, dry_run=True))
    assert result.actions[0].success
    assert demo_model.state("light.kitchen_lights").state == before  # type: ignore[union-attr]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        tool = (await session.execute(select(ToolCall))).scalar_one()
    assert tool.executor == "virtual"
    assert (await stored_turn(store, result.turn_id)).dry_run


async def test_trace_names_the_executor_that_ran_not_the_dry_run_flag(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """A request that is not a dry run but acts through a virtual executor is traced as virtual."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply("Done.")
    evaluated = VirtualExecutor(demo_model)  # what the demo and evaluation inject as "live"
    agent = make_agent(llm=scripted_llm, executor=evaluated, local_first=False)
    result = await agent.process(ask("kitchen lights off", dry_run=False))
    assert [call.entity_ids for call in evaluated.calls] == [("light.kitchen_lights",)]
    await store.writer.flush()
    async with store.sessionmaker() as session:
        tool = (await session.execute(select(ToolCall))).scalar_one()
    assert tool.executor == evaluated.name == "virtual"
    assert not (await stored_turn(store, result.turn_id)).dry_run


async def test_device_without_conversation_id_continues_its_conversation(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A satellite that sends no id continues its recent conversation; another device does not."""
    agent = make_agent(llm=scripted_llm)
    scripted_llm.reply("a").reply("b").reply("c")
    first = await agent.process(ask("hello", device_id="satellite-1"))
    again = await agent.process(ask("hello again", device_id="satellite-1"))
    other = await agent.process(ask("hello", device_id="satellite-2"))
    assert again.conversation_id == first.conversation_id
    assert other.conversation_id != first.conversation_id


async def test_session_timeout_starts_a_new_conversation(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Within the session timeout the same device continues; after it, it starts afresh."""
    clock = ManualClock()
    agent = make_agent(llm=scripted_llm, session_timeout=60, clock=clock)
    scripted_llm.reply("a").reply("b").reply("c")
    first = await agent.process(ask("hello", device_id="satellite-1"))
    clock.advance(60)
    within = await agent.process(ask("hello", device_id="satellite-1"))
    clock.advance(60.001)
    later = await agent.process(ask("hello", device_id="satellite-1"))
    assert within.conversation_id == first.conversation_id
    assert later.conversation_id != first.conversation_id


async def test_a_device_continues_its_conversation_after_a_restart(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A new agent (a restart) finds the device's recent conversation in the store, unless stale."""
    scripted_llm.reply("a").reply("b").reply("c")
    first = await make_agent(llm=scripted_llm).process(ask("hello", device_id="satellite-1"))
    await store.writer.flush()
    again = await make_agent(llm=scripted_llm).process(ask("more", device_id="satellite-1"))
    assert again.conversation_id == first.conversation_id
    await store.writer.flush()
    async with store.sessionmaker.begin() as session:
        conversation = await session.get(Conversation, first.conversation_id)
        assert conversation is not None
        conversation.updated_at = conversation.updated_at.replace(year=2020)
    later = await make_agent(llm=scripted_llm).process(ask("hello", device_id="satellite-1"))
    assert later.conversation_id != first.conversation_id


async def test_model_failure_is_spoken_and_recorded(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """An endpoint error gives the apology, handled_by failed, and the error in the store."""
    scripted_llm.error(503)
    result = await make_agent(llm=scripted_llm).process(ask("tell me a joke"))
    assert result.reply == EN.llm_failed
    assert result.handled_by == "failed"
    turn = await stored_turn(store, result.turn_id)
    assert turn.error is not None
    assert "503" in turn.error


async def test_claimed_action_without_a_tool_is_flagged(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A reply that says it turned something on without calling a tool is flagged."""
    scripted_llm.reply("I've turned on the porch light for you.")
    agent = make_agent(llm=scripted_llm)
    result = await agent.process(ask("porch light on, thanks"))
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert turn.flagged
    assert turn.outcome == "mismatch"


async def test_action_that_home_assistant_did_not_report_is_flagged(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """A tool that claims success while the reported state never changed is flagged."""
    await VirtualExecutor(demo_model).call_service(
        ServiceCall("light", "turn_on", ("light.kitchen_lights",))
    )
    detached = VirtualExecutor(demo_model.copy())  # acts, but the home never hears of it
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply("Done.")
    agent = make_agent(llm=scripted_llm, executor=detached, local_first=False)
    result = await agent.process(ask("kitchen lights off"))
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert turn.flagged
    assert turn.outcome_detail["entities"][0]["entity_id"] == "light.kitchen_lights"


async def test_confirmed_action_is_not_flagged(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """When the home reports the change the turn is confirmed."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply("Done.")
    agent = make_agent(llm=scripted_llm, local_first=False)
    result = await agent.process(ask("kitchen lights off"))
    await agent.drain()
    turn = await stored_turn(store, result.turn_id)
    assert (turn.outcome, turn.flagged) == ("confirmed", False)


async def test_events_are_fired_for_automations(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A local turn fires conversation_started, one tool_executed, then conversation_finished."""
    events = RecordedEvents()
    agent = make_agent(llm=scripted_llm, events=events)
    result = await agent.process(ask("turn on the kitchen lights", device_id="kitchen-tablet"))
    await agent.drain()
    kinds = [kind for kind, _ in events.fired]
    assert kinds == [
        "home_agent_conversation_started",
        "home_agent_tool_executed",
        "home_agent_conversation_finished",
    ]
    started, finished = events.fired[0][1], events.fired[-1][1]
    assert started == {
        "conversation_id": result.conversation_id,
        "text": "turn on the kitchen lights",
        "source": "http",
        "language": "en",
        "device_id": "kitchen-tablet",
        "satellite_id": None,
        "dry_run": False,
        "actor": finished["actor"],  # who asks is known when the turn starts
    }
    assert started["actor"]["endpoint"] == "http"
    assert started["actor"]["satellite"]["device_id"] == "kitchen-tablet"
    assert finished["reply"] == result.reply
    assert finished["handled_by"] == "local"
    assert finished["text"] == "turn on the kitchen lights"


async def test_tool_progress_brackets_each_model_tool_call(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A model's tool call fires progress started then completed, before tool_executed."""
    events = RecordedEvents()
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply("Done.")
    agent = make_agent(llm=scripted_llm, events=events, local_first=False)
    result = await agent.process(ask("kitchen lights off"))
    await agent.drain()
    assert [kind for kind, _ in events.fired] == [
        "home_agent_conversation_started",
        "home_agent_tool_progress",
        "home_agent_tool_progress",
        "home_agent_tool_executed",
        "home_agent_conversation_finished",
    ]
    begun, ended = events.fired[1][1], events.fired[2][1]
    assert begun == {
        "conversation_id": result.conversation_id,
        "call_id": ended["call_id"],
        "tool": "HassTurnOff",
        "status": "started",
    }
    assert (ended["tool"], ended["status"], ended["error"], ended["executor"]) == (
        "HassTurnOff",
        "completed",
        None,
        "virtual",  # the fixture's live executor is a virtual one, and the trace says so
    )


async def test_a_failed_tool_call_reports_failed_progress(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A tool call that errs fires progress failed with the error the model was given."""
    events = RecordedEvents()
    scripted_llm.tool_calls(("NoSuchTool", {})).reply("I could not do that.")
    agent = make_agent(llm=scripted_llm, events=events, local_first=False)
    await agent.process(ask("do the impossible"))
    await agent.drain()
    progress = [data for kind, data in events.fired if kind == "home_agent_tool_progress"]
    assert [p["status"] for p in progress] == ["started", "failed"]
    assert "unknown tool 'NoSuchTool'" in progress[1]["error"]


async def test_a_failed_turn_fires_an_error_event(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A turn the model endpoint failed fires home_agent_error before conversation_finished."""
    events = RecordedEvents()
    scripted_llm.error(503)
    agent = make_agent(llm=scripted_llm, events=events)
    result = await agent.process(ask("tell me a joke", device_id="kitchen-tablet"))
    await agent.drain()
    kinds = [kind for kind, _ in events.fired]
    assert kinds[-2:] == ["home_agent_error", "home_agent_conversation_finished"]
    error = events.fired[-2][1]
    assert (error["turn_id"], error["handled_by"], error["reply"]) == (
        result.turn_id,
        "failed",
        result.reply,
    )
    assert "503" in error["error"]
    assert error["device_id"] == "kitchen-tablet"


async def test_a_turn_that_raises_fires_an_error_event(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A turn that raises (its history unreadable) still tells Home Assistant it failed."""
    events = RecordedEvents()
    scripted_llm.reply("Hello.")
    agent = make_agent(llm=scripted_llm, events=events)
    first = await agent.process(ask("hello"))
    restarted = make_agent(llm=scripted_llm, events=events)
    await store.writer.flush()
    async with store.engine.begin() as connection:
        await connection.execute(text("DROP TABLE turns"))
    with pytest.raises(OperationalError):
        await restarted.process(ask("again", conversation_id=first.conversation_id))
    await restarted.drain()
    error = events.fired[-1]
    assert error[0] == "home_agent_error"
    assert error[1]["conversation_id"] == first.conversation_id
    assert error[1]["turn_id"] is None


async def test_events_never_fail_a_turn_while_home_assistant_is_away(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """With Home Assistant disconnected no event is fired, and the turn answers as usual."""
    events = RecordedEvents(connected=False)
    agent = make_agent(llm=scripted_llm, events=events)
    result = await agent.process(ask("turn on the kitchen lights"))
    await agent.drain()
    assert result.handled_by == "local"
    assert events.fired == []


async def test_a_failing_fire_does_not_stop_later_events(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """When Home Assistant refuses one event the turn answers and the next events still go."""
    events = FlakyEvents(refuse={"home_agent_tool_executed"})
    agent = make_agent(llm=scripted_llm, events=events)
    result = await agent.process(ask("turn on the kitchen lights"))
    await agent.drain()
    assert result.handled_by == "local"
    assert [kind for kind, _ in events.fired] == [
        "home_agent_conversation_started",
        "home_agent_conversation_finished",
    ]


async def test_streaming_reply_reaches_the_caller_in_chunks(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """With a text sink the model streams and the chunks add up to the reply."""
    scripted_llm.reply("It is a lovely day outside today.")
    chunks: list[str] = []

    async def sink(text: str) -> None:
        chunks.append(text)

    result = await make_agent(llm=scripted_llm).process(ask("how is the day"), on_text=sink)
    assert len(chunks) > 1
    assert "".join(chunks) == result.reply
    assert scripted_llm.chat_requests[0].body["stream"] is True


async def test_text_beside_a_tool_call_is_in_the_reply_unstreamed_too(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Without a listener the reply is the same text a streaming listener would have heard."""
    scripted_llm.tool_calls(("GetDateTime", {}), content="One moment.").reply("It is nine.")
    result = await make_agent(llm=scripted_llm, local_first=False).process(ask("time?"))
    assert result.reply == "One moment. It is nine."
    assert (await stored_turn(store, result.turn_id)).reply_text == result.reply


async def test_without_home_assistant_the_model_still_answers(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Before the first home snapshot the agent answers without home tools."""
    scripted_llm.reply("Hello!")
    result = await make_agent(llm=scripted_llm, home=None).process(ask("hello"))
    assert result.reply == "Hello!"
    names = [tool["function"]["name"] for tool in scripted_llm.chat_requests[0].tools]
    assert names == ["GetDateTime"]


async def test_a_question_is_answered_locally_with_a_model_by_default(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel
) -> None:
    """local_questions on (the default): Home Assistant's answer, the model is not asked."""
    state = demo_model.state("cover.garage_door")
    assert state is not None
    result = await make_agent(llm=scripted_llm).process(ask("is the garage door open"))

    assert result.handled_by == "local"
    assert result.reply.startswith("Yes" if state.state == "open" else "No")
    assert not scripted_llm.chat_requests


async def test_local_questions_off_leaves_questions_to_the_model(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """local_questions off: a question goes to the configured model."""
    scripted_llm.reply("It is closed.")
    result = await make_agent(llm=scripted_llm, local_questions=False).process(
        ask("is the garage door open")
    )

    assert result.handled_by == "llm"
    assert result.reply == "It is closed."


async def test_a_question_is_answered_without_a_model(make_agent: MakeAgent) -> None:
    """Without a model a question is answered locally whatever local_questions says."""
    result = await make_agent(local_questions=False).process(ask("is the garage door open"))

    assert result.handled_by == "local"
