"""The backup endpoint answers when the primary fails, against two scripted model servers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import select

from addon.errors import ErrorKind
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.i18n.translations import EN
from addon.llm.fallback import PRIMARY_RETRY_S
from addon.store.database import Store
from addon.store.models import LLMCall, ToolCall
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_model_failures import closed_port_url
from tests.fixtures.agent import MakeAgent, ask

BACKUP_REPLY = "The backup says hello."
QUESTION = "tell me a joke"


async def model_calls(store: Store, turn_id: int) -> list[LLMCall]:
    await store.writer.flush()
    async with store.sessionmaker() as session:
        query = select(LLMCall).where(LLMCall.turn_id == turn_id).order_by(LLMCall.seq)
        return list((await session.execute(query)).scalars())


@dataclass(slots=True)
class MonotonicClock:
    """Monotonic seconds that move only when the test moves them."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


def server_error(llm: ScriptedLLM) -> dict[str, Any]:
    llm.error(500)
    return {"llm": llm}


def timing_out(llm: ScriptedLLM) -> dict[str, Any]:
    llm.reply("too late", delay=5.0)
    # The backup keeps a long timeout: on a loaded machine it must not time out as well.
    return {"llm": llm, "llm_timeout": 0.5, "fallback_timeout": 10.0}


def rate_limited(llm: ScriptedLLM) -> dict[str, Any]:
    llm.error(429, headers={"retry-after-ms": "1"})
    return {"llm": llm}


def refused(_llm: ScriptedLLM) -> dict[str, Any]:
    return {"llm": closed_port_url()}


Failure = Callable[[ScriptedLLM], dict[str, Any]]
COVERED: dict[str, Failure] = {
    "refused": refused,
    "5xx": server_error,
    "timeout": timing_out,
    "429": rate_limited,
}


@pytest.mark.parametrize("failure", COVERED.values(), ids=COVERED.keys())
async def test_the_backup_answers_when_the_primary_fails(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    second_llm: ScriptedLLM,
    store: Store,
    failure: Failure,
) -> None:
    """Refused, 5xx, timed out or rate limited: the same request goes to the backup."""
    second_llm.reply(BACKUP_REPLY)
    result = await make_agent(fallback=second_llm, **failure(scripted_llm)).process(ask(QUESTION))
    assert (result.reply, result.handled_by, result.error) == (BACKUP_REPLY, "llm", None)
    assert len(second_llm.chat_requests) == 1
    calls = await model_calls(store, result.turn_id)
    assert [(call.endpoint, call.error is None) for call in calls] == [
        ("primary", False),
        ("backup", True),
    ]
    assert calls[1].note is not None
    assert calls[1].note.startswith("the primary failed")


async def test_the_backup_gets_exactly_the_request_the_primary_failed(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM
) -> None:
    """Messages and tools the backup receives are byte for byte those the primary was sent."""
    scripted_llm.error(503)
    second_llm.reply(BACKUP_REPLY)
    await make_agent(llm=scripted_llm, fallback=second_llm).process(ask(QUESTION))
    primary, backup = scripted_llm.chat_requests[0], second_llm.chat_requests[0]
    assert (backup.messages, backup.tools) == (primary.messages, primary.tools)


async def test_a_primary_failing_mid_tool_loop_runs_no_tool_twice(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    second_llm: ScriptedLLM,
    demo_model: HomeModel,
    store: Store,
) -> None:
    """The tool the primary asked for ran once; the backup continues from its result."""
    executor = VirtualExecutor(demo_model)
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Ceiling Lights"})).error(500)
    second_llm.reply("The ceiling lights are on.")
    agent = make_agent(llm=scripted_llm, fallback=second_llm, executor=executor, local_first=False)
    result = await agent.process(ask("turn on the ceiling lights"))
    assert result.reply == "The ceiling lights are on."
    assert [(call.domain, call.service) for call in executor.calls] == [
        ("homeassistant", "turn_on")
    ]
    sent = second_llm.chat_requests[0].messages
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "HassTurnOn"
    assert sent[-1]["role"] == "tool"
    assert sent == scripted_llm.chat_requests[1].messages
    calls = await model_calls(store, result.turn_id)
    assert [(call.endpoint, call.error is None) for call in calls] == [
        ("primary", True),
        ("primary", False),
        ("backup", True),
    ]
    async with store.sessionmaker() as session:
        tools = list((await session.execute(select(ToolCall))).scalars())
    assert [(tool.name, tool.llm_call_id) for tool in tools] == [("HassTurnOn", calls[0].id)]


@pytest.mark.parametrize(
    ("status", "code", "kind", "reply"),
    [
        (401, None, ErrorKind.LLM_AUTH, EN.llm_auth),
        (404, "model_not_found", ErrorKind.LLM_MODEL_NOT_FOUND, EN.llm_model_not_found),
    ],
    ids=["wrong key", "unknown model"],
)
async def test_a_settings_error_is_told_not_covered_by_the_backup(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    second_llm: ScriptedLLM,
    status: int,
    code: str | None,
    kind: ErrorKind,
    reply: str,
) -> None:
    """A rejected key or unknown model is the user's to fix: the backup is not asked."""
    scripted_llm.error(status, "The model `scripted-model` does not exist", code=code)
    result = await make_agent(llm=scripted_llm, fallback=second_llm).process(ask(QUESTION))
    assert (result.reply, result.error_kind) == (reply, kind)
    assert second_llm.chat_requests == []


async def test_the_backups_failure_is_the_turns(
    make_agent: MakeAgent, second_llm: ScriptedLLM, store: Store
) -> None:
    """When the backup fails too, the reply names the backup's reason; both calls are traced."""
    second_llm.error(401)
    result = await make_agent(llm=closed_port_url(), fallback=second_llm).process(ask(QUESTION))
    assert (result.reply, result.error_kind) == (EN.llm_auth, ErrorKind.LLM_AUTH)
    calls = await model_calls(store, result.turn_id)
    assert [call.endpoint for call in calls] == ["primary", "backup"]
    assert all(call.error for call in calls)


async def test_the_primary_is_skipped_while_it_is_down(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM, store: Store
) -> None:
    """After a failure the next turns go straight to the backup, until the retry window ends."""
    clock = MonotonicClock()
    scripted_llm.error(500)
    second_llm.reply("one").reply("two")
    agent = make_agent(llm=scripted_llm, fallback=second_llm, fallback_clock=clock)
    await agent.process(ask("first"))
    clock.now += PRIMARY_RETRY_S - 1
    second = await agent.process(ask("second"))
    assert second.reply == "two"
    assert len(scripted_llm.chat_requests) == 1
    calls = await model_calls(store, second.turn_id)
    assert [call.endpoint for call in calls] == ["backup"]
    assert calls[0].note is not None
    assert calls[0].note.startswith("the primary is skipped for now")
    clock.now += 1
    scripted_llm.reply("primary again")
    third = await agent.process(ask("third"))
    assert third.reply == "primary again"
    assert len(second_llm.chat_requests) == 2


async def test_a_streamed_turn_hears_only_the_backup(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, second_llm: ScriptedLLM
) -> None:
    """A primary that failed before any text leaves the listener only the backup's words."""
    scripted_llm.error(502)
    second_llm.reply(BACKUP_REPLY)
    heard: list[str] = []

    async def listen(text: str) -> None:
        heard.append(text)

    agent = make_agent(llm=scripted_llm, fallback=second_llm)
    result = await agent.process(ask(QUESTION), on_text=listen)
    assert "".join(heard) == BACKUP_REPLY == result.reply
    assert second_llm.chat_requests[0].body["stream"] is True
